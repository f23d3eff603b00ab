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
import { probeAnswer, probeNonce } from '../utils/connection-probe';
import { sendHeldContinue } from '../utils/expect-continue';
import { parseJsonBody } from '../utils/json-body';
import type { Refusal } from '../services/delivery/activity-aggregation';
import type { SignedWrite, WriteClaim } from '../services/delivery/receipts';
import { pathBelowPrefix } from '../utils/prefix-path';
import { readRawBody } from '../utils/raw-body';
import { answerError } from '../utils/error-answer';
import { markVerified, verifiedRequestOf } from '../utils/verified-requests';
import { getService, pluginConfig } from '../plugin';
import { connectionInScope, inConnection } from '../utils/connection-scope';
import { DEFAULT_CONNECTION, type Connection } from '../config/connections';

/** Methods that change nothing: a replay of one is harmless, so reads are served without a receipt. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const unauthenticated = (failure: AuthFailure) => new Unauthenticated(failure.reason, failure.message);

/** One request under the prefix, as the gate follows it from arrival to the activity log. */
type Passage = {
  requestId: string;
  startedAt: number;
  pathBelow: string;
  /** The receipt this write claims: its answer is kept for replays. */
  claim?: WriteClaim;
  /** Why authentication failed, for a request anyone could have sent. */
  refusal?: string;
};

/**
 * Koa's body parser would consume the stream before any route runs and re-encode it, so the
 * gate, added ahead of every app middleware, owns the contract routes' body. In order: it
 * recognises its paths as broadly as Strapi's router matches them, checks the headers (key,
 * timestamp) before reading a byte of the body, reads the exact bytes under its own limit,
 * checks the signature over them, runs a write once (an exact replay gets the first answer),
 * and makes every answer under the prefix the contract's `{ "error": "..." }` shape.
 */
