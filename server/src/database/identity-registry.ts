import type { Core } from '@strapi/strapi';
import { UIDS } from '../constants';
import type { Knex, Query, Trx } from './knex';
import { tableOf } from './tables';

/**
 * Exclusive by default: the holder is about to change the row. With a `locale`, only rows in that
 * locale make the document exist (the plugin's version of a document with i18n on).
 */
export type RowLock = { shared?: boolean; locale?: string };

/** A registry key (as stored) whose document still has rows, with the locale of one of them when asked. */
export type LiveKey = { key: string; target: string; locale?: string };

/**
 * The values of `column` among `values`, looked up by equality so that an index on the column
 * serves it on every database (a LIKE prefix cannot use PostgreSQL's index under a non-C
 * collation, nor SQLite's, which compares LIKE case-insensitively: both read the whole table).
 * On MySQL and MariaDB the value is read as binary-collated utf8mb4, so that a UNION of columns
 * with different collations (a site's own table beside the plugin's) is not refused as an
 * illegal mix.
 */
function valuesIn(knex: Knex, mysql: boolean, table: string, column: string, values: string[]) {
  const value = mysql
    ? knex.raw('convert(?? using utf8mb4) collate utf8mb4_bin as value', [column])
    : { value: column };
  return knex(table).select(value).whereIn(column, values);
}

/**
 * The identity registry's table, and the reads of the content types' tables that go with it:
 * every statement `services/publishing/identities.ts` runs, with the dialects' differences. Keys come in
 * as stored (`storedKey`). Row locks are taken where the database has them: SQLite locks the
 * whole file for a write transaction, and knows no `FOR UPDATE`.
 */
// Over 50 lines: a repository factory; its statements, each short, share strapi through this closure.
export function identityRegistry(strapi: Core.Strapi) {
  const knex = (): Knex => strapi.db.connection;
  /** The query, locking the rows it reads as `lock` asks; SQLite's one writer needs no row locks. */
  const locking = <Built extends Query>(query: Built, lock: RowLock): Built => {
    if (strapi.db.dialect.client === 'sqlite') return query;
    return (lock.shared ? query.forShare() : query.forUpdate()) as Built;
  };
  const identities = () => tableOf(strapi, UIDS.identity);

  return {
    /**
     * The target the key points at, its registry row locked as `lock` says; with `trx` null, a
     * plain read outside any transaction, which locks nothing.
     */
    async targetOf(
      trx: Trx | null,
      registryName: string,
      key: string,
      lock: RowLock
    ): Promise<string | null> {
      const table = identities();
      let query = knex()(table.name)
        .select(table.column('target'))
        .where({ [table.column('resource')]: registryName, [table.column('naturalKey')]: key })
        .first();
      if (trx) query = query.transacting(trx);
      if (trx) query = locking(query, lock);
      const row = await query;
      return row ? (row[table.column('target')] as string) : null;
    },

    /** `targetOf` for several keys in one statement: those the registry holds, with their targets. */
    async targetsOf(
      trx: Trx,
      registryName: string,
      keys: string[],
      lock: RowLock
    ): Promise<Array<{ key: string; target: string }>> {
      const table = identities();
      const query = knex()(table.name)
        .transacting(trx)
        .select({ key: table.column('naturalKey'), target: table.column('target') })
        .where(table.column('resource'), registryName)
        .whereIn(table.column('naturalKey'), keys);
      return locking(query, lock);
    },

    /** The keys that name `target`; outside a transaction when `trx` is null. */
    async keysOf(trx: Trx | null, registryName: string, target: string): Promise<string[]> {
      const table = identities();
      const query = knex()(table.name)
        .select({ key: table.column('naturalKey') })
        .where({ [table.column('resource')]: registryName, [table.column('target')]: target });
      const rows: Array<{ key: string }> = await (trx ? query.transacting(trx) : query);
      return rows.map((row) => row.key);
    },

    async deleteKey(trx: Trx, registryName: string, key: string) {
      const table = identities();
      await knex()(table.name)
        .transacting(trx)
        .where({ [table.column('resource')]: registryName, [table.column('naturalKey')]: key })
        .delete();
    },

    async deleteTarget(trx: Trx, registryName: string, target: string) {
      const table = identities();
      await knex()(table.name)
        .transacting(trx)
        .where({ [table.column('resource')]: registryName, [table.column('target')]: target })
        .delete();
    },

    /** Inserts every key for its target in one statement: all of them, or the driver's unique violation. */
    async insertKeys(trx: Trx, claims: Array<{ registryName: string; key: string; target: string }>) {
      const table = identities();
      const now = new Date();
      await knex()(table.name)
        .transacting(trx)
        .insert(
          claims.map(({ registryName, key, target }) => ({
            [table.column('resource')]: registryName,
            [table.column('naturalKey')]: key,
            [table.column('target')]: target,
            [table.column('createdAt')]: now,
            [table.column('updatedAt')]: now,
            [table.column('publishedAt')]: now,
          }))
        );
    },

    /** Locks every row of the document in `uid`'s table; their locales, with `lock.locale`. */
    async lockDocumentRows(
      trx: Trx,
      uid: string,
      documentId: string,
      lock: RowLock
    ): Promise<Array<{ locale?: string }>> {
      const table = tableOf(strapi, uid);
      const query = knex()(table.name)
        .transacting(trx)
        .select({ id: table.column('id'), ...(lock.locale ? { locale: table.column('locale') } : {}) })
        .where(table.column('documentId'), documentId);
      return locking(query, lock);
    },

    /**
     * Of `keys`, those whose target still has a row in `uid`'s table, in one join; a locking
     * read of a join locks the rows it returns in both tables.
     */
    async lockLiveKeys(
      trx: Trx,
      registryName: string,
      uid: string,
      keys: string[],
      lock: RowLock
    ): Promise<LiveKey[]> {
      const registry = identities();
      const table = tableOf(strapi, uid);
      const query = knex()({ registry: registry.name })
        .transacting(trx)
        .join(
          { entry: table.name },
          `entry.${table.column('documentId')}`,
          `registry.${registry.column('target')}`
        )
        .select({
          key: `registry.${registry.column('naturalKey')}`,
          target: `registry.${registry.column('target')}`,
          ...(lock.locale ? { locale: `entry.${table.column('locale')}` } : {}),
        })
        .where(`registry.${registry.column('resource')}`, registryName)
        .whereIn(`registry.${registry.column('naturalKey')}`, keys);
      return locking(query, lock);
    },

    /**
     * Of `slugs`, those an entry of `uid` uses in `slugField`, and of `keys`, those any of
     * `registryNames` holds: one query on both tables, every lookup through an index. MySQL and MariaDB answer
     * in the case they stored, which their collation does not tell apart.
     */
    async usedSlugsAndKeys(
      trx: Trx,
      registryNames: string[],
      uid: string,
      slugField: string,
      slugs: string[],
      keys: string[]
    ): Promise<string[]> {
      const table = tableOf(strapi, uid);
      const registry = identities();
      const mysql = strapi.db.dialect.client === 'mysql';
      const usedSlugs = valuesIn(knex(), mysql, table.name, table.column(slugField), slugs);
      const usedKeys = valuesIn(knex(), mysql, registry.name, registry.column('naturalKey'), keys).whereIn(
        registry.column('resource'),
        registryNames
      );
      const rows: Array<{ value: string }> = await usedSlugs.unionAll(usedKeys).transacting(trx);
      return rows.map((row) => String(row.value));
    },
  };
}
