import type { Core } from '@strapi/strapi';
import type { BlogCategoryCreate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import type { Resource } from '../resources';
import type { PostResult } from './posts';
import type { Transaction } from './transactions';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const resource = (): Resource => plugin().service('mapping').resource('blogCategory');

  return {
    /** An existing category with the same name or slug is returned as it is. */
    async create({ name, slug, ...rest }: BlogCategoryCreate): Promise<PostResult> {
      const media = await plugin().service('fields').importMedia(resource(), rest);
      return plugin()
        .service('transactions')
        .run(async (transaction: Transaction) => {
          const { data, notes } = await plugin()
            .service('fields')
            .toData(transaction, resource(), rest, media);
          const { documentId } = await plugin()
            .service('taxonomy')
            .findOrCreate(transaction, 'blogCategory', name, { slug: slug || undefined, data });
          return { ...(await plugin().service('entities').response(resource(), documentId)), notes };
        });
    },

    remove: (documentId: string) => plugin().service('entities').remove(resource(), documentId),
  };
};
