import { UIDS } from '../../server/src/constants';
import { loginAs, pluginTypesDisplayed, type AdminClient } from '../helpers/admin-client';
import { documentsOf, listenToLog, localizedVersionsOf, queryOf } from '../helpers/inspect';
import { TEST_KEY } from '../helpers/signing';
import { PREFIX, serviceOf, useSite } from '../helpers/site';

/**
 * One site, several connections (config `connections`): each has its base URL at
 * `{prefix}/{name}`, its own key (PUBLISH_BRIDGE_API_KEY_<NAME>) and its own options.
 */
const KEYS = {
  en: 'pb_en_key_0123456789abcdef0123456789abcdef',
  fr: 'pb_fr_key_0123456789abcdef0123456789abcdef',
};
const NAMES = ['en', 'fr'] as const;

describe('two connections on one site', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({
      en: {},
      fr: {
        capabilities: { 'pages.list': false },
        timezone: 'Europe/Paris',
        urlTemplates: { post: 'https://example.com/fr/blog/{slug}' },
        site: { name: 'Le site' },
      },
    }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });

  test('each connection answers at its own base URL to a request signed with its own key', async () => {
    for (const name of NAMES) {
      const reply = await site.send('POST', `/${name}/handshake`, {}, { key: KEYS[name] });
      expect(reply).toMatchObject({ status: 200, body: { contract: expect.any(String) } });
    }
  });

  test("a request signed with one connection's key is refused (401) at every other connection's base URL", async () => {
    for (const name of NAMES) {
      for (const key of [...Object.values(KEYS).filter((other) => other !== KEYS[name]), TEST_KEY]) {
        const reply = await site.send('POST', `/${name}/handshake`, {}, { key });
        expect(reply).toMatchObject({ status: 401, body: { error: expect.any(String) } });
      }
      const written = await site.send(
        'POST',
        `/${name}/posts`,
        { title: 'Not mine', content: '<p>x</p>' },
        {
          key: name === 'en' ? KEYS.fr : KEYS.en,
        }
      );
      expect(written.status).toBe(401);
    }
  });

  test("the prefix itself is no connection's base URL when config lists none there: 404 { error }", async () => {
    const reply = await site.send('POST', '/handshake', {});
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatch(
      /No connection of this site has its base URL at \/api\/publish-bridge\/handshake/
    );
  });

  test('a connection inherits the top-level options and overrides what it sets (capabilities merged key by key)', async () => {
    const capabilitiesOf = async (name: (typeof NAMES)[number]) =>
      (await site.send('POST', `/${name}/handshake`, {}, { key: KEYS[name] })).body.capabilities as string[];
    const en = await capabilitiesOf('en');
    const fr = await capabilitiesOf('fr');
    // Top level (the test site's PUBLISH_BRIDGE_CAPABILITIES) opts in to products for both.
    expect(en).toEqual(expect.arrayContaining(['products', 'product_categories', 'pages.list']));
    expect(fr).toEqual(en.filter((capability) => capability !== 'pages.list'));
    expect((await site.send('GET', '/fr/pages', undefined, { key: KEYS.fr })).status).toBe(403);
    expect((await site.send('GET', '/en/pages', undefined, { key: KEYS.en })).status).toBe(200);
  });

  test("a connection's own timezone, URL templates and site name apply to its requests only", async () => {
    const published = async (name: (typeof NAMES)[number]) => {
      const body = {
        title: `Dated ${name}`,
        content: '<p>x</p>',
        status: 'draft',
        date: '2026-01-14 10:00:00',
      };
      const reply = await site.send('POST', `/${name}/posts`, body, { key: KEYS[name] });
      expect(reply.status).toBe(200);
      const post = await documentsOf(site.strapi, UIDS.post).findOne({ documentId: reply.body.id });
      return { url: reply.body.url, date: new Date(post.publishDate).toISOString(), slug: post.slug };
    };
    const en = await published('en');
    const fr = await published('fr');
    // The test site's top level: UTC and http://localhost:3000/blog/{slug}.
    expect(en).toMatchObject({
      date: '2026-01-14T10:00:00.000Z',
      url: `http://localhost:3000/blog/${en.slug}`,
    });
    expect(fr).toMatchObject({
      date: '2026-01-14T09:00:00.000Z',
      url: `https://example.com/fr/blog/${fr.slug}`,
    });

    const siteNameOf = async (name: (typeof NAMES)[number]) =>
      (await site.send('POST', `/${name}/handshake`, {}, { key: KEYS[name] })).body.site.name;
    expect(await siteNameOf('fr')).toBe('Le site');
    expect(await siteNameOf('en')).not.toBe('Le site');
  });
});

