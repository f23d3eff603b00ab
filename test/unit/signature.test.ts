import { createHmac } from 'node:crypto';
import {
  constantTimeEqual,
  signMessage,
  verifyRequest,
  type AuthHeaders,
  type VerifyOptions,
} from '../../server/src/contract/signature';

/**
 * Vectors computed outside this code base, e.g.
 *   printf '%s' '1767225600000.{"title":"Hello","content":"<p>Hi</p>","status":"publish"}' \
 *     | openssl dgst -sha256 -hmac 'pb_vector_key_2026'
 * and, for the BOM + `\u` escape body, with python's hmac over the exact bytes.
 */
const VECTOR_KEY = 'pb_vector_key_2026';
const VECTORS = [
  {
    name: 'a plain JSON post',
    timestamp: '1767225600000',
    body: Buffer.from('{"title":"Hello","content":"<p>Hi</p>","status":"publish"}', 'utf8'),
    signature: '4f8bfbd7f6cc7c8a323877c720483b3fcc51cb56e043d4ed935e4d0559953208',
  },
  {
    name: 'an empty body (GET and DELETE)',
    timestamp: '1767225600000',
    body: Buffer.alloc(0),
    signature: '485b358172e465cdbe1f5c32c58056e97a50bdec70690e13a99ec3141ba87e4b',
  },
  {
    name: 'a body with a BOM and a \\u escape, signed byte for byte',
    timestamp: '1767225600123',
    body: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"\\u00e9"}', 'utf8')]),
    signature: '2568a43b03830f2819bdda8c0a66021e888b9e68b7c27ff86e06558a058c85d9',
  },
  {
    name: 'a body with raw UTF-8 (é as two bytes)',
    timestamp: '1767225600000',
    body: Buffer.from('{"title":"Café"}', 'utf8'),
    signature: 'd4724d9b965cf2d71d232000fedf42d676f9ca24e4216ca39d9ddf9bed4437d2',
  },
];

const KEY = 'current_key_0123456789';
const PREVIOUS_KEY = 'pb_previous_key';
const NOW = 1_767_225_600_000;
const TOLERANCE = 5 * 60_000;
const BODY = Buffer.from('{"title":"T","content":"C","status":"draft"}');

function signed(timestamp: number | string = NOW, key = KEY, body: Buffer = BODY): AuthHeaders {
  const ts = String(timestamp);
  return { apiKey: key, timestamp: ts, signature: signMessage(key, ts, body) };
}

function verify(headers: AuthHeaders, overrides: Partial<VerifyOptions> = {}) {
  return verifyRequest({
    headers,
    rawBody: BODY,
    keys: [KEY],
    now: NOW,
    toleranceMs: TOLERANCE,
    ...overrides,
  });
}

const reasonOf = (result: ReturnType<typeof verifyRequest>) => (result.ok ? 'ok' : result.reason);
const messageOf = (result: ReturnType<typeof verifyRequest>) => (result.ok ? '' : result.message);

describe('signMessage', () => {
  it.each(VECTORS)('matches the independently computed HMAC for $name', ({ timestamp, body, signature }) => {
    expect(signMessage(VECTOR_KEY, timestamp, body)).toBe(signature);
  });

  it('signs a string body as its UTF-8 bytes', () => {
    expect(signMessage(VECTOR_KEY, '1767225600000', '{"title":"Café"}')).toBe(VECTORS[3].signature);
  });

  it.each(VECTORS)('verifies the vector for $name', ({ timestamp, body, signature }) => {
    const result = verifyRequest({
      headers: { apiKey: VECTOR_KEY, timestamp, signature },
      rawBody: body,
      keys: [VECTOR_KEY],
      now: Number(timestamp),
      toleranceMs: TOLERANCE,
    });
    expect(result).toEqual({ ok: true, keyIndex: 0 });
  });

  it('refuses the BOM vector when the BOM is stripped before verification', () => {
    const { timestamp, body, signature } = VECTORS[2];
    const result = verifyRequest({
      headers: { apiKey: VECTOR_KEY, timestamp, signature },
      rawBody: body.subarray(3),
      keys: [VECTOR_KEY],
      now: Number(timestamp),
      toleranceMs: TOLERANCE,
    });
    expect(reasonOf(result)).toBe('signature_mismatch');
  });
});

