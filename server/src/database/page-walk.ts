import type { Core } from '@strapi/strapi';
import { committedReads } from './committed-reads';
import { unionAllOf, type Query } from './knex';
import { contentTypeOf } from './schemas';
import { relationTableOf, tableOf } from './tables';

/**
 * An item's place in the order: its creation time exactly as the column holds it (text on
 * PostgreSQL and MariaDB, whose drivers would round microseconds to a Date's milliseconds; null
 * when a row has none), its type's index in the listing, its document; and its published row,
 * by which the page's fields and names are read.
 */
export type PageKey = {
  createdAt: string | number | null;
  kindIndex: number;
  documentId: string;
  rowId: number;
};
/** A key a walk's next page starts after: one with a creation time. */
export type WalkHint = PageKey & { createdAt: string | number };
/** A listed content type, and the one locale listed when it has i18n on. */
export type ListedType = { uid: string; locale?: string };

/** How a key's creation time is read as text, where the driver would round it (SQLite: as stored). */
const CREATION_AS_TEXT: Partial<Record<string, string>> = {
  postgres: 'CAST(?? AS TEXT)',
  mysql: 'CAST(?? AS CHAR)',
};

/**
 * The page list's reads, in plain SQL with the dialects' differences: one union of the listed
 * tables in creation order for a page's keys, then one of the page's rows of every type, then
 * one of the names the rows link through their relations: three statements for any page, where
 * a statement per type and per relation made a page of posts, categories and products cost 7.
 * The Document Service would read whole rows and sort them all.
 */
