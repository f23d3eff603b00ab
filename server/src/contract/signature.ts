import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Request authentication as the publisher signs it (contract section 5):
 * HMAC-SHA256, keyed with the connection key, over `${timestamp}.${rawBody}`,
 * sent as lowercase hex, with the timestamp in milliseconds.
 */

export const HEADER_API_KEY = 'x-api-key';
export const HEADER_TIMESTAMP = 'x-publisher-timestamp';
export const HEADER_SIGNATURE = 'x-publisher-signature';

const SIGNATURE_PATTERN = /^[0-9a-f]{64}$/;
const DIGITS_PATTERN = /^\d{1,16}$/;
/** Any millisecond timestamp since 2001 has 13 digits; a 10-digit value is seconds. */
const SECONDS_TIMESTAMP_MAX = 99_999_999_999;

export type AuthHeaders = {
  apiKey?: string;
  timestamp?: string;
  signature?: string;
};

export type AuthFailureReason =
  | 'no_key_configured'
  | 'missing_header'
  | 'wrong_key'
  | 'malformed_timestamp'
  | 'timestamp_in_seconds'
  | 'stale_timestamp'
  | 'future_timestamp'
  | 'malformed_signature'
  | 'signature_mismatch';

export type AuthFailure = { ok: false; reason: AuthFailureReason; message: string; skewSeconds?: number };
export type AuthResult = { ok: true; keyIndex: number } | AuthFailure;

export type VerifyOptions = {
  headers: AuthHeaders;
  rawBody: Buffer;
  /** Accepted keys, current first (a previous key may be honoured during rotation). */
  keys: readonly string[];
  now: number;
  toleranceMs: number;
};

export function signMessage(key: string, timestamp: string, rawBody: Buffer | string): string {
  return createHmac('sha256', key)
    .update(`${timestamp}.`)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

/** Compares two strings without leaking where they differ; unequal lengths compare as unequal. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  // timingSafeEqual throws on unequal lengths; comparing against itself keeps the time constant.
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

function fail(reason: AuthFailureReason, message: string, skewSeconds?: number): AuthFailure {
  return skewSeconds === undefined
    ? { ok: false, reason, message }
    : { ok: false, reason, message, skewSeconds };
}

function missingHeader(name: string): AuthFailure {
  return fail(
    'missing_header',
    `Missing header ${name}. The publisher always sends it; a proxy or load balancer in front of this site may be stripping it.`
  );
}

export type HeaderCheckOptions = Omit<VerifyOptions, 'rawBody'>;

/**
 * Everything that can be decided before the body is read: the headers are present, the key is
 * one of ours, the timestamp is fresh and the signature is well formed. A request that fails
 * here is refused without buffering its body, so strangers cannot make the site hold megabytes.
 */
export function verifyHeaders({ headers, keys, now, toleranceMs }: HeaderCheckOptions): AuthResult {
  if (keys.length === 0) {
    return fail(
      'no_key_configured',
      'This site has no connection key yet. Paste the key from the publisher into Settings > Publish Bridge in the Strapi admin panel, or set PUBLISH_BRIDGE_API_KEY.'
    );
  }
  const { apiKey, timestamp, signature } = headers;
  if (!apiKey) return missingHeader('X-API-Key');
  if (!timestamp) return missingHeader('X-Publisher-Timestamp');
  if (!signature) return missingHeader('X-Publisher-Signature');

  const keyIndex = keys.findIndex((key) => constantTimeEqual(apiKey, key));
  if (keyIndex === -1) {
    return fail(
      'wrong_key',
      "The X-API-Key does not match this site's connection key. Copy the key from the publisher's integration settings into Settings > Publish Bridge again."
    );
  }
  const freshness = checkTimestamp(timestamp, now, toleranceMs);
  if (freshness) return freshness;
  if (!SIGNATURE_PATTERN.test(signature)) {
    return fail(
      'malformed_signature',
      'X-Publisher-Signature must be 64 lowercase hex characters (HMAC-SHA256).'
    );
  }
  return { ok: true, keyIndex };
}

function checkTimestamp(timestamp: string, now: number, toleranceMs: number): AuthFailure | undefined {
  if (!DIGITS_PATTERN.test(timestamp)) {
    return fail(
      'malformed_timestamp',
      'X-Publisher-Timestamp must be a Unix time in milliseconds (digits only).'
    );
  }
  const sentAt = Number(timestamp);
  if (sentAt <= SECONDS_TIMESTAMP_MAX) {
    return fail(
      'timestamp_in_seconds',
      'X-Publisher-Timestamp looks like seconds; the contract requires Unix time in milliseconds.'
    );
  }
  const skewMs = now - sentAt;
  if (Math.abs(skewMs) <= toleranceMs) return undefined;
  const skewSeconds = Math.round(skewMs / 1000);
  const windowSeconds = Math.round(toleranceMs / 1000);
  return skewMs > 0
    ? fail(
        'stale_timestamp',
        `The request is ${skewSeconds} s old, outside the accepted window of ${windowSeconds} s. If it was not delayed, the publisher's clock or this server's clock is wrong.`,
        skewSeconds
      )
    : fail(
        'future_timestamp',
        `The request is timestamped ${-skewSeconds} s in the future, outside the accepted window of ${windowSeconds} s. Check the clocks of the publisher and of this server.`,
        skewSeconds
      );
}

/** The HMAC over the exact body, once `verifyHeaders` accepted the headers with `key`; undefined when it matches. */
export function signatureMismatch(
  headers: AuthHeaders,
  rawBody: Buffer,
  key: string
): AuthFailure | undefined {
  const expected = signMessage(key, headers.timestamp ?? '', rawBody);
  if (constantTimeEqual(headers.signature ?? '', expected)) return undefined;
  return fail(
    'signature_mismatch',
    'The signature does not match the body. Check that the publisher and this site use the same connection key, and that no proxy rewrites request bodies.'
  );
}

/** Headers, then the signature over the body: the whole check of contract section 5. */
export function verifyRequest(options: VerifyOptions): AuthResult {
  const headerCheck = verifyHeaders(options);
  if (!headerCheck.ok) return headerCheck;
  return (
    signatureMismatch(options.headers, options.rawBody, options.keys[headerCheck.keyIndex]) ?? headerCheck
  );
}
