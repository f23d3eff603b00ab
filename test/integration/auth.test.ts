import { signMessage } from '../../server/src/contract/signature';
import { TEST_KEY } from '../helpers/signing';
import { type Reply, serviceOf, type Site, useSite } from '../helpers/site';
import { documentsOf, UIDS } from '../helpers/inspect';

const HANDSHAKE = '{}';
const MINUTE = 60_000;

/** Each 401 must be the contract's `{ error }` with a message that never reveals the key. */
function expectUnauthorized(reply: Reply, ...fragments: (string | RegExp)[]) {
  expect(reply.status).toBe(401);
  expect(Object.keys(reply.body)).toEqual(['error']);
  expect(typeof reply.body.error).toBe('string');
  for (const fragment of fragments) expect(reply.body.error).toMatch(fragment);
  expect(JSON.stringify(reply.body)).not.toContain(TEST_KEY);
}

/** Saves a connection key as the admin settings page does (its grace period in ms). */
const saveKey = (site: Site, value: string, graceMs = 0) =>
  serviceOf(site, 'settings').update({ connectionKey: { value, graceMs } });

/** Headers with one of the three removed, the other two as the publisher would send them. */
function headersWithout(name: string, body: string) {
  const timestamp = String(Date.now());
  const all: Record<string, string> = {
    'X-API-Key': TEST_KEY,
    'X-Publisher-Timestamp': timestamp,
    'X-Publisher-Signature': signMessage(TEST_KEY, timestamp, body),
  };
  delete all[name];
  return all;
}

describe('authentication with a key from PUBLISH_BRIDGE_API_KEY', () => {
  const site = useSite();

  it('accepts a request signed as the publisher signs it', async () => {
    const reply = await site.send('POST', '/handshake', HANDSHAKE);
    expect(reply.status).toBe(200);
    expect(reply.body.ok).toBe(true);
  });

  it.each(['X-API-Key', 'X-Publisher-Timestamp', 'X-Publisher-Signature'])(
    'refuses a request without %s, names it and suggests a proxy may strip it',
    async (header) => {
      const reply = await site.send('POST', '/handshake', HANDSHAKE, {
        unsigned: true,
        headers: headersWithout(header, HANDSHAKE),
      });
      expectUnauthorized(reply, `Missing header ${header}`, /proxy/);
    }
  );

  it('refuses a request with no authentication headers at all', async () => {
    expectUnauthorized(
      await site.send('POST', '/handshake', HANDSHAKE, { unsigned: true }),
      /Missing header/
    );
  });

  it('refuses a timestamp in seconds, saying it looks like seconds', async () => {
    const seconds = Math.floor(Date.now() / 1000);
    const reply = await site.send('POST', '/handshake', HANDSHAKE, { timestamp: seconds });
    expectUnauthorized(reply, /looks like seconds/, /milliseconds/);
  });

  it('refuses a stale timestamp and gives the age in seconds', async () => {
    const reply = await site.send('POST', '/handshake', HANDSHAKE, { timestamp: Date.now() - 10 * MINUTE });
    expectUnauthorized(reply, /is (599|600|601) s old/, /window of 300 s/);
  });

  it('refuses a future timestamp and gives the skew in seconds', async () => {
    const reply = await site.send('POST', '/handshake', HANDSHAKE, { timestamp: Date.now() + 10 * MINUTE });
    expectUnauthorized(reply, /(599|600|601) s in the future/);
  });

  it('accepts a timestamp a little inside the window on both sides', async () => {
    expect(
      (await site.send('POST', '/handshake', HANDSHAKE, { timestamp: Date.now() - 4 * MINUTE })).status
    ).toBe(200);
    expect(
      (await site.send('POST', '/handshake', HANDSHAKE, { timestamp: Date.now() + 4 * MINUTE })).status
    ).toBe(200);
  });

  it('refuses a signature that does not match and points at the key', async () => {
    const reply = await site.send('POST', '/handshake', HANDSHAKE, {
      headers: { 'X-Publisher-Signature': signMessage(TEST_KEY, String(Date.now()), '{"other":1}') },
    });
    expectUnauthorized(reply, /signature does not match/, /key/);
  });

  it('refuses a malformed signature without failing', async () => {
    for (const signature of ['abc', 'Z'.repeat(64), signMessage(TEST_KEY, '1', HANDSHAKE).toUpperCase()]) {
      const reply = await site.send('POST', '/handshake', HANDSHAKE, {
        headers: { 'X-Publisher-Signature': signature },
      });
      expectUnauthorized(reply, /X-Publisher-Signature/);
    }
  });

  it('refuses a malformed timestamp without failing', async () => {
    const reply = await site.send('POST', '/handshake', HANDSHAKE, {
      unsigned: true,
      headers: {
        'X-API-Key': TEST_KEY,
        'X-Publisher-Timestamp': 'yesterday',
        'X-Publisher-Signature': signMessage(TEST_KEY, 'yesterday', HANDSHAKE),
      },
    });
    expectUnauthorized(reply, /milliseconds/);
  });

  it('refuses a request signed with another key, naming X-API-Key', async () => {
    const reply = await site.send('POST', '/handshake', HANDSHAKE, { key: 'a-different-connection-key' });
    expectUnauthorized(reply, /X-API-Key does not match/);
  });

  it('refuses a request that sends the right key but signs with another', async () => {
    const timestamp = String(Date.now());
    const reply = await site.send('POST', '/handshake', HANDSHAKE, {
      unsigned: true,
      headers: {
        'X-API-Key': TEST_KEY,
        'X-Publisher-Timestamp': timestamp,
        'X-Publisher-Signature': signMessage('a-different-connection-key', timestamp, HANDSHAKE),
      },
    });
    expectUnauthorized(reply, /signature does not match/);
  });

  it('decides authentication before routing: an unknown path answers 401, not 404', async () => {
    expectUnauthorized(await site.send('GET', '/no-such-endpoint', undefined, { unsigned: true }));
    expectUnauthorized(await site.send('PUT', '/posts/unknown-id', '{"status":"draft"}', { key: 'wrong' }));
  });

  it('decides authentication before parsing: a malformed body answers 401, not 400', async () => {
    expectUnauthorized(await site.send('POST', '/posts', '{"title": ', { unsigned: true }));
    expectUnauthorized(await site.send('POST', '/posts', '[1,2', { key: 'wrong' }));
  });

  it('decides authentication before validation: an invalid post answers 401, not 400', async () => {
    expectUnauthorized(await site.send('POST', '/posts', { title: '' }, { key: 'wrong' }));
  });

  it('writes nothing for a refused request', async () => {
    const posts = () => documentsOf(site.strapi, UIDS.post).count({});
    const before = await posts();
    const reply = await site.send(
      'POST',
      '/posts',
      { title: 'T', content: 'C', status: 'publish' },
      { key: 'x' }
    );
    expect(reply.status).toBe(401);
    expect(await posts()).toBe(before);
  });

  it('leaves routes outside the prefix to Strapi', async () => {
    const response = await fetch(`${site.baseUrl}/_health`);
    expect(response.status).toBe(204);
  });

  it('prefers the environment key over a key stored in the settings', async () => {
    // A key saved in the admin before the operator set the variable: with the variable set, the
    // settings page refuses to change the key, so it is saved with the variable briefly unset.
    const environmentKey = process.env.PUBLISH_BRIDGE_API_KEY as string;
    delete process.env.PUBLISH_BRIDGE_API_KEY;
    try {
      await saveKey(site, 'stored-key-that-env-overrides');
    } finally {
      process.env.PUBLISH_BRIDGE_API_KEY = environmentKey;
    }
    expect((await site.send('POST', '/handshake', HANDSHAKE)).status).toBe(200);
    expectUnauthorized(
      await site.send('POST', '/handshake', HANDSHAKE, { key: 'stored-key-that-env-overrides' }),
      /X-API-Key does not match/
    );
  });
});

