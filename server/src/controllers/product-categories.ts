import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { parsePaging } from '../contract/paging';
import { productCategoryCreateSchema } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { contractBody, replyWithEntity } from './contract-body';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const productCategories = () => strapi.plugin(PLUGIN_ID).service('product-categories');
  return {
    async create(ctx: Context) {
      replyWithEntity(ctx, await productCategories().create(contractBody(ctx, productCategoryCreateSchema)));
    },

    async list(ctx: Context) {
      ctx.body = await productCategories().list(parsePaging(ctx.query));
    },
  };
};
