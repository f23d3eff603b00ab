import type { Core } from '@strapi/strapi';
import type { Paging } from '../contract/paging';
import { PLUGIN_ID } from '../constants';
import { RESOURCES, type Resource } from '../resources';
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

type PageSource = { resource: Resource & { pageType: PageType }; taxonomies: Array<'categories' | 'tags'> };

/** The listing order: by type, then creation, then id; stable while entries are edited. */
const PAGE_SOURCES: PageSource[] = [
  { resource: RESOURCES.post, taxonomies: ['categories', 'tags'] },
  { resource: RESOURCES.blogCategory, taxonomies: [] },
  { resource: RESOURCES.product, taxonomies: ['categories', 'tags'] },
  { resource: RESOURCES.productCategory, taxonomies: [] },
];

const ORDER = [{ createdAt: 'asc' }, { documentId: 'asc' }];

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const documents = (source: PageSource) => strapi.documents(source.resource.uid as never);

  function toItem(source: PageSource, entry: Record<string, any>): PageItem {
    const { resource } = source;
    const slug = (entry[resource.slugField!] as string | null) ?? '';
    const url = strapi.plugin(PLUGIN_ID).service('urls').urlFor(resource.pageType, { documentId: entry.documentId, slug });
    const item: PageItem = {
      id: entry.documentId,
      type: resource.pageType,
      title: entry[resource.nameField] ?? '',
      slug,
      ...(url ? { url } : {}),
      updated_at: new Date(entry.updatedAt).toISOString(),
    };
    for (const taxonomy of source.taxonomies) {
      item[taxonomy] = (entry[taxonomy] as Array<{ name: string }>).map((related) => related.name);
    }
    return item;
  }

  return {
    /**
     * One page of every published entry. Each type is counted, and only the types the page
     * overlaps are read, with the database doing the offset: page 200 costs what page 1 does.
     */
    async list({ offset, limit }: Paging): Promise<PageItem[]> {
      const items: PageItem[] = [];
      let skip = offset;
      for (const source of PAGE_SOURCES) {
        const wanted = limit - items.length;
        if (wanted === 0) break;
        const total = await documents(source).count({ status: 'published' } as never);
        if (skip >= total) {
          skip -= total;
          continue;
        }
        const entries = (await documents(source).findMany({
          status: 'published',
          fields: [source.resource.nameField, source.resource.slugField!, 'updatedAt'],
          populate: Object.fromEntries(source.taxonomies.map((taxonomy) => [taxonomy, { fields: ['name'] }])),
          sort: ORDER,
          start: skip,
          limit: wanted,
        } as never)) as Array<Record<string, any>>;
        items.push(...entries.map((entry) => toItem(source, entry)));
        skip = 0;
      }
      return items;
    },
  };
};
