import type { Core } from '@strapi/strapi';
import { LRUCache } from 'lru-cache';
import type { Paging } from '../../contract/paging';
import type { ResourceKind } from '../../mapping/catalogue';
import type { FieldTarget } from '../../mapping/resolve';
import type { Resource } from '../../resources';
import type { LocaleScope } from '../site/locales';
import type { PageItem } from '../../contract/responses';
import { getService } from '../../plugin';
import { tableOf } from '../../database/tables';
import { contentTypeOf } from '../../database/schemas';
import { ensureIndex, indexName, type WantedIndex } from '../../database/indexes';
import { pageWalk, type ListedType, type PageKey, type WalkHint } from '../../database/page-walk';

const LISTED: ResourceKind[] = ['post', 'blogCategory', 'product', 'productCategory'];
const TAXONOMIES = ['categories', 'tags'] as const;

const isWalkHint = (key: PageKey | undefined): key is WalkHint => key !== undefined && key.createdAt !== null;

/**
 * How many walks' next pages are remembered, and for how long: a walk asks its pages one after
 * another, a fraction of a second apart; a hint is a few hundred bytes.
 */
const WALK_HINTS = { max: 1_000, ttl: 2 * 60_000 };
/** How many times a page is read while entries on it keep vanishing between its reads. */
const PAGE_READS = 3;
/**
 * The documents of one listed type on a page, the published row of each as the page's keys read
 * it, and the type's categories and tags fields.
 */
type PagePart = {
  kindIndex: number;
  resource: Resource;
  locale?: string;
  documentIds: string[];
  rowIds: number[];
  taxonomies: Array<{ field: (typeof TAXONOMIES)[number]; target: FieldTarget }>;
};
/** A listed entry's row as readItems selects it, under its aliases (categories, tags: when a column holds them). */
type ItemRow = {
  id: number;
  documentId: string;
  title: string | null;
  slug?: string | null;
  updatedAt: unknown;
  [taxonomy: string]: unknown;
};

/** A datetime column as Strapi's datetime field reads it: drivers hand back a Date, a number or text. */
const dateOf = (value: unknown) =>
  (value instanceof Date ? value : new Date(value as string | number)).toISOString();

/** The names an entry keeps in a column of its own: a JSON list, or one comma-separated text. */
function namesIn(value: unknown, attributeType?: string): string[] {
  const read = attributeType === 'json' ? jsonOf(value) : value;
  return Array.isArray(read) ? read : typeof read === 'string' && read ? read.split(', ') : [];
}

/**
 * A JSON column's value as Strapi's JSON field reads it: SQLite and MariaDB hand it back as text
 * (and the page list reads it as text on PostgreSQL too), and Strapi 5 before 5.0.0-rc.7 stored
 * some values stringified twice; text that is not JSON stays.
 */
function jsonOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return value;
  }
  if (typeof parsed !== 'string') return parsed;
  // A JSON string: stringified twice, or a plain text value, as PostgreSQL reads it.
  try {
    return JSON.parse(parsed);
  } catch {
    return parsed;
  }
}

// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const mapping = () => getService(strapi, 'mapping');
  const walk = pageWalk(strapi);

  /**
   * Where the next page of a walk starts: the last key of each page served, by the page size and
   * the position after it (and the listed types and locales, which decide the order), for two
   * minutes. The publisher asks page after page, so its next page is read from that key on
   * through the indexes, at the cost of one page, where an offset steps over every earlier item
   * again (a walk of n pages cost n²/2 pages). From a key the next page also stays right when
   * entries before it were deleted during the walk. A page asked out of turn, one whose page
   * before another instance of the site served, and one after a row without a creation time are
   * counted by offset, as before.
   */
  const walkHints = new LRUCache<string, WalkHint>(WALK_HINTS);

  /**
   * One page of (document, type) keys over every listed type, in order of creation. A new entry
   * sorts after every existing one, so a walk in progress never sees an item twice or misses
   * one while the publisher adds pages. A type with i18n on has a row per locale: only the
   * plugin's locale counts, so a document is listed once.
   */
  async function pageKeys(listed: ListedType[], offset: number, limit: number): Promise<PageKey[]> {
    const listing = listed.map(({ uid, locale }) => `${uid}:${locale ?? ''}`).join('|');
    const hint = (position: number) => `${listing} ${limit}@${position}`;
    const after = walkHints.get(hint(offset));
    const keys = await walk.pageKeys(listed, { after, offset, limit });
    // Set or dropped on every page, so a walk never continues from another, older walk's key.
    const last = keys[limit - 1];
    if (isWalkHint(last)) walkHints.set(hint(offset + limit), last);
    else walkHints.delete(hint(offset + limit));
    return keys;
  }

  /**
   * The index each listed type's part of the page walk reads in order: creation, then document,
   * with the columns the walk filters on, so the database reads no row to order and filter (on
   * PostgreSQL it then reads the row ids of the rows it keeps from the rows).
   */
  function orderIndexes(): WantedIndex[] {
    const indexes = new Map<string, WantedIndex>();
    for (const {
      resource: { uid },
    } of mapping().everyResource(LISTED)) {
      const { name, column } = tableOf(strapi, uid);
      const localized = contentTypeOf(strapi, uid)?.attributes.locale !== undefined;
      const columns = ['createdAt', 'documentId', 'publishedAt', ...(localized ? ['locale'] : [])].map(
        column
      );
      indexes.set(name, { uid, table: name, columns, purpose: 'the page list' });
    }
    return [...indexes.values()];
  }

  /** The columns an item of `resource` shows, by alias: its categories and tags where a column holds them. */
  function itemAttributes({ resource, taxonomies }: PagePart): Record<string, string> {
    const attributes: Record<string, string> = {
      id: 'id',
      documentId: 'documentId',
      title: resource.nameField,
      updatedAt: 'updatedAt',
      ...(resource.slugField ? { slug: resource.slugField } : {}),
    };
    for (const { field, target } of taxonomies)
      if (target.adapter !== 'relation') attributes[field] = target.attribute;
    return attributes;
  }

  /**
   * The items of each part of the page, in plain SQL: the columns an item shows, from the
   * published versions (in the plugin's locale) of the page's documents, every type's in one
   * statement, and beside it the names of their categories and tags through the join tables,
   * every relation's in one more, by the rows the keys read. The Document Service read the same
   * rows at several times the CPU, most of it spent building the query and mapping its rows,
   * not running it.
   */
  async function readItems(parts: PagePart[]): Promise<Array<Map<string, PageItem>>> {
    const [rows, related] = await Promise.all([
      walk.publishedRows<ItemRow>(
        parts.map((part) => ({
          uid: part.resource.uid,
          locale: part.locale,
          documentIds: part.documentIds,
          attributes: itemAttributes(part),
        }))
      ),
      relatedNames(parts, (part) => part.rowIds),
    ]);
    // A document republished since its key was read has a new row, whose names are read now.
    const keyed = parts.map(({ rowIds }) => new Set(rowIds));
    const moved = rows.filter((row) => !keyed[row.type_index].has(Number(row.id)));
    if (moved.length > 0) {
      const movedNames = await relatedNames(parts, (_part, partIndex) =>
        moved.filter((row) => row.type_index === partIndex).map((row) => row.id)
      );
      for (const [key, byRow] of movedNames)
        for (const [row, names] of byRow) related.get(key)!.set(row, names);
    }
    const urls = getService(strapi, 'urls');
    const items = parts.map(() => new Map<string, PageItem>());
    for (const row of rows) {
      const { resource, taxonomies } = parts[row.type_index];
      const slug = row.slug || '';
      const url = urls.urlFor(resource.pageType!, { documentId: row.documentId, slug });
      const item: PageItem = {
        id: row.documentId,
        type: resource.pageType!,
        title: row.title ?? '',
        slug,
        ...(url ? { url } : {}),
        updated_at: dateOf(row.updatedAt),
      };
      for (const { field, target } of taxonomies) {
        const names = related.get(`${row.type_index}:${field}`);
        item[field] = names ? (names.get(row.id) ?? []) : namesIn(row[field], target.attributeType);
      }
      items[row.type_index].set(row.documentId, item);
    }
    return items;
  }

  /**
   * The names of the entries each row of the page links through a relation, by part and field
   * (`partIndex:field`), then by row, in the order Strapi populates them: its connect order, where
   * the relation keeps one (the join row's id breaks ties, in the order the links were made).
   * Every relation of every part is read in one statement, for the rows `rowIdsOf` names.
   */
  async function relatedNames(parts: PagePart[], rowIdsOf: (part: PagePart, partIndex: number) => number[]) {
    const relations = parts.flatMap((part, partIndex) => {
      const rowIds = rowIdsOf(part, partIndex);
      return part.taxonomies.flatMap(({ field, target }) =>
        target.adapter === 'relation' && rowIds.length > 0
          ? [{ key: `${partIndex}:${field}`, part, target, rowIds }]
          : []
      );
    });
    const names = new Map<string, Map<number, string[]>>(
      relations.map(({ key }) => [key, new Map<number, string[]>()])
    );
    if (relations.length === 0) return names;
    const linked = await walk.linkedNames(
      relations.map(({ part, target, rowIds }) => ({
        uid: part.resource.uid,
        attribute: target.attribute,
        nameAttribute: (mapping().resource(target.targetKind!) as Resource).nameField,
        rowIds,
      }))
    );
    for (const { linkSet, owner, name } of linked) {
      const byRow = names.get(relations[linkSet].key)!;
      const list = byRow.get(owner);
      if (list) list.push(name);
      else byRow.set(owner, [name]);
    }
    return names;
  }

  /**
   * One page of every published entry: the keys in one query, then every listed type's fields
   * in one more and, beside it, the names of every categories and tags relation in one more:
   * three statements whatever the mix of types on the page, the last two side by side.
   * Incomplete when an entry was unpublished or deleted between the keys and the rows.
   */
  async function readPage({ offset, limit }: Paging): Promise<{ items: PageItem[]; complete: boolean }> {
    const resources: Resource[] = LISTED.map((kind) => mapping().resource(kind));
    const locales = getService(strapi, 'locales');
    const scopes: LocaleScope[] = await Promise.all(resources.map((resource) => locales.scopeOf(resource)));
    const listed = resources.map(({ uid }, kindIndex) => ({ uid, ...scopes[kindIndex] }));
    const keys = await pageKeys(listed, offset, limit);
    const parts = resources.flatMap((resource, kindIndex): PagePart[] => {
      const ofKind = keys.filter((key) => key.kindIndex === kindIndex);
      const taxonomies = TAXONOMIES.flatMap((field) =>
        resource.fields[field] ? [{ field, target: resource.fields[field] }] : []
      );
      return ofKind.length > 0
        ? [
            {
              kindIndex,
              resource,
              locale: scopes[kindIndex].locale,
              documentIds: ofKind.map((key) => key.documentId),
              rowIds: ofKind.map((key) => key.rowId),
              taxonomies,
            },
          ]
        : [];
    });
    if (parts.length === 0) return { items: [], complete: true };
    const items = await readItems(parts);
    const partOf = new Map(parts.map(({ kindIndex }, partIndex) => [kindIndex, partIndex]));
    const page = keys.flatMap((key) => items[partOf.get(key.kindIndex)!].get(key.documentId) ?? []);
    return { items: page, complete: page.length === keys.length };
  }

  return {
    orderIndexes,

    /** Adds the indexes of orderIndexes() that are missing, at startup; answers how many it added. */
    async ensureIndexes(): Promise<number> {
      let added = 0;
      for (const wanted of orderIndexes())
        added += +(await ensureIndex(strapi, wanted, indexName(wanted.table, 'pages')));
      return added;
    },

    /**
     * One page of every published entry. The publisher ends its walk at the first page shorter
     * than per_page, so a page that lost an entry unpublished between its reads is read again
     * (its keys then skip the entry), rather than end the walk and miss every later item.
     */
    async list(paging: Paging): Promise<PageItem[]> {
      for (let read = 1; ; read += 1) {
        const page = await readPage(paging);
        if (page.complete || read === PAGE_READS) return page.items;
      }
    },

    /** Opens the page reads' own database connection (SQLite), as Strapi starts. */
    start: () => walk.open(),
    /** Closes the page reads' own database connection (SQLite), as Strapi stops. */
    stop: () => walk.close(),
  };
};
