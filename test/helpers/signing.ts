import { signMessage } from '../../server/src/contract/signature';

export const TEST_KEY = 'pb_test_key_0123456789abcdef0123456789abcdef';

export type SignedHeaders = Record<string, string>;

/** Headers exactly as the publisher sends them: ms timestamp, HMAC-SHA256 hex over `${ts}.${body}`. */
export function signedHeaders(
  body: string | Buffer,
  { key = TEST_KEY, timestamp = Date.now() } = {}
): SignedHeaders {
  const ts = String(timestamp);
  return {
    'X-API-Key': key,
    'X-Publisher-Timestamp': ts,
    'X-Publisher-Signature': signMessage(key, ts, body),
  };
}
