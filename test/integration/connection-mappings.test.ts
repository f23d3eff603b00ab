import { UIDS } from '../../server/src/constants';
import { loginAs } from '../helpers/admin-client';
import { documentsOf, listenToLog } from '../helpers/inspect';
import { useSite } from '../helpers/site';

/**
 * A connection with its own `contentTypes` (merged kind by kind over the site's): a partner
 * project whose posts go into the site's Article while the site's own project keeps the
 * plugin's Post (the test site stores everything in the plugin's types).
 */
const ARTICLE = 'api::article.article';
const KEYS = {
  en: 'pb_en_key_0123456789abcdef0123456789abcdef',
  partner: 'pb_partner_key_0123456789abcdef0123456789ab',
};
type Name = keyof typeof KEYS;
const ENV_KEYS = { PUBLISH_BRIDGE_API_KEY_EN: KEYS.en, PUBLISH_BRIDGE_API_KEY_PARTNER: KEYS.partner };
const articleMapping = (fields: Record<string, string>) => ({
  contentTypes: { post: { uid: ARTICLE, fields } },
});

describe('a connection that stores its posts in a type of its own', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({
      en: {},
      partner: articleMapping({
        title: 'title',
        slug: 'slug',
        content: 'content',
        excerpt: 'description',
        source_id: 'sourceId',
      }),
    }),
    ...ENV_KEYS,
  });
  const send = (name: Name, method: string, path: string, body?: object) =>
    site.send(method, `/${name}${path}`, body, { key: KEYS[name] });
  const post = (title: string) => ({
    title,
    content: `<p>${title}.</p>`,
    excerpt: `About ${title}`,
    status: 'publish',
    source_id: `source-${title}`,
  });
  const stored = async (uid: string, documentId: string) =>
    (await documentsOf(site.strapi, uid).findOne({ documentId, status: 'published' }))?.title ?? null;

  test("each connection writes its posts into its own mapping's type, with that mapping's fields", async () => {
    const en = await send('en', 'POST', '/posts', post('Plugin post'));
    const partner = await send('partner', 'POST', '/posts', post('Partner article'));
    expect([en.status, partner.status]).toEqual([200, 200]);

    expect(await stored(UIDS.post, en.body.id)).toBe('Plugin post');
    expect(await stored(ARTICLE, en.body.id)).toBeNull();
    expect(await stored(ARTICLE, partner.body.id)).toBe('Partner article');
    expect(await stored(UIDS.post, partner.body.id)).toBeNull();
    const article = await documentsOf(site.strapi, ARTICLE).findOne({ documentId: partner.body.id });
    expect(article).toMatchObject({
      description: 'About Partner article',
      sourceId: 'source-Partner article',
    });

    // A republish of the same source_id finds the article; an update and a delete reach it.
    const again = await send('partner', 'POST', '/posts', post('Partner article'));
    expect(again.body.id).toBe(partner.body.id);
    expect((await send('partner', 'PUT', `/posts/${partner.body.id}`, { title: 'Renamed' })).status).toBe(
      200
    );
    expect(await stored(ARTICLE, partner.body.id)).toBe('Renamed');
    expect((await send('partner', 'DELETE', `/posts/${partner.body.id}`)).status).toBe(200);
    expect(await documentsOf(site.strapi, ARTICLE).findOne({ documentId: partner.body.id })).toBeNull();
  });

  test('kinds the connection does not map stay where the site stores them', async () => {
    const partner = await send('partner', 'POST', '/blog-categories', { name: 'Partner news' });
    expect(partner.status).toBe(200);
    expect(
      await documentsOf(site.strapi, UIDS.blogCategory).findOne({ documentId: partner.body.id })
    ).toMatchObject({ name: 'Partner news' });
  });

  test("each connection's page list shows its own type's entries", async () => {
    await send('en', 'POST', '/posts', post('Listed plugin post'));
    await send('partner', 'POST', '/posts', post('Listed article'));
    const titles = async (name: Name) =>
      ((await send(name, 'GET', '/pages?per_page=100')).body as Array<{ type: string; title: string }>)
        .filter((item) => item.type === 'post')
        .map((item) => item.title);
    expect(await titles('partner')).toContain('Listed article');
    expect(await titles('partner')).not.toContain('Listed plugin post');
    expect(await titles('en')).toContain('Listed plugin post');
    expect(await titles('en')).not.toContain('Listed article');
  });

  test("the settings page shows each connection's mapping, and the side panel the article's connection", async () => {
    const admin = await loginAs(site, 'strapi-super-admin');
    const postStorage = async (name: Name) =>
      (
        (await admin.request('GET', `/publish-bridge/settings?connection=${name}`)).body.data
          .storage as Array<{
          resource: string;
          uid: string;
        }>
      ).find((storage) => storage.resource === 'post')?.uid;
    expect(await postStorage('partner')).toBe(ARTICLE);
    expect(await postStorage('en')).toBe(UIDS.post);

    const { body } = await send('partner', 'POST', '/posts', post('Panel article'));
    const panel = await admin.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(ARTICLE)}&documentId=${body.id}`
    );
    expect(panel.body.data).toMatchObject({
      managed: true,
      connection: 'partner',
      sourceId: 'source-Panel article',
    });
  });
});

describe("a connection whose mapping does not fit the site's types", () => {
  const errors: string[] = [];
  const site = useSite(
    {
      PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({
        en: {},
        partner: articleMapping({ title: 'headline', content: 'content' }),
      }),
      ...ENV_KEYS,
    },
    { beforeLoad: (strapi) => listenToLog(strapi, 'error', (message) => void errors.push(message)) }
  );

  test('takes that connection alone out of service, with the reason, and the site starts', async () => {
    const partner = await site.send('POST', '/partner/handshake', {}, { key: KEYS.partner });
    expect(partner.status).toBe(503);
    expect(partner.body.error).toMatch(
      /Connection "partner"'s "contentTypes" mapping \("connections\.partner\.contentTypes"/
    );
    expect(partner.body.error).toMatch(/headline/);
    expect(errors).toEqual([expect.stringMatching(/connection "partner"'s contract routes answer 503/)]);

    const en = await site.send(
      'POST',
      '/en/posts',
      { title: 'Still served', content: '<p>x</p>', status: 'publish' },
      { key: KEYS.en }
    );
    expect(en.status).toBe(200);
    expect(await documentsOf(site.strapi, UIDS.post).findOne({ documentId: en.body.id })).toMatchObject({
      title: 'Still served',
    });
  });
});
