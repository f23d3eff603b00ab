import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** Nothing from the request decides where the test goes: see the connection-test service. */
  async run(ctx: Context) {
    ctx.body = { data: await getService(strapi, 'connection-test').run() };
  },
});
