import { loginAs } from '../helpers/admin-client';
import { TEST_KEY } from '../helpers/signing';
import { startSite, type Site } from '../helpers/site';

/**
 * Each case needs its own boot: the key's environment variable and Strapi's encryption key are
 * read at start. Empty values, not unset ones, so an example/.env written by the demo cannot fill them.
 */
let site: Site | undefined;
afterEach(async () => {
  await site?.stop();
  site = undefined;
});

test('a key set by PUBLISH_BRIDGE_API_KEY is shown as managed by the environment and cannot be changed', async () => {
  site = await startSite({ PUBLISH_BRIDGE_API_KEY: TEST_KEY });
  const admin = await loginAs(site, 'strapi-super-admin');

  const view = await admin.request('GET', '/publish-bridge/settings');
  expect(view.body.data.connectionKey).toEqual({
    configured: true,
    managedByEnvironment: true,
    last4: TEST_KEY.slice(-4),
  });
  expect(view.text).not.toContain(TEST_KEY);

  const change = await admin.request('PUT', '/publish-bridge/settings', {
    connectionKey: { value: 'pb_some_other_key_123456789' },
  });
  expect(change.status).toBe(400);
  expect(change.body.error.message).toContain('managed by the environment (PUBLISH_BRIDGE_API_KEY)');
  expect((await site.send('POST', '/handshake', {}, { key: 'pb_some_other_key_123456789' })).status).toBe(
    401
  );
  expect((await site.send('POST', '/handshake', {})).status).toBe(200);

  // Capabilities stay editable while the key comes from the environment.
  const toggle = await admin.request('PUT', '/publish-bridge/settings', { capabilities: { seo: false } });
  expect(toggle.status).toBe(200);
  expect((await site.send('POST', '/handshake', {})).body.capabilities).not.toContain('seo');
});

test('without an encryption key the plugin refuses to store keys rather than keep them in plain text', async () => {
  site = await startSite({ PUBLISH_BRIDGE_API_KEY: '', ENCRYPTION_KEY: '' });
  const admin = await loginAs(site, 'strapi-super-admin');

  expect((await admin.request('GET', '/publish-bridge/settings')).body.data.encryptionAvailable).toBe(false);
  for (const body of [
    { connectionKey: { value: TEST_KEY } },
    { platform: { key: 'platform_key_0123456789' } },
  ]) {
    const reply = await admin.request('PUT', '/publish-bridge/settings', body);
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toContain('Strapi has no encryption key');
    expect(reply.body.error.message).toContain('ENCRYPTION_KEY');
  }
  const stored = JSON.stringify(await site.strapi.db.connection('strapi_core_store_settings').select('*'));
  expect(stored).not.toContain(TEST_KEY);
  expect(stored).not.toContain('platform_key_0123456789');
  expect((await site.send('POST', '/handshake', {})).status).toBe(401);
});
