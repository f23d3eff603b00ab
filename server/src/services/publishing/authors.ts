import type { Core } from '@strapi/strapi';
import type { AuthorCreate } from '../../contract/schemas';
import type { Resource } from '../../resources';
import type { Transaction } from '../delivery/transactions';
import type { EntityResult } from '../types';
import { getService } from '../../plugin';
import { documentsOf } from '../../database/documents';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const resource = (): Resource => getService(strapi, 'mapping').resource('author');

  return {
    /**
     * An author with the same username or email is returned as it is. `role` and `url` are
     * stored as text: they describe the writer and never touch Strapi's admin roles.
     */
    async create(input: AuthorCreate): Promise<EntityResult> {
      const identities = getService(strapi, 'identities');
      const { registry, uid } = resource();
      const keys = [
        ...(input.username ? [`username:${identities.normalise(input.username)}`] : []),
        ...(input.email ? [`email:${identities.normalise(input.email)}`] : []),
      ];
      const displayName =
        input.display_name || [input.first_name, input.last_name].filter(Boolean).join(' ') || input.username;

      return getService(strapi, 'transactions').run(async (transaction: Transaction) => {
        const known = await identities.findLive(transaction.trx, registry, uid, keys);
        if (known) return { id: known, notes: [] };
        const { data, notes } = await getService(strapi, 'fields').toData(
          transaction,
          resource(),
          { ...input, display_name: displayName },
          new Map()
        );
        const author = await documentsOf(strapi, uid).create({ data });
        await identities.claimDocument(transaction.trx, registry, keys, author.documentId);
        return { id: author.documentId, notes };
      });
    },
  };
};
