import { startSite, type Site } from '../helpers/site';

/**
 * The plugin's own failures stay its own: the site and Strapi's API go on serving, and the
 * contract routes answer 503 naming what the site's administrator must mend.
 */
let site: Site;

beforeAll(async () => {
  site = await startSite();
});

afterAll(async () => {
  await site?.stop();
});

test('a table of the plugin missing from the database: 503 naming it, nothing written, the site serves', async () => {
  const table = site.strapi.db.metadata.get('plugin::publish-bridge.identity').tableName;
  await site.strapi.db.connection.schema.dropTable(table);
  const reply = await site.send('POST', '/posts', {
    title: 'Without the registry',
    content: '<p>Body.</p>',
    status: 'publish',
    source_id: 'src-without-registry',
  });
  expect(reply.status).toBe(503);
  expect(reply.body).toEqual({ error: expect.stringContaining(`its database has no table "${table}"`) });
  const written = await site.strapi
    .documents('plugin::publish-bridge.post')
    .count({ filters: { sourceId: 'src-without-registry' } } as never);
  expect(written).toBe(0);
  expect((await fetch(`${site.baseUrl}/api/articles`)).status).toBe(200);
});
