import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { parsePaging } from '../contract/paging';
import { productCategoryCreateSchema } from '../contract/schemas';
import { contractBody, replyWithEntity } from './contract-body';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const productCategories = () => getService(strapi, 'product-categories');
  return {
    async create(ctx: Context) {
      replyWithEntity(ctx, await productCategories().create(contractBody(ctx, productCategoryCreateSchema)));
    },

    async list(ctx: Context) {
      ctx.body = await productCategories().list(parsePaging(ctx.query));
    },
  };
};