describe('verifyRequest: timestamp window', () => {
  it('accepts a request signed now', () => {
    expect(verify(signed())).toEqual({ ok: true, keyIndex: 0 });
  });

  it('accepts exactly the tolerance in the past and in the future', () => {
    expect(verify(signed(NOW - TOLERANCE)).ok).toBe(true);
    expect(verify(signed(NOW + TOLERANCE)).ok).toBe(true);
  });

  it('refuses 1 ms beyond the tolerance in the past as stale, with the age in seconds', () => {
    const result = verify(signed(NOW - TOLERANCE - 1));
    expect(reasonOf(result)).toBe('stale_timestamp');
    expect(messageOf(result)).toContain('300 s old');
    expect(messageOf(result)).toContain('window of 300 s');
  });

  it('refuses 1 ms beyond the tolerance in the future as future, with the skew in seconds', () => {
    const result = verify(signed(NOW + TOLERANCE + 1));
    expect(reasonOf(result)).toBe('future_timestamp');
    expect(messageOf(result)).toContain('300 s in the future');
  });

  it('reports the skew of an hour-old request in seconds', () => {
    const result = verify(signed(NOW - 3_600_000));
    expect(result).toMatchObject({ ok: false, reason: 'stale_timestamp', skewSeconds: 3600 });
  });

  it('honours a configured tolerance', () => {
    expect(verify(signed(NOW - 60_000), { toleranceMs: 60_000 }).ok).toBe(true);
    expect(reasonOf(verify(signed(NOW - 60_001), { toleranceMs: 60_000 }))).toBe('stale_timestamp');
  });

  it('refuses a 10-digit timestamp as seconds, even when correctly signed for that value', () => {
    const seconds = Math.floor(NOW / 1000);
    const result = verify(signed(seconds));
    expect(reasonOf(result)).toBe('timestamp_in_seconds');
    expect(messageOf(result)).toMatch(/seconds/);
    expect(messageOf(result)).toMatch(/milliseconds/);
  });
});

describe('verifyRequest: malformed headers never throw and are refused', () => {
  const valid = signed();
  const uppercase = valid.signature!.toUpperCase();

  it.each([
    ['letters in the timestamp', { ...valid, timestamp: '17672256000x0' }, 'malformed_timestamp'],
    ['a negative timestamp', { ...valid, timestamp: '-1767225600000' }, 'malformed_timestamp'],
    ['a decimal timestamp', { ...valid, timestamp: '1767225600000.5' }, 'malformed_timestamp'],
    ['a timestamp with spaces', { ...valid, timestamp: ' 1767225600000' }, 'malformed_timestamp'],
    ['a timestamp in exponent form', { ...valid, timestamp: '1.7672256e12' }, 'malformed_timestamp'],
    ['a 40-digit timestamp', { ...valid, timestamp: '9'.repeat(40) }, 'malformed_timestamp'],
    ['an uppercase-hex signature', { ...valid, signature: uppercase }, 'malformed_signature'],
    [
      'a 63-character signature',
      { ...valid, signature: valid.signature!.slice(0, 63) },
      'malformed_signature',
    ],
    ['a 65-character signature', { ...valid, signature: `${valid.signature}0` }, 'malformed_signature'],
    ['a 128-character signature', { ...valid, signature: valid.signature!.repeat(2) }, 'malformed_signature'],
    ['a one-character signature', { ...valid, signature: 'a' }, 'malformed_signature'],
    ['a non-hex signature', { ...valid, signature: 'g'.repeat(64) }, 'malformed_signature'],
    [
      'a signature with whitespace',
      { ...valid, signature: ` ${valid.signature!.slice(1)}` },
      'malformed_signature',
    ],
    [
      'a "sha256=" prefixed signature',
      { ...valid, signature: `sha256=${valid.signature}` },
      'malformed_signature',
    ],
    ['a multi-byte signature', { ...valid, signature: 'é'.repeat(32) }, 'malformed_signature'],
    ['a key with whitespace around it', { ...valid, apiKey: ` ${KEY} ` }, 'wrong_key'],
    ['a key one character short', { ...valid, apiKey: KEY.slice(0, -1) }, 'wrong_key'],
    ['a multi-byte key', { ...valid, apiKey: 'ключ' }, 'wrong_key'],
  ] as const)('%s', (_name, headers, reason) => {
    let result: ReturnType<typeof verifyRequest> | undefined;
    expect(() => {
      result = verify(headers);
    }).not.toThrow();
    expect(reasonOf(result!)).toBe(reason);
  });

  it('tells the sender that the signature must be lowercase hex', () => {
    expect(messageOf(verify({ ...valid, signature: uppercase }))).toContain('lowercase hex');
  });

  it.each([
    ['X-API-Key', 'apiKey'],
    ['X-Publisher-Timestamp', 'timestamp'],
    ['X-Publisher-Signature', 'signature'],
  ] as const)('names a missing %s and suggests a proxy may strip it', (header, field) => {
    for (const absent of [undefined, '']) {
      const result = verify({ ...valid, [field]: absent });
      expect(reasonOf(result)).toBe('missing_header');
      expect(messageOf(result)).toContain(`Missing header ${header}`);
      expect(messageOf(result)).toContain('proxy');
    }
  });

  it('reports a missing header before anything else about the request', () => {
    expect(messageOf(verify({ timestamp: valid.timestamp, signature: valid.signature }))).toContain(
      'X-API-Key'
    );
  });
});

