import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { PLUGIN_ID } from '../constants';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async run(ctx: Context) {
    ctx.body = { data: await strapi.plugin(PLUGIN_ID).service('connection-test').run(ctx.request.origin) };
  },
});
