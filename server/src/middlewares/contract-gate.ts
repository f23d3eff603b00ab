import { randomUUID } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { ContractError, errorBody, Unauthenticated } from '../contract/errors';
import {
  HEADER_API_KEY,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  signatureMismatch,
  verifyHeaders,
  type AuthFailure,
  type AuthHeaders,
} from '../contract/signature';
import { PLUGIN_ID } from '../constants';
import { sendHeldContinue } from '../utils/expect-continue';
import { parseJsonBody } from '../utils/json-body';
import type { Refusal } from '../services/activity-aggregation';
import type { SignedRequest } from '../services/receipts';
import { pathBelowPrefix } from '../utils/prefix-path';
import { readRawBody } from '../utils/raw-body';
import { markVerified, verifiedRequestOf } from '../utils/verified-requests';

/** Methods that change nothing: an exact replay of one is harmless and is served again. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const unauthenticated = (failure: AuthFailure) => new Unauthenticated(failure.reason, failure.message);

/** One request under the prefix, as the gate follows it from arrival to the activity log. */
type Passage = {
  requestId: string;
  startedAt: number;
  pathBelow: string;
  /** Set once this write claimed its signature: its answer is kept for replays. */
  claimedSignature?: string;
  /** Why authentication failed, for a request anyone could have sent. */
  refusal?: string;
};

/**
 * Koa's body parser would consume the stream before any route runs and re-encode it, so the
 * gate, added ahead of every app middleware, owns the contract routes' body. In order: it
 * recognises its paths as broadly as Strapi's router matches them, checks the headers (key,
 * timestamp) before reading a byte of the body, reads the exact bytes under its own limit,
 * checks the signature over them, binds the signature to this one request (an exact replay gets
 * the first answer), and makes every answer under the prefix the contract's `{ "error": "..." }` shape.
 */
