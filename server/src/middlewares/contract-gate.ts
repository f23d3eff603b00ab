import { randomUUID } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { ContractError, errorBody } from '../contract/errors';
import {
  HEADER_API_KEY,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  verifyRequest,
  type AuthFailureReason,
} from '../contract/signature';
import { PLUGIN_ID } from '../constants';
import { parseJsonBody } from '../utils/json-body';
import { readRawBody } from '../utils/raw-body';

/** What the gate hands to the contract routes; `body` is parsed from the verified bytes. */
export type ContractState = {
  requestId: string;
  rawBody: Buffer;
  body: unknown;
  /** What the site adjusted while storing the request, for the activity log. */
  notes?: string[];
};

/**
 * Koa's body parser would consume the stream before any route runs and re-encode it, so the
 * gate, added ahead of every app middleware, owns the contract routes' body: it reads the
 * exact bytes under its own limit, authenticates them, parses them once, and then marks the
 * request so `strapi::body` leaves the consumed stream alone. It also makes every answer
 * under the prefix the contract's `{ "error": "..." }` shape, whatever produced it.
 */
export function createContractGate(strapi: Core.Strapi) {
  const settings = () => strapi.plugin(PLUGIN_ID).service('settings');

  return async function contractGate(ctx: Context, next: Next) {
    const { prefix, bodyLimit, bodyTimeoutMs, timestampToleranceMs } = settings().config();
    if (ctx.path !== prefix && !ctx.path.startsWith(`${prefix}/`)) return next();

    const requestId = randomUUID();
    const startedAt = Date.now();
    ctx.set('X-Request-Id', requestId);
    let refusal: AuthFailureReason | undefined;
    try {
      const rawBody = await readRawBody(ctx.req, { limit: bodyLimit, timeoutMs: bodyTimeoutMs });
      const verdict = verifyRequest({
        headers: {
          apiKey: ctx.get(HEADER_API_KEY) || undefined,
          timestamp: ctx.get(HEADER_TIMESTAMP) || undefined,
          signature: ctx.get(HEADER_SIGNATURE) || undefined,
        },
        rawBody,
        keys: await settings().acceptedKeys(),
        now: Date.now(),
        toleranceMs: timestampToleranceMs,
      });
      if (!verdict.ok) {
        refusal = verdict.reason;
        throw new ContractError(401, verdict.message);
      }

      const state: ContractState = { requestId, rawBody, body: parseJsonBody(rawBody) };
      ctx.state.publishBridge = state;
      ctx.req.headers['content-type'] = 'application/x-publish-bridge-consumed';
      await next();
    } catch (error) {
      answerError(ctx, error, requestId);
    }
    normaliseAnswer(ctx);
    if (ctx.status === 401) recordRefusal(ctx, startedAt, refusal ?? 'unauthenticated');
    else recordActivity(ctx, requestId, startedAt, prefix);
  };

  /** Anyone can send these: they are counted per minute, reason and address, not logged one by one. */
  function recordRefusal(ctx: Context, startedAt: number, reason: string) {
    strapi
      .plugin(PLUGIN_ID)
      .service('activity')
      .recordRefusal({
        at: new Date(startedAt),
        reason,
        sourceAddress: ctx.ip,
        method: ctx.method,
        path: ctx.path,
        status: ctx.status,
        message: (ctx.body as { error?: string } | undefined)?.error ?? '',
      });
  }

  /** Queued, not awaited: the log must never slow down or fail the request it describes. */
  function recordActivity(ctx: Context, requestId: string, startedAt: number, prefix: string) {
    const notes = (ctx.state.publishBridge as ContractState | undefined)?.notes;
    if (notes) strapi.log.info(`[${PLUGIN_ID}] request ${requestId}: ${notes.join(' ')}`);
    try {
      strapi
        .plugin(PLUGIN_ID)
        .service('activity')
        .record({
          requestId,
          receivedAt: new Date(startedAt),
          method: ctx.method,
          path: ctx.path,
          pathUnderPrefix: ctx.path.slice(prefix.length),
          status: ctx.status,
          body: ctx.body,
          routeId: typeof ctx.params?.id === 'string' ? ctx.params.id : undefined,
          durationMs: Date.now() - startedAt,
          notes,
        });
    } catch (error) {
      strapi.log.warn(`[${PLUGIN_ID}] request ${requestId} was not logged: ${(error as Error).message}`);
    }
  }

  function answerError(ctx: Context, error: unknown, requestId: string) {
    if (error instanceof ContractError) {
      ctx.status = error.status;
      ctx.body = errorBody(error.message);
      if (error.status === 408) ctx.set('Connection', 'close');
      return;
    }
    strapi.log.error(`[${PLUGIN_ID}] request ${requestId} failed: ${(error as Error)?.stack ?? error}`);
    ctx.status = 500;
    ctx.body = errorBody(internalErrorMessage(requestId));
  }

  /** Routes that matched answer for themselves; this covers unknown paths and Strapi's own envelopes. */
  function normaliseAnswer(ctx: Context) {
    const body = ctx.body as { error?: unknown } | null | undefined;
    if (ctx.status < 400 || typeof body?.error === 'string') return;
    if (ctx.status === 404 || ctx.status === 405) {
      // No route matched: the path is unknown, or known for other methods only.
      ctx.status = 404;
      ctx.body = errorBody(
        `No endpoint ${ctx.method} ${ctx.path} here. The contract routes are under ${settings().config().prefix}; check the base URL registered with the publisher.`
      );
      return;
    }
    const message = (body?.error as { message?: unknown } | undefined)?.message;
    ctx.body = errorBody(
      typeof message === 'string' && ctx.status < 500 ? message : `Request failed with status ${ctx.status}.`
    );
  }
}

export const internalErrorMessage = (requestId: string) =>
  `The site could not complete the request because of an internal error. Nothing was changed; try again, and if it persists give the site's administrator request id ${requestId}.`;