describe("each connection's activity log", () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: {} }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });
  const activity = async (admin: AdminClient, connection: string) => {
    const reply = await admin.request(
      'GET',
      `/publish-bridge/activity?pageSize=100&filters[$and][0][connection][$eq]=${connection}`
    );
    expect(reply.status).toBe(200);
    return reply.body as {
      results: Array<{ connection: string; path: string; action: string; refusal?: string; count: number }>;
      filterOptions: { connection: string[] };
    };
  };

  test('names the connection of each request and of each count of refusals, and filters by it', async () => {
    await site.send('POST', '/en/handshake', {}, { key: KEYS.en });
    await site.send('POST', '/fr/handshake', {}, { key: KEYS.fr });
    await site.send('POST', '/fr/handshake', {}, { key: KEYS.fr });
    for (let i = 0; i < 3; i++) await site.send('POST', '/fr/handshake', {}, { key: KEYS.en });
    await site.send('POST', '/en/handshake', {}, { key: KEYS.fr });
    await serviceOf(site, 'activity-writer').flush();

    const admin = await loginAs(site, 'strapi-super-admin');
    const fr = await activity(admin, 'fr');
    const en = await activity(admin, 'en');
    expect(fr.filterOptions.connection).toEqual(['en', 'fr']);
    const summary = ({ results }: typeof fr) =>
      results.map((row) => [row.connection, row.path, row.refusal ?? row.action, row.count]).sort();
    expect(summary(fr)).toEqual([
      ['fr', `${PREFIX}/fr/handshake`, 'handshake', 1],
      ['fr', `${PREFIX}/fr/handshake`, 'handshake', 1],
      ['fr', `${PREFIX}/fr/handshake`, 'wrong_key', 3],
    ]);
    expect(summary(en)).toEqual([
      ['en', `${PREFIX}/en/handshake`, 'handshake', 1],
      ['en', `${PREFIX}/en/handshake`, 'wrong_key', 1],
    ]);
  });
});

describe('the settings API, one connection at a time', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: { locale: 'en' }, fr: {} }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });
  let admin: AdminClient;
  beforeAll(async () => {
    admin = await loginAs(site, 'strapi-super-admin');
  });

  test('GET /settings?connection= describes that connection and lists them all; without it, the first', async () => {
    await site.send('POST', '/fr/handshake', {}, { key: KEYS.fr });
    const fr = await admin.request('GET', '/publish-bridge/settings?connection=fr');
    expect(fr.status).toBe(200);
    expect(fr.body.data).toMatchObject({
      connection: 'fr',
      baseUrl: expect.stringMatching(/\/api\/publish-bridge\/fr$/),
      connectionKey: { configured: true, managedByEnvironment: true, last4: KEYS.fr.slice(-4) },
      status: {
        lastHandshakeAt: expect.any(String),
        lastRequest: expect.objectContaining({ connection: 'fr' }),
      },
    });
    expect(fr.body.data.connections).toEqual([
      {
        name: 'en',
        baseUrl: expect.stringMatching(/\/api\/publish-bridge\/en$/),
        keyConfigured: true,
        locale: 'en',
      },
      {
        name: 'fr',
        baseUrl: expect.stringMatching(/\/api\/publish-bridge\/fr$/),
        keyConfigured: true,
        lastHandshakeAt: expect.any(String),
      },
    ]);
    const first = await admin.request('GET', '/publish-bridge/settings');
    expect(first.body.data).toMatchObject({ connection: 'en', connectionKey: { last4: KEYS.en.slice(-4) } });
    expect(first.body.data.status.lastHandshakeAt).toBeUndefined();
  });

  test('PUT /settings?connection= changes that connection only', async () => {
    const saved = await admin.request('PUT', '/publish-bridge/settings?connection=fr', {
      capabilities: { 'pages.list': false },
    });
    expect(saved.status).toBe(200);
    const capabilitiesOf = async (name: (typeof NAMES)[number]) =>
      (await site.send('POST', `/${name}/handshake`, {}, { key: KEYS[name] })).body.capabilities as string[];
    expect(await capabilitiesOf('fr')).not.toContain('pages.list');
    expect(await capabilitiesOf('en')).toContain('pages.list');
  });

  test('a connection the site does not have is a 400 naming those it has', async () => {
    const reply = await admin.request('GET', '/publish-bridge/settings?connection=de');
    expect(reply.status).toBe(400);
    expect(reply.body.error.message).toBe(
      'This site has no connection named "de"; its connections: "en", "fr".'
    );
  });
});

