import { loginAs } from '../helpers/admin-client';
import { TEST_KEY } from '../helpers/signing';
import { useSite } from '../helpers/site';
import { listenToLog } from '../helpers/inspect';

/**
 * A connection key in the environment shorter than the plugin accepts is a mistake in the site's
 * configuration: the site starts and serves, the weak key authenticates nothing, and the contract
 * routes answer 503 saying what to fix until the variable holds a whole key.
 */
const WEAK_KEY = 'pb_short_key';
/** What the plugin logged at warn level while the site started. */
const warnings: string[] = [];

const site = useSite(
  { PUBLISH_BRIDGE_API_KEY: WEAK_KEY },
  {
    beforeLoad(strapi) {
      listenToLog(strapi, 'warn', (message) => {
        if (message.includes('[publish-bridge]')) warnings.push(message);
      });
    },
  }
);

test('a weak key in the environment: the site serves, the contract routes answer 503, the admin sees why', async () => {
  expect(warnings).toEqual([expect.stringMatching(/PUBLISH_BRIDGE_API_KEY .*at least 16 characters/)]);
  expect((await fetch(`${site.baseUrl}/api/articles`)).status).toBe(200);
  const admin = await loginAs(site, 'strapi-super-admin');
  expect((await admin.request('GET', '/content-manager/content-types')).status).toBe(200);

  // Signed with the weak key itself, or not: the weak key authenticates nothing.
  for (const key of [WEAK_KEY, TEST_KEY]) {
    const reply = await site.send('POST', '/handshake', {}, { key });
    expect(reply.status).toBe(503);
    // Strangers learn where the cause is shown, not the variable or the weak key's length.
    expect(reply.body.error).toMatch(/connection key is not set up .*settings page/);
    expect(reply.body.error).not.toMatch(/PUBLISH_BRIDGE_API_KEY|12|16/);
  }
  const page = await admin.request('GET', '/publish-bridge/settings');
  expect(page.status).toBe(200);
  expect(page.body.data.status.outOfService).toMatch(/PUBLISH_BRIDGE_API_KEY .*at least 16 characters/);

  // The variable is read per request: a whole key puts the routes back in service.
  process.env.PUBLISH_BRIDGE_API_KEY = TEST_KEY;
  expect((await site.send('POST', '/handshake', {})).status).toBe(200);
  expect(
    (await admin.request('GET', '/publish-bridge/settings')).body.data.status.outOfService
  ).toBeUndefined();
  // Logged once: the requests above did not repeat it.
  expect(warnings).toHaveLength(1);
});
