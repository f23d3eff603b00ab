import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { handshakeSchema } from '../contract/schemas';
import { contractBody } from './contract-body';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async handshake(ctx: Context) {
    contractBody(ctx, handshakeSchema);
    ctx.body = await getService(strapi, 'handshake').answer(ctx.request.origin);
  },
});