describe("the Content Manager's menus", () => {
  const site = useSite({
    PUBLISH_BRIDGE_CAPABILITIES: '',
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: { capabilities: { products: true } } }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });

  test('show a type of the plugin while any connection writes it', async () => {
    const admin = await loginAs(site, 'strapi-super-admin');
    expect((await pluginTypesDisplayed(admin)).product).toBe(true);
    const off = await admin.request('PUT', '/publish-bridge/settings?connection=fr', {
      capabilities: { products: false },
    });
    expect(off.status).toBe(200);
    expect((await pluginTypesDisplayed(admin)).product).toBe(false);
  });
});

describe('what each connection wrote is its own', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: {} }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });
  const send = (name: (typeof NAMES)[number], method: string, path: string, body?: object) =>
    site.send(method, `/${name}${path}`, body, { key: KEYS[name] });
  const post = (title: string, sourceId: string) => ({
    title,
    content: `<p>${title}.</p>`,
    status: 'publish',
    source_id: sourceId,
  });
  const titleOf = async (id: string) =>
    (await documentsOf(site.strapi, UIDS.post).findOne({ documentId: id, fields: ['title'] }))?.title;

  test('the same source_id sent to two connections makes two posts; each republish finds its own', async () => {
    const en = await send('en', 'POST', '/posts', post('Morning', 'shared-1'));
    const fr = await send('fr', 'POST', '/posts', post('Matin', 'shared-1'));
    expect([en.status, fr.status]).toEqual([200, 200]);
    expect(fr.body.id).not.toBe(en.body.id);

    const enAgain = await send('en', 'POST', '/posts', post('Morning, again', 'shared-1'));
    const frAgain = await send('fr', 'POST', '/posts', post('Matin, encore', 'shared-1'));
    expect([enAgain.body.id, frAgain.body.id]).toEqual([en.body.id, fr.body.id]);
    expect([await titleOf(en.body.id), await titleOf(fr.body.id)]).toEqual([
      'Morning, again',
      'Matin, encore',
    ]);
  });

  test('an id one connection returned answers 404 on another, which changes and deletes nothing', async () => {
    const { body } = await send('en', 'POST', '/posts', post('Evening', 'evening-1'));
    const update = await send('fr', 'PUT', `/posts/${body.id}`, { title: 'Soir' });
    const deletion = await send('fr', 'DELETE', `/posts/${body.id}`);
    expect([update.status, deletion.status]).toEqual([404, 404]);
    expect(update.body.error).toEqual(expect.any(String));
    expect(await titleOf(body.id)).toBe('Evening');
    expect((await send('en', 'PUT', `/posts/${body.id}`, { title: 'Late evening' })).status).toBe(200);
    expect(await titleOf(body.id)).toBe('Late evening');
  });
});

