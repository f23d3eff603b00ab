import type { Core } from '@strapi/strapi';
import type { Paging } from '../contract/paging';
import type { ResourceKind } from '../mapping/catalogue';
import type { Resource } from '../resources';
import type { LocaleScope } from './locales';
import type { PageType } from './urls';
import { getService } from '../plugin';
import { documentsOf } from '../database/documents';
import { tableOf } from '../database/tables';
import { contentTypeOf } from '../database/schemas';
import { ensureIndex, indexName, type WantedIndex } from '../database/indexes';

/** A page list item (contract 2.9, fields per contract-decisions.md). */
export type PageItem = {
  id: string;
  type: PageType;
  title: string;
  slug: string;
  url?: string;
  categories?: string[];
  tags?: string[];
  updated_at: string;
};

const LISTED: ResourceKind[] = ['post', 'blogCategory', 'product', 'productCategory'];
const TAXONOMIES = ['categories', 'tags'] as const;

type PageKey = { documentId: string; kindIndex: number };

// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const mapping = () => getService(strapi, 'mapping');

  /** How to read the category and tag names of an entry, wherever the mapping keeps them. */
  function taxonomyReaders(resource: Resource) {
    return TAXONOMIES.flatMap((field) => {
      const target = resource.fields[field];
      if (!target) return [];
      if (target.adapter === 'relation') {
        const nameField = (mapping().resource(target.targetKind!) as Resource).nameField;
        return [
          {
            field,
            populate: { [target.attribute]: { fields: [nameField] } },
            // A single relation holds one entry (or null), a list relation an array.
            read: (entry: Record<string, any>) =>
              [entry[target.attribute] ?? []].flat().map((related: any) => related[nameField]),
          },
        ];
      }
      return [
        {
          field,
          populate: {},
          read: (entry: Record<string, any>) => {
            const value = entry[target.attribute];
            return Array.isArray(value) ? value : typeof value === 'string' && value ? value.split(', ') : [];
          },
        },
      ];
    });
  }

  /**
   * One page of (document, type) keys over every listed type, in order of creation. A new entry
   * sorts after every existing one, so a walk in progress never sees an item twice or misses
   * one while the publisher adds pages; the database sorts and applies the offset. A type with
   * i18n on has a row per locale: only the plugin's locale counts, so a document is listed once.
   *
   * The ORDER BY is the union's own, not an outer query's over it: each member then reads its
   * rows in order from the index orderIndexes() adds, and SQLite and PostgreSQL merge the sorted
   * members and stop after the page, instead of reading every published row (5 KB bodies
   * included, on SQLite) and sorting them all on every request.
   */
  async function pageKeys(
    resources: Resource[],
    scopes: LocaleScope[],
    offset: number,
    limit: number
  ): Promise<PageKey[]> {
    const knex = strapi.db.connection;
    const selects = resources.map((resource, kindIndex) => {
      const { locale } = scopes[kindIndex];
      const { name, column } = tableOf(strapi, resource.uid);
      const select = knex(name)
        .select({ documentId: column('documentId'), createdAt: column('createdAt') })
        .select(knex.raw(`${Number(kindIndex)} as kind_index`))
        .whereNotNull(column('publishedAt'));
      return locale ? select.where(column('locale'), locale) : select;
    });
    // Unparenthesised members: SQLite refuses `(select …) union all (select …)`.
    const [first, ...others] = selects;
    const rows = await first
      .unionAll(others)
      .orderBy([{ column: 'createdAt' }, { column: 'kind_index' }, { column: 'documentId' }])
      .limit(limit)
      .offset(offset);
    return rows.map((row: { documentId: string; kind_index: number | string }) => ({
      documentId: row.documentId,
      kindIndex: Number(row.kind_index),
    }));
  }

  /**
   * The index each listed type's part of the page walk reads in order: creation, then document,
   * with the columns the walk filters on, so the database never reads the rows themselves.
   */
  function orderIndexes(): WantedIndex[] {
    const indexes = new Map<string, WantedIndex>();
    for (const kind of LISTED) {
      const { uid } = mapping().resource(kind);
      const { name, column } = tableOf(strapi, uid);
      const localized = contentTypeOf(strapi, uid)?.attributes.locale !== undefined;
      const columns = ['createdAt', 'documentId', 'publishedAt', ...(localized ? ['locale'] : [])].map(
        column
      );
      indexes.set(name, { uid, table: name, columns, purpose: 'the page list' });
    }
    return [...indexes.values()];
  }

  async function readItems(
    resource: Resource,
    at: LocaleScope,
    documentIds: string[]
  ): Promise<Map<string, PageItem>> {
    const readers = taxonomyReaders(resource);
    const directFields = readers
      .filter((reader) => Object.keys(reader.populate).length === 0)
      .map((reader) => resource.fields[reader.field].attribute);
    const entries = await documentsOf(strapi, resource.uid).findMany({
      ...at,
      ...(resource.draftAndPublish ? { status: 'published' } : {}),
      filters: { documentId: { $in: documentIds } },
      fields: [
        resource.nameField,
        ...(resource.slugField ? [resource.slugField] : []),
        'updatedAt',
        ...directFields,
      ],
      populate: Object.assign({}, ...readers.map((reader) => reader.populate)),
    });
    const urls = getService(strapi, 'urls');
    return new Map(
      entries.map((entry) => {
        const slug = (resource.slugField && entry[resource.slugField]) || '';
        const url = urls.urlFor(resource.pageType!, { documentId: entry.documentId, slug });
        const item: PageItem = {
          id: entry.documentId,
          type: resource.pageType!,
          title: entry[resource.nameField] ?? '',
          slug,
          ...(url ? { url } : {}),
          updated_at: new Date(entry.updatedAt).toISOString(),
        };
        for (const reader of readers) item[reader.field] = reader.read(entry);
        return [entry.documentId, item];
      })
    );
  }

  return {
    orderIndexes,

    /** Adds the indexes of orderIndexes() that are missing, at startup. */
    async ensureIndexes(): Promise<void> {
      for (const wanted of orderIndexes())
        await ensureIndex(strapi, wanted, indexName(wanted.table, 'pages'));
    },

    /** One page of every published entry: the keys in one query, then each type's fields in one more. */
    async list({ offset, limit }: Paging): Promise<PageItem[]> {
      const resources: Resource[] = LISTED.map((kind) => mapping().resource(kind));
      const locales = getService(strapi, 'locales');
      const scopes: LocaleScope[] = await Promise.all(resources.map((resource) => locales.scopeOf(resource)));
      const keys = await pageKeys(resources, scopes, offset, limit);
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