// Over 50 lines: a repository factory; its statements, each short, share strapi through this closure.
export function pageWalk(strapi: Core.Strapi) {
  const reads = committedReads(strapi);

  /**
   * The keys of a page, counted from an offset or from the key before the page. Each member
   * reads its rows in order from the index the pages service adds, and the database merges the
   * sorted members and stops after the page, instead of reading every published row (5 KB bodies
   * included) and sorting them all on every request. SQLite merges when the ORDER BY is the
   * union's own (and refuses parenthesised members). PostgreSQL and MariaDB sort the whole union
   * whatever its members' indexes, so there each member stops after offset + limit rows of its
   * own, in order, and the outer query merges those (PostgreSQL, page 1 of 100,000 items: a sort
   * of all of them, 26 ms, became a merge of 300 rows, 0.1 ms).
   */
  async function readKeys(
    listed: ListedType[],
    { after, undated, offset, limit }: { after?: WalkHint; undated?: boolean; offset: number; limit: number }
  ): Promise<PageKey[]> {
    const knex = strapi.db.connection;
    const unionMergesMembers = strapi.db.dialect.client === 'sqlite';
    const members = listed.map((type, kindIndex) => {
      const { column } = tableOf(strapi, type.uid);
      const member = publishedKeys(type, kindIndex);
      if (after) whereAfter(member, column, kindIndex, after);
      if (undated) member.whereNull(column('createdAt'));
      return unionMergesMembers
        ? member
        : member.orderBy([column('createdAt'), column('documentId')]).limit(offset + limit);
    });
    const ordered = unionMergesMembers
      ? unionAllOf(members)
      : knex.select('*').from(knex.unionAll(members, true).as('page_keys'));
    const rows = await reads.read<{
      createdKey: PageKey['createdAt'];
      documentId: string;
      kind_index: number | string;
      row_id: number | string;
    }>(
      ordered
        .orderBy([{ column: 'createdAt' }, { column: 'kind_index' }, { column: 'documentId' }])
        .limit(limit)
        .offset(offset)
    );
    return rows.map((row) => ({
      createdAt: row.createdKey,
      kindIndex: Number(row.kind_index),
      documentId: row.documentId,
      rowId: Number(row.row_id),
    }));
  }

  /**
   * The published rows (in the listed locale) of one listed type, as keys: creation, type,
   * document, and the row's id, which every index holds beside its own columns on SQLite (the
   * rowid) and MariaDB (the primary key); PostgreSQL reads it from the row.
   */
  function publishedKeys({ uid, locale }: ListedType, kindIndex: number): Query {
    const knex = strapi.db.connection;
    const { name, column } = tableOf(strapi, uid);
    const createdAt = column('createdAt');
    const asText = CREATION_AS_TEXT[strapi.db.dialect.client];
    const select = knex(name)
      .select({ documentId: column('documentId'), createdAt, row_id: column('id') })
      .select({ createdKey: asText ? knex.raw(asText, [createdAt]) : createdAt })
      .select(knex.raw(`${Number(kindIndex)} as kind_index`))
      .whereNotNull(column('publishedAt'));
    return locale ? select.where(column('locale'), locale) : select;
  }

  /** Keeps the rows of one listed type that sort after `key` (creation, then type, then document). */
  function whereAfter(
    select: Query,
    column: (attribute: string) => string,
    kindIndex: number,
    key: WalkHint
  ) {
    const createdAt = column('createdAt');
    if (kindIndex < key.kindIndex) return select.where(createdAt, '>', key.createdAt);
    if (kindIndex > key.kindIndex) return select.where(createdAt, '>=', key.createdAt);
    return select
      .where(createdAt, '>=', key.createdAt)
      .where((later: Query) =>
        later.where(createdAt, '>', key.createdAt).orWhere(column('documentId'), '>', key.documentId)
      );
  }

  /**
   * An attribute's column as a union of several tables reads it. PostgreSQL matches a union's
   * columns pairwise and refuses JSON beside text (two members' nulls are text): there a JSON
   * column is read as its text, as SQLite and MariaDB hand it back.
   */
  function unionColumn(uid: string, attribute: string) {
    const { column } = tableOf(strapi, uid);
    const isJson = contentTypeOf(strapi, uid)?.attributes[attribute]?.type === 'json';
    return isJson && strapi.db.dialect.client === 'postgres'
      ? strapi.db.connection.raw('CAST(?? AS TEXT)', [column(attribute)])
      : column(attribute);
  }

  return {
    /** Opens what the reads use beside the site's connection (Strapi starts); they do not wait for it. */
    open: () => reads.open(),
    /** Closes what the reads opened (Strapi stops). */
    close: () => reads.close(),

    /**
     * One page of (document, type) keys over every listed type, in order of creation, from
     * `offset`, or from just after `after` (a key of the page before). The database sorts and
     * applies the offset.
     */
    async pageKeys(
      listed: ListedType[],
      { after, offset, limit }: { after?: WalkHint; offset: number; limit: number }
    ): Promise<PageKey[]> {
      const keys = await readKeys(listed, { after, offset: after ? 0 : offset, limit });
      // PostgreSQL sorts rows without a creation time last: after a key, the page ends with the first of them.
      if (after && keys.length < limit && strapi.db.dialect.client === 'postgres') {
        keys.push(...(await readKeys(listed, { undated: true, offset: 0, limit: limit - keys.length })));
      }
      return keys;
    },

    /**
     * The published rows (in its locale) of each type's documents, in one statement: a union of
     * one select per type, each row with its type's index in `types` (`type_index`). A document
     * republished since its key was read is read in its new row. Each attribute is read under
     * its alias, so no attribute's name can clash with another's; an alias a type does not read
     * is null in its rows. An alias several types read must be of one kind of column in all of
     * them: PostgreSQL's union refuses JSON beside text.
     */
    async publishedRows<Row extends Record<string, unknown>>(
      types: Array<ListedType & { documentIds: string[]; attributes: Record<string, string> }>
    ): Promise<Array<Row & { type_index: number }>> {
      const knex = strapi.db.connection;
      const aliases = [...new Set(types.flatMap(({ attributes }) => Object.keys(attributes)))];
      const members = types.map(({ uid, locale, documentIds, attributes }, typeIndex) => {
        const { name, column } = tableOf(strapi, uid);
        const select = knex(name)
          .select(knex.raw(`${Number(typeIndex)} as type_index`))
          .select(
            Object.fromEntries(
              aliases.map((alias) => [
                alias,
                attributes[alias] ? unionColumn(uid, attributes[alias]) : knex.raw('null'),
              ])
            )
          )
          .whereIn(column('documentId'), documentIds)
          .whereNotNull(column('publishedAt'));
        return locale ? select.where(column('locale'), locale) : select;
      });
      const rows = await reads.read<Row & { type_index: number | string }>(unionAllOf(members));
      return rows.map((row) => ({
        ...row,
        type_index: Number(row.type_index),
      }));
    },

    /**
     * For each of `relations`, the `nameAttribute` of the entries each of its rows links through
     * the relation `attribute`, in one statement: a union of one join per relation, each row with
     * its relation's index in `relations` (`link_set`). It needs only the rows' ids, which the
     * keys carry, so it goes to the database beside publishedRows: where a statement waits for
     * the network (PostgreSQL, MariaDB), a page waits for two round trips after its keys, not
     * three in a row. A relation's rows come in the order Strapi populates them: its connect
     * order, where the relation keeps one (the join row's id breaks ties, in the order the links
     * were made).
     */
    async linkedNames(
      relations: Array<{ uid: string; attribute: string; nameAttribute: string; rowIds: number[] }>
    ): Promise<Array<{ linkSet: number; owner: number; name: string }>> {
      const knex = strapi.db.connection;
      const members = relations.map(({ uid, attribute, nameAttribute, rowIds }, linkSet) => {
        const join = relationTableOf(strapi, uid, attribute);
        const linked = tableOf(strapi, join.target);
        return knex(join.name)
          .join(
            linked.name,
            `${linked.name}.${linked.column('id')}`,
            `${join.name}.${join.inverseJoinColumn}`
          )
          .select(knex.raw(`${Number(linkSet)} as link_set`))
          .select({
            owner: `${join.name}.${join.joinColumn}`,
            name: `${linked.name}.${linked.column(nameAttribute)}`,
            // 0, not null: PostgreSQL would read two members' nulls as text, and refuse a number after.
            link_order: join.orderColumn ? `${join.name}.${join.orderColumn}` : knex.raw('0'),
            link_id: `${join.name}.id`,
          })
          .whereIn(`${join.name}.${join.joinColumn}`, rowIds);
      });
      const rows = await reads.read<{ link_set: number | string; owner: number; name: string }>(
        unionAllOf(members).orderBy([{ column: 'link_set' }, { column: 'link_order' }, { column: 'link_id' }])
      );
      return rows.map((row) => ({
        linkSet: Number(row.link_set),
        owner: row.owner,
        name: row.name,
      }));
    },
  };
}
