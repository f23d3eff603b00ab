import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { authorCreateSchema } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { contractBody } from './contract-body';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async create(ctx: Context) {
    ctx.body = await strapi.plugin(PLUGIN_ID).service('authors').create(contractBody(ctx, authorCreateSchema));
  },
});
