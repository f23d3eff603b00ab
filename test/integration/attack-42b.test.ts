import { loginWithPermissions } from '../helpers/admin-client';
import { documentsOf, UIDS } from '../helpers/inspect';
import { useSite } from '../helpers/site';

/**
 * Attack review of issue 42 (per-connection options, linkLocalizations): what one connection's
 * publisher may do to the posts another connection wrote. Each test asserts the isolation the
 * README promises ("an id one connection returned answers 404 on the other, and each lists,
 * updates and deletes only its own locale") and fails on the code as it stands.
 */
const JOURNAL = 'api::journal.journal';
const KEYS = {
  en: 'pb_en_key_0123456789abcdef0123456789abcdef',
  fr: 'pb_fr_key_0123456789abcdef0123456789abcdef',
  main: 'pb_main_key_0123456789abcdef0123456789abcd',
  partner: 'pb_partner_key_0123456789abcdef0123456789',
};
type Name = keyof typeof KEYS;
const post = (title: string, sourceId: string, extra: object = {}) => ({
  title,
  content: `<p>${title}.</p>`,
  status: 'publish',
  source_id: sourceId,
  ...extra,
});

describe("a connection with adoptExistingEntries and another connection's posts", () => {
  // No i18n (the plugin's post): both connections write the same rows, told apart by their registries only.
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ main: {}, partner: { adoptExistingEntries: true } }),
    PUBLISH_BRIDGE_API_KEY_MAIN: KEYS.main,
    PUBLISH_BRIDGE_API_KEY_PARTNER: KEYS.partner,
  });
  const send = (name: Name, method: string, path: string, body?: object) =>
    site.send(method, `/${name}${path}`, body, { key: KEYS[name] });

  test("may not update a post the other connection's publisher created: adoption is for editors' entries", async () => {
    const { body } = await send('main', 'POST', '/posts', post('Main news', 'main-1'));
    const hijack = await send('partner', 'PUT', `/posts/${body.id}`, { title: 'Partner took this' });
    expect(hijack.status).toBe(404);
    const stored = await documentsOf(site.strapi, UIDS.post).findOne({
      documentId: body.id,
      status: 'published',
    });
    expect(stored?.title).toBe('Main news');
  });

  test("may not delete a post the other connection's publisher created", async () => {
    const { body } = await send('main', 'POST', '/posts', post('Main story', 'main-2'));
    expect((await send('partner', 'DELETE', `/posts/${body.id}`)).status).toBe(404);
    expect(await documentsOf(site.strapi, UIDS.post).findOne({ documentId: body.id })).not.toBeNull();
  });
});

describe("linkLocalizations: a localization's non-localized fields and the other locale's connection", () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONTENT_TYPES: 'localized',
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({
      en: { locale: 'en', linkLocalizations: true },
      fr: { locale: 'fr', linkLocalizations: true },
    }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });
  beforeAll(async () => {
    await site.strapi.plugin('i18n').service('locales').create({ code: 'fr', name: 'French (fr)' });
  });
  const send = (name: Name, method: string, path: string, body?: object) =>
    site.send(method, `/${name}${path}`, body, { key: KEYS[name] });

  // readingTime is the Journal's one non-localized attribute: i18n copies fr's value into en's rows.
  test("fr's publish leaves en's published post as en's publisher sent it", async () => {
    const en = await send('en', 'POST', '/posts', post('Noon', 'nl-2', { reading_time: '3 min' }));
    await send('fr', 'POST', '/posts', post('Midi', 'nl-2', { reading_time: '12 min' }));
    const published = await documentsOf(site.strapi, JOURNAL).findOne({
      documentId: en.body.id,
      locale: 'en',
      status: 'published',
    });
    expect(published?.readingTime).toBe('3 min');
  });

  test("the fr panel shows a French-only role fr's last delivery, not the notes of en's", async () => {
    const en = await send('en', 'POST', '/posts', post('Dusk', 'nl-3'));
    await send('fr', 'POST', '/posts', post('Crépuscule', 'nl-3'));
    // A script the plugin strips: en's delivery then carries a note about en's content.
    const update = await send('en', 'PUT', `/posts/${en.body.id}`, {
      content: '<p>Dusk.</p><script>alert(1)</script>',
    });
    expect(update.status).toBe(200);
    const frenchOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      {
        action: 'plugin::content-manager.explorer.read',
        subject: JOURNAL,
        properties: { locales: ['fr'] },
      },
    ]);
    const panel = await frenchOnly.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(JOURNAL)}&documentId=${en.body.id}&locale=fr`
    );
    expect(panel.status).toBe(200);
    expect(panel.body.data).toMatchObject({ managed: true, connection: 'fr' });
    expect(panel.body.data.lastDelivery).toMatchObject({ connection: 'fr', action: 'posts.create' });
    expect(panel.body.data.lastDelivery.notes).toBeUndefined();
  });
});

describe('the slugs every connection shares, once an editor deleted the post that took one', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: {} }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });
  const send = (name: Name, method: string, path: string, body?: object) =>
    site.send(method, `/${name}${path}`, body, { key: KEYS[name] });

  test("another connection's post of that title takes the slug again", async () => {
    const en = await send('en', 'POST', '/posts', post('Harbour', 'slug-1'));
    expect(en.body.url).toMatch(/\/harbour$/);
    // Deleted in the Content Manager: no contract DELETE forgets the slug it held.
    await documentsOf(site.strapi, UIDS.post).delete({ documentId: en.body.id });
    const fr = await send('fr', 'POST', '/posts', post('Harbour', 'slug-2'));
    expect(fr.status).toBe(200);
    expect(fr.body.url).toMatch(/\/harbour$/);
  });
});