describe('authentication with no key in the environment', () => {
  const site = useSite({ PUBLISH_BRIDGE_API_KEY: undefined });

  it('refuses every request while no key is configured, saying so', async () => {
    const reply = await site.send('POST', '/handshake', HANDSHAKE);
    expectUnauthorized(reply, /no connection key yet/, /Settings > Publish Bridge/);
    expectUnauthorized(await site.send('POST', '/posts', { title: 'T', content: 'C', status: 'draft' }));
  });

  it('uses a key stored through the settings service once there is one', async () => {
    await saveKey(site, 'stored-connection-key');
    expect((await site.send('POST', '/handshake', HANDSHAKE, { key: 'stored-connection-key' })).status).toBe(
      200
    );
    expectUnauthorized(await site.send('POST', '/handshake', HANDSHAKE, { key: TEST_KEY }), /X-API-Key/);
  });

  it('reads a stored key from memory: twenty forged requests in a row read the stored settings at most twice, not once each', async () => {
    await saveKey(site, 'stored-connection-key');
    const settingsReads: string[] = [];
    const onQuery = ({ sql }: { sql: string }) => {
      if (sql.includes('strapi_core_store_settings')) settingsReads.push(sql);
    };
    site.strapi.db.connection.on('query', onQuery);
    try {
      for (let index = 0; index < 20; index += 1) {
        expectUnauthorized(
          await site.send('POST', '/handshake', HANDSHAKE, { key: 'stored-connection-key-forged' }),
          /X-API-Key does not match/
        );
      }
    } finally {
      site.strapi.db.connection.removeListener('query', onQuery);
    }
    // One read when the cache (settingsCacheMs) was empty or had expired, another if it expired during the run.
    expect(settingsReads.length).toBeLessThanOrEqual(2);
  });

  it('keeps the stored key encrypted, not in plain text', async () => {
    const stored = await site.strapi
      .store({ type: 'plugin', name: 'publish-bridge' })
      .get({ key: 'settings' });
    expect(JSON.stringify(stored)).not.toContain('stored-connection-key');
  });

  it('honours the previous key during a rotation grace period', async () => {
    await saveKey(site, 'rotated-connection-key', 60_000);
    expect((await site.send('POST', '/handshake', HANDSHAKE, { key: 'rotated-connection-key' })).status).toBe(
      200
    );
    expect((await site.send('POST', '/handshake', HANDSHAKE, { key: 'stored-connection-key' })).status).toBe(
      200
    );
    await saveKey(site, 'third-connection-key');
    expectUnauthorized(await site.send('POST', '/handshake', HANDSHAKE, { key: 'stored-connection-key' }));
    expectUnauthorized(await site.send('POST', '/handshake', HANDSHAKE, { key: 'rotated-connection-key' }));
  });
});
