import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { blogCategoryCreateSchema } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { contractBody, replyWithEntity } from './contract-body';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const blogCategories = () => strapi.plugin(PLUGIN_ID).service('blog-categories');
  return {
    async create(ctx: Context) {
      replyWithEntity(ctx, await blogCategories().create(contractBody(ctx, blogCategoryCreateSchema)));
    },

    async delete(ctx: Context) {
      ctx.body = await blogCategories().remove(ctx.params.id);
    },
  };
};
