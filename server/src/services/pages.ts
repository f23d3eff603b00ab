import type { Core } from '@strapi/strapi';
import type { Paging } from '../contract/paging';
import { PLUGIN_ID } from '../constants';
import type { ResourceKind } from '../mapping/catalogue';
import type { Resource } from '../resources';
import type { PageType } from './urls';

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

/** The listing order: by type, then creation, then id. */
const LISTED: ResourceKind[] = ['post', 'blogCategory', 'product', 'productCategory'];
const TAXONOMIES = ['categories', 'tags'] as const;
const ORDER = [{ createdAt: 'asc' }, { documentId: 'asc' }];

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const mapping = () => strapi.plugin(PLUGIN_ID).service('mapping');

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
            read: (entry: Record<string, any>) =>
              (entry[target.attribute] ?? []).map((related: any) => related[nameField]),
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

  async function readPage(resource: Resource, start: number, limit: number): Promise<PageItem[]> {
    const readers = taxonomyReaders(resource);
    const directFields = readers
      .filter((reader) => Object.keys(reader.populate).length === 0)
      .map((reader) => resource.fields[reader.field].attribute);
    const entries = (await strapi.documents(resource.uid as never).findMany({
      ...(resource.draftAndPublish ? { status: 'published' } : {}),
      fields: [
        resource.nameField,
        ...(resource.slugField ? [resource.slugField] : []),
        'updatedAt',
        ...directFields,
      ],
      populate: Object.assign({}, ...readers.map((reader) => reader.populate)),
      sort: ORDER,
      start,
      limit,
    } as never)) as Array<Record<string, any>>;
    const urls = strapi.plugin(PLUGIN_ID).service('urls');
    return entries.map((entry) => {
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
      return item;
    });
  }

  return {
    /**
     * One page of every published entry. Each type is counted, and only the types the page
     * overlaps are read, with the database doing the offset: page 200 costs what page 1 does.
     */
    async list({ offset, limit }: Paging): Promise<PageItem[]> {
      const items: PageItem[] = [];
      let skip = offset;
      for (const kind of LISTED) {
        const resource: Resource = mapping().resource(kind);
        const wanted = limit - items.length;
        if (wanted === 0) break;
        const total = await strapi
          .documents(resource.uid as never)
          .count((resource.draftAndPublish ? { status: 'published' } : {}) as never);
        if (skip >= total) {
          skip -= total;
          continue;
        }
        items.push(...(await readPage(resource, skip, wanted)));
        skip = 0;
      }
      return items;
    },
  };
};
