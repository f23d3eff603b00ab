import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { authorCreateSchema } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { contractBody, replyWithEntity } from './contract-body';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async create(ctx: Context) {
    replyWithEntity(
      ctx,
      await strapi.plugin(PLUGIN_ID).service('authors').create(contractBody(ctx, authorCreateSchema))
    );
  },
});
