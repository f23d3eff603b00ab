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
 * A JSON column's value as Strapi's JSON field reads it: SQLite and MariaDB hand it back as text,
 * and Strapi 5 before 5.0.0-rc.7 stored some values stringified twice; text that is not JSON stays.
 */
function jsonOf(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    const parsed = JSON.parse(value);
    return typeof parsed === 'string' ? JSON.parse(parsed) : parsed;
  } catch {
    return value;
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
   * with the columns the walk filters on, so the database never reads the rows themselves.
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

  /** The published rows (in `locale`) of the page's documents of one type, with the columns an item shows. */
  async function readItemRows(
    resource: Resource,
    locale: string | undefined,
    documentIds: string[],
    taxonomies: Array<{ field: string; target: FieldTarget }>
  ): Promise<ItemRow[]> {
    const attributes: Record<string, string> = {
      id: 'id',
      documentId: 'documentId',
      title: resource.nameField,
      updatedAt: 'updatedAt',
      ...(resource.slugField ? { slug: resource.slugField } : {}),
    };
    for (const { field, target } of taxonomies)
      if (target.adapter !== 'relation') attributes[field] = target.attribute;
    return walk.publishedRows<ItemRow>({ uid: resource.uid, locale }, documentIds, attributes);
  }

  /**
   * The items of one type on the page, in plain SQL: the columns an item shows, from the published
   * versions (in the plugin's locale) of the page's documents, then the names of their categories
   * and tags through the join tables. The Document Service read the same rows at several times the
   * CPU, most of it spent building the query and mapping its rows, not running it.
   */
  async function readItems(
    resource: Resource,
    { locale }: LocaleScope,
    documentIds: string[]
  ): Promise<Map<string, PageItem>> {
    const taxonomies = TAXONOMIES.flatMap((field) =>
      resource.fields[field] ? [{ field, target: resource.fields[field] }] : []
    );
    const rows = await readItemRows(resource, locale, documentIds, taxonomies);
    const rowIds = rows.map((row) => row.id);
    const related = await Promise.all(
      taxonomies.map(({ target }) =>
        target.adapter === 'relation' && rowIds.length > 0
          ? relatedNames(resource.uid, target, rowIds)
          : undefined
      )
    );
    const urls = getService(strapi, 'urls');
    return new Map(
      rows.map((row) => {
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
        taxonomies.forEach(({ field, target }, i) => {
          item[field] = related[i]
            ? (related[i].get(row.id) ?? [])
            : namesIn(row[field], target.attributeType);
        });
        return [row.documentId, item];
      })
    );
  }

  /**
   * The names of the entries each row links through a relation, by row, in the order Strapi
   * populates them: its connect order, where the relation keeps one (the join row's id breaks
   * ties, in the order the links were made).
   */
  async function relatedNames(uid: string, target: FieldTarget, rowIds: number[]) {
    const nameField = (mapping().resource(target.targetKind!) as Resource).nameField;
    const rows = await walk.linkedNames(uid, target.attribute, nameField, rowIds);
    const names = new Map<number, string[]>();
    for (const { owner, name } of rows) {
      const list = names.get(owner);
      if (list) list.push(name);
      else names.set(owner, [name]);
    }
    return names;
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
     * One page of every published entry: the keys in one query, then each listed type's fields in
     * one more, and the names of each of its categories and tags relations in one each.
     */
    async list({ offset, limit }: Paging): Promise<PageItem[]> {
      const resources: Resource[] = LISTED.map((kind) => mapping().resource(kind));
      const locales = getService(strapi, 'locales');
      const scopes: LocaleScope[] = await Promise.all(resources.map((resource) => locales.scopeOf(resource)));
      const listed = resources.map(({ uid }, kindIndex) => ({ uid, ...scopes[kindIndex] }));
      const keys = await pageKeys(listed, offset, limit);
      const items = await Promise.all(
        resources.map((resource, kindIndex) => {
          const ids = keys.filter((key) => key.kindIndex === kindIndex).map((key) => key.documentId);
          return ids.length > 0 ? readItems(resource, scopes[kindIndex], ids) : new Map<string, PageItem>();
        })
      );
      return keys.flatMap((key) => items[key.kindIndex].get(key.documentId) ?? []);
    },
  };
};