// Over 50 lines: the gate and its named steps below, each short, share strapi through this closure.
export function createContractGate(strapi: Core.Strapi) {
  const settings = () => getService(strapi, 'settings');

  return async function contractGate(ctx: Context, next: Next) {
    const path = readablePath(ctx);
    if (path === undefined) return refuseUnreadableTarget(ctx);
    const located = getService(strapi, 'connections').locate(path);
    if (located === undefined) {
      if (pathBelowPrefix(path, pluginConfig(strapi).prefix) !== undefined) return refuseNoConnection(ctx);
      sendHeldContinue(ctx.req, ctx.res);
      return next();
    }
    const { connection, pathBelow } = located;
    const nonce = ctx.method === 'GET' ? probeNonce(pathBelow) : undefined;
    if (nonce !== undefined) return answerProbe(ctx, nonce);
    return inConnection(connection, () => serve(ctx, next, pathBelow));
  };

  /** A request to one connection, from its headers to its record in the activity log. */
  async function serve(ctx: Context, next: Next, pathBelow: string) {
    const passage: Passage = { requestId: randomUUID(), startedAt: Date.now(), pathBelow };
    ctx.set('X-Request-Id', passage.requestId);
    try {
      const headers = await authenticate(ctx, passage);
      refuseWhileOutOfService();
      await runOnce(ctx, headers, passage, next);
    } catch (error) {
      if (error instanceof Unauthenticated) passage.refusal = error.reason;
      answerError(strapi, ctx, error, () => passage.requestId);
    }
    normaliseAnswer(ctx);
    if (passage.claim)
      await getService(strapi, 'receipts').settle(passage.claim, { status: ctx.status, body: ctx.body });
    if (passage.refusal) recordRefusal(ctx, passage, passage.refusal);
    else recordActivity(ctx, passage);
  }

  /**
   * Under the prefix, but at no connection's base URL (config lists connections, none at the
   * prefix itself): nothing can verify the request, so nothing of it is read.
   */
  function refuseNoConnection(ctx: Context) {
    ctx.set('Connection', 'close');
    ctx.status = 404;
    ctx.body = errorBody(
      `No connection of this site has its base URL at ${ctx.path}. Check the base URL registered with the publisher: the site's administrator finds each connection's under Settings > Publish Bridge.`
    );
  }

  /**
   * Node lets through request targets that no URL parser reads (`http://[/…`, `host:port`);
   * Koa's `ctx.path` throws on them or is null. Nobody can route such a request, to the plugin
   * or elsewhere, so it is refused here, before its body, instead of failing with a 500 later.
   */
  function refuseUnreadableTarget(ctx: Context) {
    ctx.set('Connection', 'close');
    ctx.status = 400;
    ctx.body = errorBody(
      `The request target is not a path this site can read. Send a path such as ${pluginConfig(strapi).prefix}/handshake in the request line, or a valid absolute URL.`
    );
  }

  /**
   * The connection probe (utils/connection-probe) is the one request under the prefix served
   * without authentication, and the gate answers it itself: nothing after the gate runs, so no
   * route is reachable unauthenticated and every route still refuses what the gate did not
   * verify. Its cost is one HMAC over a fixed-size nonce with a cached secret; it reads no body
   * (the connection is closed instead), writes nothing after the secret's first use, and its
   * answers owe nothing to the connection key.
   */
  async function answerProbe(ctx: Context, nonce: string) {
    ctx.set('Connection', 'close');
    ctx.set('Cache-Control', 'no-store');
    try {
      ctx.body = { probe: probeAnswer(await settings().probeSecret(), nonce) };
      ctx.status = 200;
    } catch (error) {
      answerError(strapi, ctx, error, randomUUID);
    }
  }

  /** Only the publisher, once verified, learns why: the reason names the site's configuration. */
  function refuseWhileOutOfService() {
    const problem = getService(strapi, 'availability').problem();
    if (problem !== undefined) throw new ContractError(503, problem);
  }

  /** Anyone can send these: they are counted per minute, reason and address, not logged one by one. */
  function recordRefusal(ctx: Context, { startedAt }: Passage, reason: string) {
    getService(strapi, 'activity-writer').recordRefusal(refusalOf(ctx, reason, new Date(startedAt)));
  }

  /** Headers first, so a stranger's body is never buffered; then the signature over the exact bytes. */
  async function authenticate(ctx: Context, { requestId }: Passage): Promise<AuthHeaders> {
    const { bodyLimit, bodyTimeoutMs, timestampToleranceMs } = pluginConfig(strapi);
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
    // The body may take up to bodyTimeoutMs: the timestamp must still be fresh when the write
    // claims its receipt, or a request whose receipt expired meanwhile could run twice.
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
   * A write runs once per signature, method and path: an exact replay gets the first answer.
   * The same signed body sent to other paths (a bulk action) is other requests, each served.
   */
  async function runOnce(ctx: Context, headers: AuthHeaders, passage: Passage, next: Next) {
    if (SAFE_METHODS.has(ctx.method)) return next();
    const request: SignedWrite = {
      signature: headers.signature!,
      method: ctx.method,
      path: receiptPath(getService(strapi, 'connections').current(), passage.pathBelow),
      expiresAt: new Date(Number(headers.timestamp) + pluginConfig(strapi).timestampToleranceMs),
    };
    const receipts = getService(strapi, 'receipts');
    passage.claim = receipts.claimFor(request);
    const firstAnswer = await receipts.runOnce(passage.claim, next);
    if (!firstAnswer) return;
    ctx.status = firstAnswer.status;
    ctx.body = firstAnswer.body;
    verifiedRequestOf(ctx)!.notes = [
      'An exact replay of an earlier request (same signature, method and path): its first answer was sent again and nothing ran.',
    ];
  }

  /** Queued, not awaited: the log must never slow down or fail the request it describes. */
  function recordActivity(ctx: Context, { requestId, startedAt, pathBelow }: Passage) {
    const notes = verifiedRequestOf(ctx)?.notes;
    if (notes) strapi.log.info(`[${PLUGIN_ID}] request ${requestId}: ${notes.join(' ')}`);
    try {
      getService(strapi, 'activity-writer').record({
        requestId,
        connection: getService(strapi, 'connections').current().name,
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

  /** Routes that matched answer for themselves; this covers unknown paths and Strapi's own envelopes. */
  function normaliseAnswer(ctx: Context) {
    const body = ctx.body as { error?: unknown } | null | undefined;
    if (ctx.status < 400 || typeof body?.error === 'string') return;
    if (ctx.status === 404 || ctx.status === 405) {
      // No route matched: the path is unknown, or known for other methods only.
      ctx.status = 404;
      ctx.body = errorBody(
        `No endpoint ${ctx.method} ${ctx.path} here. The contract routes are under ${getService(strapi, 'connections').current().path}; check the base URL registered with the publisher.`
      );
      return;
    }
    const message = (body?.error as { message?: unknown } | undefined)?.message;
    ctx.body = errorBody(
      typeof message === 'string' && ctx.status < 500 ? message : `Request failed with status ${ctx.status}.`
    );
  }
}

/**
 * The path a receipt is kept under: the same signed write sent to two connections (which only a
 * key shared by both could sign) is two requests. `default` keeps the path below its base URL,
 * as receipts were kept before connections.
 */
const receiptPath = ({ name }: Connection, pathBelow: string) =>
  name === DEFAULT_CONNECTION ? pathBelow : `/${name}:${pathBelow}`;

/** `ctx.path`, or undefined when the request target has no readable path. */
function readablePath(ctx: Context): string | undefined {
  try {
    return ctx.path ?? undefined;
  } catch {
    return undefined;
  }
}

/** A refused request as the activity log counts it, once its `{ error }` answer is set. */
export const refusalOf = (ctx: Context, reason: string, at = new Date()): Refusal => ({
  at,
  connection: connectionInScope()?.name,
  reason,
  sourceAddress: ctx.ip,
  method: ctx.method,
  path: ctx.path,
  status: ctx.status,
  message: (ctx.body as { error?: string } | undefined)?.error ?? '',
});
