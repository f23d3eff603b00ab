import type { Core } from '@strapi/strapi';
import type { Paging } from '../contract/paging';
import type { ProductCategoryCreate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { RESOURCES } from '../resources';
import type { EntityResponse } from './entities';
import type { Transaction } from './transactions';

const PRODUCT_CATEGORY = RESOURCES.productCategory;

/** A product category list item (contract 2.8): all strings. */
export type ProductCategoryItem = { id: string; name: string; slug: string; description: string; parent: string };

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);

  return {
    /** Idempotent by `source_id` or name (case-insensitive): an existing category is returned as it is. */
    async create(input: ProductCategoryCreate): Promise<EntityResponse> {
      return plugin()
        .service('transactions')
        .run(async (transaction: Transaction) => {
          const { documentId } = await plugin()
            .service('taxonomy')
            .findOrCreate(transaction, 'productCategory', input.name, {
              sourceId: input.source_id,
              data: { description: input.description, image: input.image || undefined, sourceId: input.source_id },
            });
          return plugin().service('entities').response(PRODUCT_CATEGORY, documentId);
        });
    },

    /** Published categories in creation order; `parent` is the parent's id, or "" for a top-level one. */
    async list({ offset, limit }: Paging): Promise<ProductCategoryItem[]> {
      const categories = (await strapi.documents(PRODUCT_CATEGORY.uid as never).findMany({
        status: 'published',
        fields: ['name', 'slug', 'description'],
        populate: { parent: { fields: ['documentId'] } },
        sort: [{ createdAt: 'asc' }, { documentId: 'asc' }],
        start: offset,
        limit,
      } as never)) as Array<Record<string, any>>;
      return categories.map((category) => ({
        id: category.documentId,
        name: category.name ?? '',
        slug: category.slug ?? '',
        description: category.description ?? '',
        parent: category.parent?.documentId ?? '',
      }));
    },
  };
};
