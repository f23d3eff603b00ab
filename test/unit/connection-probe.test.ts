import {
  isProbeAnswer,
  newNonce,
  newProbeSecret,
  probeAnswer,
  probeNonce,
} from '../../server/src/utils/connection-probe';

describe('connection probe', () => {
  test('only GET paths of the exact form /connection-probe/<64 lowercase hex> are probes', () => {
    const nonce = newNonce();
    expect(nonce).toMatch(/^[0-9a-f]{64}$/);
    expect(newNonce()).not.toBe(nonce);
    expect(probeNonce(`/connection-probe/${nonce}`)).toBe(nonce);
    for (const path of [
      '/connection-probe',
      '/connection-probe/',
      `/connection-probe/${nonce}/x`,
      `/connection-probe/${nonce}0`,
      `/connection-probe/${nonce.slice(1)}`,
      `/connection-probe/${'g'.repeat(64)}`,
      `/x/connection-probe/${nonce}`,
      '/handshake',
    ]) {
      expect({ path, nonce: probeNonce(path) }).toEqual({ path, nonce: undefined });
    }
  });

  test('the answer depends on the secret and the nonce; secrets are random', () => {
    const secret = newProbeSecret();
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(newProbeSecret()).not.toBe(secret);
    const nonce = newNonce();
    const answer = probeAnswer(secret, nonce);
    expect(answer).toMatch(/^[0-9a-f]{64}$/);
    expect(probeAnswer(secret, nonce)).toBe(answer);
    expect(probeAnswer(newProbeSecret(), nonce)).not.toBe(answer);
    expect(probeAnswer(secret, newNonce())).not.toBe(answer);
  });

  test('checks an answer: right one only, any other value refused', () => {
    const secret = newProbeSecret();
    const nonce = newNonce();
    expect(isProbeAnswer(secret, nonce, probeAnswer(secret, nonce))).toBe(true);
    for (const answer of [probeAnswer(newProbeSecret(), nonce), '', 'x', undefined, 42, null, {}]) {
      expect(isProbeAnswer(secret, nonce, answer)).toBe(false);
    }
    expect(isProbeAnswer(secret, nonce, probeAnswer(secret, nonce).toUpperCase())).toBe(false);
  });
});
