import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { blogCategoryCreateSchema } from '../contract/schemas';
import { contractBody, replyWithEntity } from './contract-body';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const blogCategories = () => getService(strapi, 'blog-categories');
  return {
    async create(ctx: Context) {
      replyWithEntity(ctx, await blogCategories().create(contractBody(ctx, blogCategoryCreateSchema)));
    },

    async delete(ctx: Context) {
      ctx.body = await blogCategories().remove(ctx.params.id);
    },
  };
};
