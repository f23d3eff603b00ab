import type { Core } from '@strapi/strapi';
import type { ProductUpdate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import type { Resource } from '../resources';
import type { Transaction } from './transactions';
import type { EntityResult, MediaMap } from './types';

/**
 * Product copy only (contract 2.7): the schema has no price, SKU or stock, so whatever the
 * site's product type keeps there is never written.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const resource = (): Resource => plugin().service('mapping').resource('product');
  const versions = () => plugin().service('versions');

  return {
    /**
     * Partial: only fields present change. A published product stays published with the new copy;
     * an editor's unpublished changes stay in the draft, unpublished.
     */
    async update(documentId: string, input: ProductUpdate): Promise<EntityResult> {
      const at = await plugin().service('locales').scopeOf(resource());
      return plugin()
        .service('fields')
        .withMedia(resource(), input, async (transaction: Transaction, media: MediaMap) => {
          await plugin().service('entities').lockOrNotFound(transaction, resource(), documentId, at);
          const toUpdateData = () =>
            plugin().service('fields').toUpdateData(transaction, resource(), documentId, at, input, media);
          const { data, notes } = await toUpdateData();
          if (Object.keys(data).length > 0) {
            const published = await versions().isPublished(resource(), documentId, at);
            // A published product stays published; an unpublished one stays a draft.
            const update = await versions().writeUpdate(
              resource(),
              documentId,
              at,
              { published, publish: published },
              { data, notes },
              toUpdateData
            );
            notes.push(...update.addedNotes);
          }
          return {
            ...(await plugin().service('entities').response(resource(), documentId, null, at)),
            notes,
          };
        });
    },
  };
};
