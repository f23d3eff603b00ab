import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { PLUGIN_ID } from '../constants';
import { ContractError, errorBody, internalErrorMessage } from '../contract/errors';
import {
  isLockWaitExceeded,
  isLostConnection,
  missingTableOf,
  unstorableTextPlaceOf,
} from './database-errors';
import { NOTHING_SAVED } from '../services/delivery/transactions';

/**
 * Answers a failed contract request in the contract's `{ error }` shape. A ContractError carries
 * its own status and a message the sender can act on. The database's troubles are answered 503
 * with what to do: a missing table (named), a lost connection, a table another session kept
 * locked. Text the database cannot hold (a latin1 column, a name in another script) is answered
 * 400, naming where. Anything else is the site's fault: logged with its stack and answered 500
 * with the request id the log names it by (asked for only then).
 */
export function answerError(strapi: Core.Strapi, ctx: Context, error: unknown, requestId: () => string) {
  if (error instanceof ContractError) {
    ctx.status = error.status;
    ctx.body = errorBody(error.message);
    // A request whose body stopped arriving: the connection is not reused for the next one.
    if (error.status === 408) ctx.set('Connection', 'close');
    return;
  }
  const table = missingTableOf(error);
  if (table !== undefined) {
    strapi.log.error(`[${PLUGIN_ID}] the database has no table ${table}; restart Strapi to create it again`);
    ctx.status = 503;
    ctx.body = errorBody(
      `The site cannot serve this request: its database has no table "${table}", so nothing was changed. The site's administrator should restart Strapi, whose schema sync creates it again; then send the request again.`
    );
    return;
  }
  // A read outside the plugin's transactions (the settings, before the signature is checked) on a
  // connection the database dropped: nothing was written, and the request can be sent again.
  if (isLostConnection(error)) {
    strapi.log.warn(`[${PLUGIN_ID}] a request found the database unreachable: ${(error as Error)?.message}`);
    ctx.status = 503;
    ctx.body = errorBody(NOTHING_SAVED);
    return;
  }
  if (isLockWaitExceeded(error)) {
    strapi.log.warn(
      `[${PLUGIN_ID}] a request gave up waiting for a table another database session holds locked`
    );
    ctx.status = 503;
    ctx.body = errorBody(
      "The site cannot serve this request now: a table it writes stayed locked by another database session (a long job, a migration or a backup) for longer than the plugin waits (lockTimeoutMs), so nothing was changed. Send the request again later; if this goes on, the site's administrator should look for the session holding the lock."
    );
    return;
  }
  const place = unstorableTextPlaceOf(error);
  if (place !== undefined) {
    strapi.log.warn(`[${PLUGIN_ID}] a request's text holds characters that ${place} cannot store`);
    ctx.status = 400;
    ctx.body = errorBody(
      `The site's database cannot store some characters of this request's text: ${place} holds a character set without them (the site's tables are not in utf8mb4), so nothing was changed. Send the text without those characters, or the site's administrator can convert the site's tables to utf8mb4; then send the request again.`
    );
    return;
  }
  const id = requestId();
  strapi.log.error(`[${PLUGIN_ID}] request ${id} failed: ${(error as Error)?.stack ?? error}`);
  ctx.status = 500;
  ctx.body = errorBody(internalErrorMessage(id));
}
