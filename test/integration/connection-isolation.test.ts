import { setTimeout as sleep } from 'node:timers/promises';
import { loginAs, type AdminClient } from '../helpers/admin-client';
import { documentsOf, UIDS } from '../helpers/inspect';
import { contractDate } from '../helpers/scheduling';
import { serviceOf, useSite } from '../helpers/site';

/**
 * What one connection suffers stays its own (attack review of issue 42): a weak key, an
 * unreadable settings row, its editor-changes policy when its scheduled posts fall due.
 */
const KEYS = {
  en: 'pb_en_key_0123456789abcdef0123456789abcdef',
  fr: 'pb_fr_key_0123456789abcdef0123456789abcdef',
};
type Name = keyof typeof KEYS;
const TWO_CONNECTIONS = { PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: {} }) };

describe("one connection's weak environment key", () => {
  const site = useSite({
    ...TWO_CONNECTIONS,
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: 'short_fr_key',
  });

  test('takes that connection out of service; the other serves and learns nothing of it', async () => {
    const fr = await site.send('POST', '/fr/handshake', {}, { key: 'short_fr_key' });
    expect(fr.status).toBe(503);
    const en = await site.send('POST', '/en/handshake', {}, { key: KEYS.en });
    expect(en.body.error ?? '').not.toMatch(/PUBLISH_BRIDGE_API_KEY_FR/);
    expect(en.status).toBe(200);
  });
});

describe("one connection's unreadable settings row", () => {
  const site = useSite({
    ...TWO_CONNECTIONS,
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });

  test('takes that connection out of service, not the other', async () => {
    site.strapi.config.set('plugin::publish-bridge.settingsCacheMs', 0);
    const admin = await loginAs(site, 'strapi-super-admin');
    const saved = await admin.request('PUT', '/publish-bridge/settings?connection=fr', {
      capabilities: { seo: false },
    });
    expect(saved.status).toBe(200);
    const updated = await site.strapi.db
      .connection('strapi_core_store_settings')
      .where({ key: 'plugin_publish-bridge_connections.fr.settings' })
      .update({ value: '{"apiKey": {"ciphertext": "cut off' });
    expect(updated).toBe(1);
    expect((await site.send('POST', '/fr/handshake', {}, { key: KEYS.fr })).status).toBe(503);
    const en = await site.send('POST', '/en/handshake', {}, { key: KEYS.en });
    expect(en.body.error ?? '').not.toMatch(/connections\.fr\.settings/);
    expect(en.status).toBe(200);
  });
});

describe("a scheduled post falls due under its own connection's editor-changes policy", () => {
  const site = useSite({
    ...TWO_CONNECTIONS,
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
    PUBLISH_BRIDGE_SCHEDULING_POLL_MS: '300',
  });
  let editor: AdminClient;
  beforeAll(async () => {
    editor = await loginAs(site, 'strapi-super-admin');
    const keep = await editor.request('PUT', '/publish-bridge/settings?connection=fr', {
      editorChanges: 'keep',
    });
    expect(keep.status).toBe(200);
  });

  /** Sends a post due in a moment through `name`, lets an editor save it in Strapi, runs the due publishes. */
  async function scheduledThenEdited(name: Name): Promise<boolean> {
    const schedules = serviceOf(site, 'schedules');
    await schedules.stop();
    const due = new Date(Math.ceil((Date.now() + 2_500) / 1000) * 1000);
    const post = {
      title: `Due ${name}`,
      content: '<p>Sent.</p>',
      status: 'publish',
      date: contractDate(due),
    };
    const reply = await site.send('POST', `/${name}/posts`, post, { key: KEYS[name] });
    expect(reply.status).toBe(200);
    await sleep(Math.max(0, due.getTime() - Date.now()) + 50);
    const edit = await editor.request(
      'PUT',
      `/content-manager/collection-types/${UIDS.post}/${reply.body.id}`,
      {
        excerpt: 'Editor only, not reviewed',
      }
    );
    expect(edit.status).toBe(200);
    await schedules.runDue();
    schedules.start();
    const published = await documentsOf(site.strapi, UIDS.post).findOne({
      documentId: reply.body.id,
      status: 'published',
    });
    return published !== null;
  }

  test("fr chose 'keep': its post an editor saved stays a draft", async () => {
    expect(await scheduledThenEdited('fr')).toBe(false);
  });

  test("en kept 'overwrite': its post is published at its date all the same", async () => {
    expect(await scheduledThenEdited('en')).toBe(true);
  });
});

