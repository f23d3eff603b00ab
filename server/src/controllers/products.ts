import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { PRODUCT_COMMERCE_FIELDS, productUpdateSchema } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { requireVerified } from '../utils/verified-requests';
import { contractBody, replyWithEntity } from './contract-body';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async update(ctx: Context) {
    const input = contractBody(ctx, productUpdateSchema);
    const { body, requestId } = requireVerified(ctx);
    // contractBody accepted it, so it is a JSON object, or empty.
    const ignored = PRODUCT_COMMERCE_FIELDS.filter((field) => Object.hasOwn((body ?? {}) as object, field));
    if (ignored.length > 0) {
      strapi.log.info(
        `[${PLUGIN_ID}] request ${requestId}: product ${ctx.params.id} update ignored ${ignored.join(', ')} (copy only; price, SKU and stock are managed by the shop)`
      );
    }
    replyWithEntity(ctx, await getService(strapi, 'products').update(ctx.params.id, input));
  },
});
