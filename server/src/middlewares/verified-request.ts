import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { errorBody } from '../contract/errors';
import { PLUGIN_ID } from '../constants';
import { NOT_VERIFIED_MESSAGE, verifiedRequestOf } from '../utils/verified-requests';
import { refusalOf } from './contract-gate';
import { getService } from '../plugin';

/**
 * First middleware of every contract route. The routes skip Strapi's own auth (`auth: false`)
 * because the contract gate authenticates them; this refuses, on the route's own authority, any
 * request the gate did not verify: a path spelled so the gate missed it, a prefix changed at run
 * time, a route registered some other way. Fail closed, whatever went wrong upstream.
 */
export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) =>
  async function requireVerifiedRequest(ctx: Context, next: Next) {
    if (verifiedRequestOf(ctx)) return next();
    strapi.log.warn(
      `[${PLUGIN_ID}] refused ${ctx.method} ${ctx.path.slice(0, 200)}: it reached a contract route without passing the contract gate`
    );
    ctx.status = 401;
    ctx.body = errorBody(NOT_VERIFIED_MESSAGE);
    getService(strapi, 'activity-writer').recordRefusal(refusalOf(ctx, 'not_verified_by_gate'));
  };
