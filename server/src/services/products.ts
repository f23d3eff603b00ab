import type { Core } from '@strapi/strapi';
import type { ProductUpdate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import type { Resource } from '../resources';
import type { MediaMap } from './fields';
import type { PostResult } from './posts';
import type { Transaction } from './transactions';

/**
 * Product copy only (contract 2.7): the schema has no price, SKU or stock, so whatever the
 * site's product type keeps there is never written.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const resource = (): Resource => plugin().service('mapping').resource('product');

  return {
    /** Partial: only fields present change. A published product stays published with the new copy. */
    async update(documentId: string, input: ProductUpdate): Promise<PostResult> {
      const products = strapi.documents(resource().uid as never);
      return plugin()
        .service('fields')
        .withMedia(resource(), input, async (transaction: Transaction, media: MediaMap) => {
          await plugin().service('entities').lockOrNotFound(transaction, resource(), documentId);
          const { data, notes } = await plugin()
            .service('fields')
            .toData(transaction, resource(), input, media);
          if (Object.keys(data).length > 0) {
            const published =
              resource().draftAndPublish &&
              (await products.findOne({ documentId, status: 'published', fields: ['documentId'] } as never));
            await products.update({
              documentId,
              data,
              ...(published ? { status: 'published' } : {}),
            } as never);
          }
          return { ...(await plugin().service('entities').response(resource(), documentId)), notes };
        });
    },
  };
};
