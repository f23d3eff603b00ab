import type { Core } from '@strapi/strapi';
import type { ProductUpdate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { RESOURCES } from '../resources';
import type { EntityResponse } from './entities';
import type { Transaction } from './transactions';

const PRODUCT = RESOURCES.product;

/** Product copy only (contract 2.7): price, SKU and stock belong to the shop and are never written. */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const products = () => strapi.documents(PRODUCT.uid as never);

  async function toData(transaction: Transaction, input: ProductUpdate) {
    const taxonomy = plugin().service('taxonomy');
    const data: Record<string, unknown> = {};
    if (input.name !== undefined) data.name = input.name;
    if (input.type !== undefined) data.type = input.type;
    if (input.description !== undefined) data.description = input.description;
    if (input.short_description !== undefined) data.shortDescription = input.short_description;
    if (input.images !== undefined) data.images = input.images;
    if (input.source_id !== undefined) data.sourceId = input.source_id;
    if (input.categories !== undefined) {
      data.categories = { set: await taxonomy.resolveNames(transaction, 'productCategory', input.categories) };
    }
    if (input.tags !== undefined) data.tags = { set: await taxonomy.resolveNames(transaction, 'tag', input.tags) };
    return data;
  }

  return {
    /** Partial: only fields present change. A published product stays published with the new copy. */
    async update(documentId: string, input: ProductUpdate): Promise<EntityResponse> {
      return plugin()
        .service('transactions')
        .run(async (transaction: Transaction) => {
          await plugin().service('entities').lockOrNotFound(transaction, PRODUCT, documentId);
          const data = await toData(transaction, input);
          if (Object.keys(data).length > 0) {
            const published = await products().findOne({
              documentId,
              status: 'published',
              fields: ['documentId'],
            } as never);
            await products().update({ documentId, data, ...(published ? { status: 'published' } : {}) } as never);
          }
          return plugin().service('entities').response(PRODUCT, documentId);
        });
    },
  };
};
