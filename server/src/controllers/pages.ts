import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { parsePaging } from '../contract/paging';
import { PLUGIN_ID } from '../constants';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async list(ctx: Context) {
    ctx.body = await strapi.plugin(PLUGIN_ID).service('pages').list(parsePaging(ctx.query));
  },
});
