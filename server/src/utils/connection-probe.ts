import { createHmac, randomBytes } from 'node:crypto';
import { constantTimeEqual } from '../contract/signature';

/**
 * The connection probe: how "Test connection" finds out, before it sends the connection key,
 * that the configured public URL leads back to this site.
 *
 * The tester picks a random nonce and sends `GET {base_url}/connection-probe/{nonce}` with no
 * key and no signature. The site answers `{ probe: HMAC(probeSecret, nonce) }`, where
 * `probeSecret` is 32 random bytes this site keeps in its store: every instance sharing the
 * database answers the same, so a load balancer in between is fine. A server that does not lead
 * back to this site cannot compute the answer, so the key and a signature are only sent after it
 * matched. The secret is random and owes nothing to the connection key: anyone may ask the probe,
 * and its answers must give nothing to test guesses of a key against.
 */

export const PROBE_PATH = '/connection-probe';

/** 32 random bytes as lowercase hex: the only nonce form a site answers, so the work stays fixed. */
const NONCE_PATTERN = /^[0-9a-f]{64}$/;

export const newNonce = () => randomBytes(32).toString('hex');

/** The nonce in a path below the prefix (canonical, lower case), or undefined when it is not a probe. */
export function probeNonce(pathBelowPrefix: string): string | undefined {
  if (!pathBelowPrefix.startsWith(`${PROBE_PATH}/`)) return undefined;
  const nonce = pathBelowPrefix.slice(PROBE_PATH.length + 1);
  return NONCE_PATTERN.test(nonce) ? nonce : undefined;
}

export const newProbeSecret = () => randomBytes(32).toString('hex');

export const probeAnswer = (secret: string, nonce: string): string =>
  createHmac('sha256', secret).update(nonce).digest('hex');

/** Whether `answer` is this site's answer to `nonce`, compared in constant time. */
export function isProbeAnswer(secret: string, nonce: string, answer: unknown): boolean {
  return typeof answer === 'string' && constantTimeEqual(answer, probeAnswer(secret, nonce));
}
