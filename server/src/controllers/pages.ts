import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { parsePaging } from '../contract/paging';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async list(ctx: Context) {
    ctx.body = await getService(strapi, 'pages').list(parsePaging(ctx.query));
  },
});
