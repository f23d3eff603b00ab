import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { PLUGIN_ID } from '../constants';
import { ContractError, errorBody, internalErrorMessage } from '../contract/errors';

/**
 * Answers a failed contract request in the contract's `{ error }` shape. A ContractError carries
 * its own status and a message the sender can act on; anything else is the site's fault: logged
 * with its stack and answered 500 with the request id the log names it by (asked for only then).
 */
export function answerError(strapi: Core.Strapi, ctx: Context, error: unknown, requestId: () => string) {
  if (error instanceof ContractError) {
    ctx.status = error.status;
    ctx.body = errorBody(error.message);
    // A request whose body stopped arriving: the connection is not reused for the next one.
    if (error.status === 408) ctx.set('Connection', 'close');
    return;
  }
  const id = requestId();
  strapi.log.error(`[${PLUGIN_ID}] request ${id} failed: ${(error as Error)?.stack ?? error}`);
  ctx.status = 500;
  ctx.body = errorBody(internalErrorMessage(id));
}