describe('one connection per language, in a type with i18n on', () => {
  const JOURNAL = 'api::journal.journal';
  const warnings: string[] = [];
  const site = useSite(
    {
      PUBLISH_BRIDGE_CONTENT_TYPES: 'localized',
      PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: { locale: 'en' }, fr: { locale: 'fr' } }),
      PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
      PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
    },
    { beforeLoad: (strapi) => listenToLog(strapi, 'warn', (message) => void warnings.push(message)) }
  );
  const send = (name: (typeof NAMES)[number], method: string, path: string, body?: object) =>
    site.send(method, `/${name}${path}`, body, { key: KEYS[name] });
  const localesOf = (documentId: string) => localizedVersionsOf(site.strapi, JOURNAL, documentId);
  const listedTitles = async (name: (typeof NAMES)[number]) =>
    ((await send(name, 'GET', '/pages?per_page=100')).body as Array<{ type: string; title: string }>)
      .filter((item) => item.type === 'post')
      .map((item) => item.title)
      .sort();

  test('start-up names the connection whose locale the site lacks', () => {
    expect(warnings).toEqual([
      expect.stringMatching(/"fr" set as "connections\.fr\.locale" .* not one of this site's locales \(en\)/),
    ]);
  });

  test('each connection writes, lists and deletes its own locale only', async () => {
    await site.strapi.plugin('i18n').service('locales').create({ code: 'fr', name: 'French (fr)' });
    const post = (title: string) => ({
      title,
      content: `<p>${title}.</p>`,
      status: 'publish',
      source_id: 'day-1',
    });
    const en = await send('en', 'POST', '/posts', post('Morning'));
    const fr = await send('fr', 'POST', '/posts', post('Matin'));
    expect([en.status, fr.status]).toEqual([200, 200]);
    expect(await localesOf(en.body.id)).toEqual(['en:draft:Morning', 'en:published:Morning']);
    expect(await localesOf(fr.body.id)).toEqual(['fr:draft:Matin', 'fr:published:Matin']);
    expect(await listedTitles('en')).toEqual(['Morning']);
    expect(await listedTitles('fr')).toEqual(['Matin']);

    expect((await send('fr', 'PUT', `/posts/${fr.body.id}`, { title: 'Matin clair' })).status).toBe(200);
    expect((await send('fr', 'DELETE', `/posts/${fr.body.id}`)).status).toBe(200);
    expect(await localesOf(fr.body.id)).toEqual([]);
    expect(await localesOf(en.body.id)).toEqual(['en:draft:Morning', 'en:published:Morning']);
  });

  test("the side panel names the connection an entry came from, and shows it in that connection's locale", async () => {
    const { body } = await send('fr', 'POST', '/posts', {
      title: 'Soir',
      content: '<p>Soir.</p>',
      status: 'publish',
      source_id: 'evening-1',
    });
    const admin = await loginAs(site, 'strapi-super-admin');
    const panel = await admin.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(JOURNAL)}&documentId=${body.id}`
    );
    expect(panel.status).toBe(200);
    expect(panel.body.data).toMatchObject({
      managed: true,
      connection: 'fr',
      sourceId: 'evening-1',
      lastDelivery: expect.objectContaining({ action: 'posts.create', entityId: body.id }),
    });
  });
});

describe('a locale where no type has i18n', () => {
  const warnings: string[] = [];
  const site = useSite(
    {
      PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ fr: { locale: 'fr' } }),
      PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
    },
    { beforeLoad: (strapi) => listenToLog(strapi, 'warn', (message) => void warnings.push(message)) }
  );

  test('is a warning at start-up naming the connection, and the connection serves', async () => {
    expect(warnings).toEqual([
      expect.stringMatching(
        /"connections\.fr\.locale" is "fr", but none of the types the plugin writes has Strapi's i18n on/
      ),
    ]);
    expect((await site.send('POST', '/fr/handshake', {}, { key: KEYS.fr })).status).toBe(200);
  });
});

describe('a connection named "default" keeps the base URL and key the site had', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ default: {}, fr: {} }),
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });

  test('its activity log holds the rows written before the site had connections', async () => {
    await queryOf(site.strapi, UIDS.activityEntry).create({
      data: {
        receivedAt: new Date(),
        method: 'POST',
        path: `${PREFIX}/posts`,
        action: 'posts.create',
        httpStatus: 200,
        outcome: 'success',
        count: 1,
      },
    });
    await site.send('POST', '/fr/handshake', {}, { key: KEYS.fr });
    await serviceOf(site, 'activity-writer').flush();
    const admin = await loginAs(site, 'strapi-super-admin');
    const actionsOf = async (connection: string) =>
      (
        await admin.request(
          'GET',
          `/publish-bridge/activity?pageSize=100&filters[$and][0][connection][$eq]=${connection}`
        )
      ).body.results.map((row: { action: string; connection?: string }) => [
        row.connection ?? null,
        row.action,
      ]);
    expect(await actionsOf('default')).toEqual([[null, 'posts.create']]);
    expect(await actionsOf('fr')).toEqual([['fr', 'handshake']]);
  });

  test('the prefix answers to PUBLISH_BRIDGE_API_KEY, {prefix}/fr to PUBLISH_BRIDGE_API_KEY_FR, and neither to the other', async () => {
    expect((await site.send('POST', '/handshake', {})).status).toBe(200);
    expect((await site.send('POST', '/fr/handshake', {}, { key: KEYS.fr })).status).toBe(200);
    expect((await site.send('POST', '/fr/handshake', {})).status).toBe(401);
    expect((await site.send('POST', '/handshake', {}, { key: KEYS.fr })).status).toBe(401);
  });
});
