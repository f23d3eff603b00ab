import { loginAs, type AdminClient } from '../helpers/admin-client';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDatabaseClient } from '../helpers/databases';
import { documentsOf, UIDS } from '../helpers/inspect';
import { startInstance } from '../helpers/instances';
import { contractDate } from '../helpers/scheduling';
import { TEST_KEY } from '../helpers/signing';
import { useSite } from '../helpers/site';

/**
 * The plugin's own failures stay its own: the site and Strapi's API go on serving, and the
 * contract routes answer 503 naming what the site's administrator must mend.
 */
let superAdmin: AdminClient;

/** The connection key saved on the settings page, as most sites keep it; the variable is read per request. */
const site = useSite({ PUBLISH_BRIDGE_API_KEY: '' });
beforeAll(async () => {
  superAdmin = await loginAs(site, 'strapi-super-admin');
  // Each request reads the row, as every instance does once its cached copy (2 s) expires.
  site.strapi.config.set('plugin::publish-bridge.settingsCacheMs', 0);
});

const saveSettings = (changes: object) => superAdmin.request('PUT', '/publish-bridge/settings', changes);

/** Strapi's store answers a row whose JSON no longer parses with an Invalid Date, not an error. */
const corruptSettingsRow = () =>
  site.strapi.db
    .connection('strapi_core_store_settings')
    .where({ key: 'plugin_publish-bridge_settings' })
    .update({ value: '{"apiKey": {"ciphertext": "cut off' });

const fixSettingsMessage = "save the plugin's settings page";

test('an unreadable settings row with the key in the environment: 503 naming it, never the defaults', async () => {
  process.env.PUBLISH_BRIDGE_API_KEY = TEST_KEY;
  try {
    expect((await saveSettings({ capabilities: { seo: false } })).status).toBe(200);
    await corruptSettingsRow();

    const reply = await site.send('POST', '/handshake', {});
    expect(reply.status).toBe(503);
    expect(reply.body.error).toContain('strapi_core_store_settings');
    expect(reply.body.error).toContain(fixSettingsMessage);
    expect((await fetch(`${site.baseUrl}/api/articles`)).status).toBe(200);

    expect((await saveSettings({ capabilities: { seo: false } })).status).toBe(200);
    const after = await site.send('POST', '/handshake', {});
    expect(after.status).toBe(200);
    expect(after.body.capabilities).not.toContain('seo');
  } finally {
    process.env.PUBLISH_BRIDGE_API_KEY = '';
  }
});

test('an unreadable settings row: 503, not "wrong key"; the page tells the admin, and a new key mends it', async () => {
  expect((await saveSettings({ connectionKey: { value: TEST_KEY } })).status).toBe(200);
  await corruptSettingsRow();

  const signed = await site.send('POST', '/handshake', {});
  expect(signed.status).toBe(503);
  expect(signed.body.error).toContain('cannot be read');
  const stranger = await site.send('POST', '/handshake', {}, { key: 'pb_not_the_key_0123456789' });
  expect(stranger.status).toBe(503);
  expect(stranger.body.error).not.toContain('strapi_core_store_settings');

  const page = await superAdmin.request('GET', '/publish-bridge/settings');
  expect(page.status).toBe(200);
  expect(page.body.data.status.outOfService).toContain('strapi_core_store_settings');
  expect(page.body.data.status.outOfService).toContain(fixSettingsMessage);
  expect((await fetch(`${site.baseUrl}/api/articles`)).status).toBe(200);

  expect((await saveSettings({ connectionKey: { value: TEST_KEY } })).status).toBe(200);
  expect((await site.send('POST', '/handshake', {})).status).toBe(200);
  expect(
    (await superAdmin.request('GET', '/publish-bridge/settings')).body.data.status.outOfService
  ).toBeUndefined();
});

/**
 * Another session (a long job, a migration, a backup) holding a table the plugin writes: the
 * publish answers 503 within the plugin's lock wait, never hangs, and writes nothing. SQLite
 * locks the whole database file, the site's own tables with it: no guest's failure to keep apart.
 */
const LOCK_STATEMENTS: Record<string, { lock: (table: string) => string; unlock?: string }> = {
  postgres: { lock: (table) => `LOCK TABLE "${table}" IN ACCESS EXCLUSIVE MODE` },
  mariadb: { lock: (table) => `LOCK TABLES \`${table}\` WRITE`, unlock: 'UNLOCK TABLES' },
};
const locking = LOCK_STATEMENTS[testDatabaseClient()];

