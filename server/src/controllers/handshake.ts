import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { handshakeSchema } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { contractBody } from './contract-body';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async handshake(ctx: Context) {
    contractBody(ctx, handshakeSchema);
    ctx.body = await strapi.plugin(PLUGIN_ID).service('handshake').answer(ctx.request.origin);
  },
});
