import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import type { Resource } from '../resources';
import type { Transaction } from './transactions';
import type { ContractInput, EntityResult, MediaMap } from './types';

export type CategoryKind = 'blogCategory' | 'productCategory';

/** The contract's create of a blog or product category, which both kinds share. */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);

  return {
    /** The existing category when the name, slug or source_id is known, else a new one with `fields` stored. */
    async create(
      kind: CategoryKind,
      name: string,
      fields: ContractInput,
      identity: { slug?: string; sourceId?: string } = {}
    ): Promise<EntityResult> {
      const resource: Resource = plugin().service('mapping').resource(kind);
      return plugin()
        .service('fields')
        .withMedia(resource, fields, async (transaction: Transaction, media: MediaMap) => {
          const { data, notes } = await plugin().service('fields').toData(transaction, resource, fields, media);
          const { documentId } = await plugin()
            .service('taxonomy')
            .findOrCreate(transaction, kind, name, { ...identity, data, notes });
          return { ...(await plugin().service('entities').response(resource, documentId)), notes };
        });
    },
  };
};