export function createContractGate(strapi: Core.Strapi) {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const settings = () => plugin().service('settings');

  return async function contractGate(ctx: Context, next: Next) {
    const pathBelow = pathBelowPrefix(ctx.path, settings().config().prefix);
    if (pathBelow === undefined) return next();

    const passage: Passage = { requestId: randomUUID(), startedAt: Date.now(), pathBelow };
    ctx.set('X-Request-Id', passage.requestId);
    try {
      const headers = await authenticate(ctx, passage);
      await runOnce(ctx, headers, passage, next);
    } catch (error) {
      if (error instanceof Unauthenticated) passage.refusal = error.reason;
      answerError(ctx, error, passage.requestId);
    }
    normaliseAnswer(ctx);
    if (passage.claimedSignature) await keepAnswer(ctx, passage.claimedSignature);
    if (passage.refusal) recordRefusal(ctx, passage, passage.refusal);
    else recordActivity(ctx, passage);
  };

  /** Anyone can send these: they are counted per minute, reason and address, not logged one by one. */
  function recordRefusal(ctx: Context, { startedAt }: Passage, reason: string) {
    plugin()
      .service('activity')
      .recordRefusal(refusalOf(ctx, reason, new Date(startedAt)));
  }

  /** Headers first, so a stranger's body is never buffered; then the signature over the exact bytes. */
  async function authenticate(ctx: Context, { requestId }: Passage): Promise<AuthHeaders> {
    const { bodyLimit, bodyTimeoutMs, timestampToleranceMs } = settings().config();
    const headers: AuthHeaders = {
      apiKey: ctx.get(HEADER_API_KEY) || undefined,
      timestamp: ctx.get(HEADER_TIMESTAMP) || undefined,
      signature: ctx.get(HEADER_SIGNATURE) || undefined,
    };
    const keys: string[] = await settings().acceptedKeys();
    const checkHeaders = () =>
      verifyHeaders({ headers, keys, now: Date.now(), toleranceMs: timestampToleranceMs });
    const headerCheck = checkHeaders();
    if (!headerCheck.ok) throw refusedBeforeBody(ctx, headerCheck);

    sendHeldContinue(ctx.req, ctx.res);
    const rawBody = await readRawBody(ctx.req, { limit: bodyLimit, timeoutMs: bodyTimeoutMs });
    // The body may take up to bodyTimeoutMs: the timestamp must still be fresh when the request is
    // bound to its signature, or a signature whose receipt expired meanwhile could be used twice.
    const stillFresh = checkHeaders();
    if (!stillFresh.ok) throw unauthenticated(stillFresh);
    const mismatch = signatureMismatch(headers, rawBody, keys[headerCheck.keyIndex]);
    if (mismatch) throw unauthenticated(mismatch);

    markVerified(ctx, { requestId, rawBody, body: parseJsonBody(rawBody) });
    // `strapi::body` leaves a body alone whose type it does not parse; the stream is consumed.
    ctx.req.headers['content-type'] = 'application/x-publish-bridge-consumed';
    return headers;
  }

  /**
   * The body of a stranger is not worth reading: the connection is closed after the answer, so
   * neither a large body nor a stream of small pipelined ones is drained.
   */
  function refusedBeforeBody(ctx: Context, failure: AuthFailure) {
    ctx.set('Connection', 'close');
    return unauthenticated(failure);
  }

  /**
   * A signature is bound to the first request that used it: a write runs once per signature, an
   * exact replay gets the first answer, and any other use of the signature is refused.
   */
  async function runOnce(ctx: Context, headers: AuthHeaders, passage: Passage, next: Next) {
    const request: SignedRequest = {
      signature: headers.signature!,
      method: ctx.method,
      path: passage.pathBelow,
      expiresAt: new Date(Number(headers.timestamp) + settings().config().timestampToleranceMs),
    };
    const receipts = plugin().service('receipts');
    if (SAFE_METHODS.has(ctx.method)) {
      await receipts.recordRead(request);
      return next();
    }
    const claim = await receipts.claimWrite(request);
    if (claim.first) {
      passage.claimedSignature = request.signature;
      return next();
    }
    ctx.status = claim.answer.status;
    ctx.body = claim.answer.body;
    verifiedRequestOf(ctx)!.notes = [
      'An exact replay of an earlier request (same signature, method and path): its first answer was sent again and nothing ran.',
    ];
  }

  /** Awaited, so a replay sent the moment this answer arrives finds it. */
  async function keepAnswer(ctx: Context, signature: string) {
    try {
      await plugin().service('receipts').settle(signature, { status: ctx.status, body: ctx.body });
    } catch (error) {
      strapi.log.warn(`[${PLUGIN_ID}] could not keep an answer for replays: ${(error as Error).message}`);
    }
  }

  /** Queued, not awaited: the log must never slow down or fail the request it describes. */
  function recordActivity(ctx: Context, { requestId, startedAt, pathBelow }: Passage) {
    const notes = verifiedRequestOf(ctx)?.notes;
    if (notes) strapi.log.info(`[${PLUGIN_ID}] request ${requestId}: ${notes.join(' ')}`);
    try {
      plugin()
        .service('activity')
        .record({
          requestId,
          receivedAt: new Date(startedAt),
          method: ctx.method,
          path: ctx.path,
          pathUnderPrefix: pathBelow,
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

/** A refused request as the activity log counts it, once its `{ error }` answer is set. */
export const refusalOf = (ctx: Context, reason: string, at = new Date()): Refusal => ({
  at,
  reason,
  sourceAddress: ctx.ip,
  method: ctx.method,
  path: ctx.path,
  status: ctx.status,
  message: (ctx.body as { error?: string } | undefined)?.error ?? '',
});

export const internalErrorMessage = (requestId: string) =>
  `The site could not complete the request because of an internal error. Nothing was changed; try again, and if it persists give the site's administrator request id ${requestId}.`;
