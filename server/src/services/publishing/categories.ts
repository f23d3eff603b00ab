import type { Core } from '@strapi/strapi';
import type { Resource } from '../../resources';
import type { Transaction } from '../delivery/transactions';
import type { ContractInput, EntityResult, MediaMap } from '../types';
import { getService } from '../../plugin';

export type CategoryKind = 'blogCategory' | 'productCategory';

/** The contract's create of a blog or product category, which both kinds share. */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  return {
    /** The existing category when the name, slug or source_id is known, else a new one with `fields` stored. */
    async create(
      kind: CategoryKind,
      name: string,
      fields: ContractInput,
      identity: { slug?: string; sourceId?: string } = {}
    ): Promise<EntityResult> {
      const resource: Resource = getService(strapi, 'mapping').resource(kind);
      return getService(strapi, 'fields').withMedia(
        resource,
        fields,
        async (transaction: Transaction, media: MediaMap) => {
          const { data, notes } = await getService(strapi, 'fields').toData(
            transaction,
            resource,
            fields,
            media
          );
          const documentId = await getService(strapi, 'taxonomy').findOrCreate(transaction, kind, name, {
            ...identity,
            data,
            notes,
          });
          return { ...(await getService(strapi, 'entities').response(resource, documentId)), notes };
        }
      );
    },
  };
};
