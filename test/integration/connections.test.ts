import { UIDS } from '../../server/src/constants';
import { documentsOf } from '../helpers/inspect';
import { TEST_KEY } from '../helpers/signing';
import { useSite } from '../helpers/site';

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
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: { capabilities: { 'pages.list': false } } }),
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

describe('a connection named "default" keeps the base URL and key the site had', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ default: {}, fr: {} }),
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });

  test('the prefix answers to PUBLISH_BRIDGE_API_KEY, {prefix}/fr to PUBLISH_BRIDGE_API_KEY_FR, and neither to the other', async () => {
    expect((await site.send('POST', '/handshake', {})).status).toBe(200);
    expect((await site.send('POST', '/fr/handshake', {}, { key: KEYS.fr })).status).toBe(200);
    expect((await site.send('POST', '/fr/handshake', {})).status).toBe(401);
    expect((await site.send('POST', '/handshake', {}, { key: KEYS.fr })).status).toBe(401);
  });
});
