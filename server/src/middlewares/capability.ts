import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import type { Capability } from '../contract/capabilities';
import { ContractError } from '../contract/errors';
import { getService } from '../plugin';

/** Refuses an optional endpoint while its capability is switched off (the handshake omits it then). */
export default ({ capability }: { capability: Capability }, { strapi }: { strapi: Core.Strapi }) =>
  async function requireCapability(_ctx: Context, next: Next) {
    if (!(await getService(strapi, 'settings').isEnabled(capability))) {
      throw new ContractError(
        403,
        `This site has not enabled the "${capability}" capability. An administrator can enable it in Strapi under Settings > Publish Bridge, then reconnect from the publisher.`
      );
    }
    await next();
  };
