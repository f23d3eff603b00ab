import type { Core } from '@strapi/strapi';
import type { BlogCategoryCreate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { RESOURCES } from '../resources';
import type { EntityResponse } from './entities';
import type { Transaction } from './transactions';

const CATEGORY = RESOURCES.blogCategory;

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);

  /** `parent` is a category's id when one has it, else a name (created when missing). */
  async function resolveParent(transaction: Transaction, parent: string): Promise<string> {
    if (await plugin().service('identities').lockDocument(transaction.trx, CATEGORY.uid, parent)) return parent;
    return (await plugin().service('taxonomy').findOrCreate(transaction, 'blogCategory', parent)).documentId;
  }

  return {
    /** An existing category with the same name or slug is returned as it is. */
    async create(input: BlogCategoryCreate): Promise<EntityResponse> {
      return plugin()
        .service('transactions')
        .run(async (transaction: Transaction) => {
          const parent = input.parent ? await resolveParent(transaction, input.parent) : undefined;
          const { documentId } = await plugin()
            .service('taxonomy')
            .findOrCreate(transaction, 'blogCategory', input.name, {
              slug: input.slug || undefined,
              data: { description: input.description, parent },
            });
          return plugin().service('entities').response(CATEGORY, documentId);
        });
    },

    remove: (documentId: string) => plugin().service('entities').remove(CATEGORY, documentId),
  };
};
