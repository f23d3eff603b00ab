import type { Core } from '@strapi/strapi';
import type { BlogCategoryCreate } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);

  return {
    /** An existing category with the same name or slug is returned as it is. */
    create: ({ name, slug, ...fields }: BlogCategoryCreate) =>
      plugin().service('categories').create('blogCategory', name, fields, { slug: slug || undefined }),

    remove: (documentId: string) =>
      plugin().service('entities').remove(plugin().service('mapping').resource('blogCategory'), documentId),
  };
};