/** Holds `table` locked from another session of the site's database while `during` runs. */
async function whileLocked(table: string, during: () => Promise<void>) {
  await site.strapi.db.connection.transaction(async (holder) => {
    await holder.raw(locking!.lock(table));
    try {
      await during();
    } finally {
      if (locking!.unlock) await holder.raw(locking!.unlock);
    }
  });
}

(locking ? test : test.skip)(
  'a table of the plugin locked by another session: 503 after the lock wait, nothing written',
  async () => {
    site.strapi.config.set('plugin::publish-bridge.lockTimeoutMs', 1_000);
    const table = site.strapi.db.metadata.get(UIDS.post).tableName;
    await whileLocked(table, async () => {
      const startedAt = Date.now();
      const reply = await site.send('POST', '/posts', {
        title: 'Behind a lock',
        content: '<p>Body.</p>',
        status: 'publish',
        source_id: 'src-behind-lock',
      });
      expect(reply.status).toBe(503);
      expect(reply.body.error).toContain('locked');
      expect(Date.now() - startedAt).toBeLessThan(20_000);
      expect((await fetch(`${site.baseUrl}/api/articles`)).status).toBe(200);
    });
    const written = await documentsOf(site.strapi, UIDS.post).count({
      filters: { sourceId: 'src-behind-lock' },
    });
    expect(written).toBe(0);
    const again = await site.send('POST', '/posts', {
      title: 'Behind a lock',
      content: '<p>Body.</p>',
      status: 'publish',
      source_id: 'src-behind-lock',
    });
    expect(again.status).toBe(200);
  },
  60_000
);

(locking ? test : test.skip)(
  "an editor's publish while the plugin's schedule table is locked: done within the lock wait, the site's own work",
  async () => {
    site.strapi.config.set('plugin::publish-bridge.lockTimeoutMs', 1_000);
    const scheduled = await site.send('POST', '/posts', {
      title: 'Waits for its date',
      content: '<p>Body.</p>',
      status: 'publish',
      date: contractDate(new Date(Date.now() + 3_600_000)),
    });
    expect(scheduled.status).toBe(200);
    const table = site.strapi.db.metadata.get(UIDS.managedEntry).tableName;
    await whileLocked(table, async () => {
      // What the Content Manager's Publish button calls; the plugin's hook then cancels the waiting publish.
      const published = documentsOf(site.strapi, UIDS.post).publish({ documentId: scheduled.body.id });
      const outcome = await Promise.race([
        published.then(() => 'published'),
        sleep(15_000).then(() => 'still waiting'),
      ]);
      expect(outcome).toBe('published');
    });
  },
  60_000
);

(locking ? test : test.skip)(
  'the site starts while a table of the plugin is locked by another session',
  async () => {
    const table = site.strapi.db.metadata.get(UIDS.activityEntry).tableName;
    await whileLocked(table, async () => {
      const instance = await Promise.race([
        startInstance({ ...site.database.env, PUBLISH_BRIDGE_CONTENT_TYPES: 'plugin' }),
        sleep(60_000).then(() => undefined),
      ]);
      expect(instance).toBeDefined();
      try {
        expect((await fetch(`${instance!.baseUrl}/api/articles`)).status).toBe(200);
      } finally {
        await instance!.stop();
      }
    });
  },
  120_000
);

test('a table of the plugin missing from the database: 503 naming it, nothing written, the site serves', async () => {
  const table = site.strapi.db.metadata.get(UIDS.identity).tableName;
  await site.strapi.db.connection.schema.dropTable(table);
  const reply = await site.send('POST', '/posts', {
    title: 'Without the registry',
    content: '<p>Body.</p>',
    status: 'publish',
    source_id: 'src-without-registry',
  });
  expect(reply.status).toBe(503);
  expect(reply.body).toEqual({ error: expect.stringContaining(`its database has no table "${table}"`) });
  const written = await documentsOf(site.strapi, UIDS.post).count({
    filters: { sourceId: 'src-without-registry' },
  });
  expect(written).toBe(0);
  expect((await fetch(`${site.baseUrl}/api/articles`)).status).toBe(200);
});
