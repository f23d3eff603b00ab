import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';
import { ContractError } from '../contract/errors';

/** What the gate hands to the contract routes once a request's signature checked out. */
export type VerifiedRequest = {
  requestId: string;
  rawBody: Buffer;
  /** Parsed from the verified bytes; undefined for an empty body. */
  body: unknown;
  /** What the site adjusted while storing the request, for the activity log. */
  notes?: string[];
};

/**
 * Keyed by Node's request object, which only the gate's own code can register: `ctx.state` is
 * shared with every middleware, and a route must be able to tell that this very request, not
 * some earlier one or a look-alike, was authenticated.
 */
const verified = new WeakMap<IncomingMessage, VerifiedRequest>();

export const markVerified = (ctx: Context, request: VerifiedRequest) => verified.set(ctx.req, request);

export const verifiedRequestOf = (ctx: Context): VerifiedRequest | undefined => verified.get(ctx.req);

export const NOT_VERIFIED_MESSAGE =
  'This request was not authenticated: every request to the publishing endpoints must carry X-API-Key, X-Publisher-Timestamp and X-Publisher-Signature, and reach the site at the base URL registered with the publisher.';

/** The verified request, or a 401: a contract route never runs for a request the gate did not verify. */
export function requireVerified(ctx: Context): VerifiedRequest {
  const request = verifiedRequestOf(ctx);
  if (!request) throw new ContractError(401, NOT_VERIFIED_MESSAGE);
  return request;
}