describe("a slug is the type's, whichever connection takes it", () => {
  const site = useSite({
    ...TWO_CONNECTIONS,
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });
  const publish = (name: Name, title: string) =>
    site.send(
      'POST',
      `/${name}/posts`,
      { title, content: '<p>x</p>', status: 'publish' },
      { key: KEYS[name] }
    );
  const slugOf = async (documentId: string) =>
    (await documentsOf(site.strapi, UIDS.post).findOne({ documentId, fields: ['slug'] }))?.slug;

  // Each connection keeps its keys apart, so only a registry both share stops two of them taking
  // one slug at once (PostgreSQL and MariaDB race; SQLite runs one write at a time).
  test('two connections publishing one title at once get two slugs, and both posts stay updatable', async () => {
    for (let round = 0; round < 5; round++) {
      const [en, fr] = await Promise.all([
        publish('en', `One title ${round}`),
        publish('fr', `One title ${round}`),
      ]);
      expect([en.status, fr.status]).toEqual([200, 200]);
      expect(new Set([await slugOf(en.body.id), await slugOf(fr.body.id)]).size).toBe(2);
      const updated = await Promise.all([
        site.send('PUT', `/en/posts/${en.body.id}`, { excerpt: 'Updated' }, { key: KEYS.en }),
        site.send('PUT', `/fr/posts/${fr.body.id}`, { excerpt: 'Updated' }, { key: KEYS.fr }),
      ]);
      expect(updated.map((reply) => [reply.status, reply.body.error])).toEqual([
        [200, undefined],
        [200, undefined],
      ]);
    }
  });

  test('a slug a deleted post held is free again for either connection', async () => {
    const first = await publish('en', 'Freed slug');
    expect(await slugOf(first.body.id)).toBe('freed-slug');
    expect(
      (await site.send('DELETE', `/en/posts/${first.body.id}`, undefined, { key: KEYS.en })).status
    ).toBe(200);
    expect(await slugOf((await publish('fr', 'Freed slug')).body.id)).toBe('freed-slug');
  });
});

describe("a connection with adoptExistingEntries, and what another connection's publisher created", () => {
  // No i18n (the plugin's types): both connections write the same rows, told apart by their registries only.
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: { adoptExistingEntries: true } }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });
  const send = (name: Name, method: string, path: string, body?: object) =>
    site.send(method, `/${name}${path}`, body, { key: KEYS[name] });

  test("answers 404 to an update or delete of en's post, which stays as en sent it: adoption is for editors' entries", async () => {
    const { body } = await send('en', 'POST', '/posts', {
      title: 'En news',
      content: '<p>x</p>',
      status: 'publish',
      source_id: 'en-1',
    });
    const update = await send('fr', 'PUT', `/posts/${body.id}`, { title: 'Taken by fr' });
    const deletion = await send('fr', 'DELETE', `/posts/${body.id}`);
    expect([update.status, deletion.status]).toEqual([404, 404]);
    // The same answer as an unknown id: nothing invites the site to adopt another connection's post.
    expect(update.body.error).not.toMatch(/adoptExistingEntries/);
    const stored = await documentsOf(site.strapi, UIDS.post).findOne({
      documentId: body.id,
      status: 'published',
    });
    expect(stored?.title).toBe('En news');
  });

  test("answers 404 to a delete of en's category, even once fr's post named it", async () => {
    const { body } = await send('en', 'POST', '/blog-categories', { name: 'En desk' });
    await send('fr', 'POST', '/posts', {
      title: 'Fr news',
      content: '<p>x</p>',
      status: 'publish',
      categories: ['En desk'],
    });
    expect((await send('fr', 'DELETE', `/blog-categories/${body.id}`)).status).toBe(404);
    expect(await documentsOf(site.strapi, UIDS.blogCategory).findOne({ documentId: body.id })).not.toBeNull();
  });
});
