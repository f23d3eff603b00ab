import type { Core } from '@strapi/strapi';
import type { BlogCategoryCreate } from '../../contract/schemas';
import { getService } from '../../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  return {
    /** An existing category with the same name or slug is returned as it is. */
    create: ({ name, slug, ...fields }: BlogCategoryCreate) =>
      getService(strapi, 'categories').create('blogCategory', name, fields, { slug: slug || undefined }),

    remove: (documentId: string) =>
      getService(strapi, 'entities').remove(
        getService(strapi, 'mapping').resource('blogCategory'),
        documentId
      ),
  };
};
