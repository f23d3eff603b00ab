import type { Core } from '@strapi/strapi';
import type { AuthorCreate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { RESOURCES } from '../resources';
import type { EntityResponse } from './entities';
import type { Transaction } from './transactions';

const AUTHOR = RESOURCES.author;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);

  return {
    /**
     * An author with the same username or email is returned as it is. `role` and `url` are
     * stored as text: they describe the writer and never touch Strapi's admin roles.
     */
    async create(input: AuthorCreate): Promise<EntityResponse> {
      const identities = plugin().service('identities');
      const keys = [
        ...(input.username ? [`username:${identities.normalise(input.username)}`] : []),
        ...(input.email ? [`email:${identities.normalise(input.email)}`] : []),
      ];
      const displayName =
        input.display_name ||
        [input.first_name, input.last_name].filter(Boolean).join(' ') ||
        (input.username as string);

      return plugin()
        .service('transactions')
        .run(async ({ trx }: Transaction) => {
          const known = await identities.findLive(trx, AUTHOR.registry, AUTHOR.uid, keys);
          if (known) return { id: known };
          const author = await strapi.documents(AUTHOR.uid as never).create({
            data: {
              displayName,
              username: input.username,
              email: input.email,
              firstName: input.first_name,
              lastName: input.last_name,
              description: input.description,
              role: input.role,
              url: input.url,
            },
          } as never);
          await identities.claimAll(trx, AUTHOR.registry, keys, author.documentId);
          return { id: author.documentId };
        });
    },
  };
};