describe('verifyRequest: keys and signatures', () => {
  it('refuses a key that differs from the site key, without revealing it', () => {
    const result = verify(signed(NOW, 'someone_elses_key'));
    expect(reasonOf(result)).toBe('wrong_key');
    expect(messageOf(result)).toContain('X-API-Key');
    expect(messageOf(result)).not.toContain(KEY);
  });

  it('refuses a signature made over another body and mentions the key', () => {
    const headers = signed(NOW, KEY, Buffer.from('{"title":"other"}'));
    const result = verify(headers);
    expect(reasonOf(result)).toBe('signature_mismatch');
    expect(messageOf(result)).toMatch(/key/);
  });

  it('refuses a signature made with another key than the one sent in X-API-Key', () => {
    const result = verify({ ...signed(NOW, 'another_key'), apiKey: KEY });
    expect(reasonOf(result)).toBe('signature_mismatch');
  });

  it('refuses a signature made for another timestamp', () => {
    const result = verify({ ...signed(NOW), timestamp: String(NOW + 1) });
    expect(reasonOf(result)).toBe('signature_mismatch');
  });

  it('refuses a signature over the body without the "timestamp." prefix', () => {
    const bare = createHmac('sha256', KEY).update(BODY).digest('hex');
    expect(reasonOf(verify({ ...signed(), signature: bare }))).toBe('signature_mismatch');
  });

  it('refuses every request while no key is configured, and says how to configure one', () => {
    const result = verify(signed(), { keys: [] });
    expect(reasonOf(result)).toBe('no_key_configured');
    expect(messageOf(result)).toContain('no connection key');
    expect(messageOf(result)).toContain('PUBLISH_BRIDGE_API_KEY');
    expect(reasonOf(verify({}, { keys: [] }))).toBe('no_key_configured');
  });

  it('accepts the previous key during a rotation and says which key matched', () => {
    const keys = [KEY, PREVIOUS_KEY];
    expect(verify(signed(NOW, KEY), { keys })).toEqual({ ok: true, keyIndex: 0 });
    expect(verify(signed(NOW, PREVIOUS_KEY), { keys })).toEqual({ ok: true, keyIndex: 1 });
    expect(reasonOf(verify(signed(NOW, PREVIOUS_KEY)))).toBe('wrong_key');
  });

  it('never puts a key or the expected signature in a failure message', () => {
    const expected = signMessage(KEY, String(NOW), BODY);
    const failures = [
      verify(signed(NOW, 'wrong')),
      verify({ ...signed(), signature: 'f'.repeat(64) }),
      verify({ ...signed(), signature: expected.toUpperCase() }),
      verify(signed(NOW - TOLERANCE - 1)),
      verify(signed(NOW + TOLERANCE + 1)),
      verify(signed(1_767_225_600)),
      verify({ ...signed(), timestamp: 'abc' }),
      verify({ ...signed(), apiKey: undefined }),
    ];
    for (const failure of failures) {
      expect(failure.ok).toBe(false);
      expect(messageOf(failure)).not.toContain(KEY);
      expect(messageOf(failure)).not.toContain(expected);
    }
  });
});

describe('constantTimeEqual', () => {
  it('compares equal and unequal strings of every length without throwing', () => {
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
    expect(constantTimeEqual('', 'a')).toBe(false);
    expect(constantTimeEqual('', '')).toBe(true);
    expect(constantTimeEqual('é', 'e\u0301')).toBe(false);
  });
});
