import { startSite, type Site } from '../helpers/site';

/** The identity registry knows every entry the plugin created, whatever keys it was sent. */
const IDENTITY = 'plugin::publish-bridge.identity';

const registryRowsFor = (site: Site, target: string) =>
  site.strapi.db.query(IDENTITY as never).findMany({ where: { target } });

describe('entries the plugin creates', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'site' });
  });
  afterAll(() => site?.stop());

  test('an author sent without username or email is recorded as the plugin\'s all the same', async () => {
    const reply = await site.send('POST', '/authors', { display_name: 'Nameless Writer' });
    expect(reply.status).toBe(200);
    expect(await registryRowsFor(site, reply.body.id)).toEqual([
      expect.objectContaining({ resource: 'author', naturalKey: `document:${reply.body.id}` }),
    ]);
  });
});
