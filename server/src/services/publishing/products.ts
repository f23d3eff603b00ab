import type { Core } from '@strapi/strapi';
import type { ProductUpdate } from '../../contract/schemas';
import type { Resource } from '../../resources';
import type { Transaction } from '../delivery/transactions';
import type { EntityResult, MediaMap } from '../types';
import { getService } from '../../plugin';

/**
 * Product copy only (contract 2.7): the schema has no price, SKU or stock, so whatever the
 * site's product type keeps there is never written.
 */
// Over 50 lines: a service factory; its one method, under 50 lines, shares strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const resource = (): Resource => getService(strapi, 'mapping').resource('product');
  const versions = () => getService(strapi, 'versions');

  return {
    /**
     * Partial: only fields present change. A published product stays published with the new copy;
     * an editor's unpublished changes stay in the draft, unpublished.
     */
    async update(documentId: string, input: ProductUpdate): Promise<EntityResult> {
      const at = await getService(strapi, 'locales').scopeOf(resource());
      const result = await getService(strapi, 'fields').withMedia(
        resource(),
        input,
        async (transaction: Transaction, media: MediaMap) => {
          // Any product of the site, not only the plugin's: the contract has no product create, so
          // the products the publisher updates are the site's own, found through GET /pages.
          await getService(strapi, 'entities').lockOrNotFound(transaction, resource(), documentId, at);
          const toUpdateData = (status?: 'draft' | 'published') =>
            getService(strapi, 'fields').toUpdateData(
              transaction,
              resource(),
              documentId,
              at,
              input,
              media,
              undefined,
              status
            );
          const written = await toUpdateData();
          const { notes } = written;
          if (Object.keys(written.data).length > 0) {
            const state = await versions().state(resource(), documentId, at);
            // A published product stays published; an unpublished one stays a draft.
            const update = await versions().writeUpdate(
              resource(),
              documentId,
              at,
              { state, publish: state.published },
              written,
              () => toUpdateData('published')
            );
            notes.push(...update.addedNotes);
          }
          return {
            ...(await getService(strapi, 'entities').response(resource(), documentId, null, at)),
            notes,
          };
        }
      );
      return getService(strapi, 'entities').withDraftPreview(resource(), result, at);
    },
  };
};
