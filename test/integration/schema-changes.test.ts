import { testDatabaseClient } from '../helpers/databases';
import type { Instance } from '../helpers/instances';
import { removeAttribute, renameAttribute, siteCopyPerTest, type PluginState } from '../helpers/site-copy';

/**
 * The plugin is a guest in the site's tables: what it adds to them (indexes for its look-ups)
 * must never stop the site from starting after the site changes its own schema, with the plugin
 * enabled or not. Every start here is a real start of a process of its own on one database.
 */
const SITE_TYPES = { PUBLISH_BRIDGE_CONTENT_TYPES: 'site' };
/** MariaDB cannot index an expression: the plugin adds no index for name look-ups there. */
const indexesNames = testDatabaseClient() !== 'mariadb';

const sites = siteCopyPerTest(SITE_TYPES);
const start = sites.start;

/** The site's own REST API answers (the example lets anyone read its authors). */
async function expectSiteServes(site: Instance) {
  const response = await fetch(`${site.baseUrl}/api/authors`);
  expect(response.status).toBe(200);
}

const post = (title: string) => ({
  title,
  content: '<p>Ground fresh.</p>',
  status: 'publish',
  categories: ['Brewing'],
  author: 'Ada Barista',
});

/** The site's schema after a developer renamed and removed attributes the plugin looks up and indexes. */
function changeLookedUpAttributes() {
  sites.copy().editSchema('author', renameAttribute('name', 'fullName'));
  sites.copy().editSchema('category', removeAttribute('slug'));
  sites.copy().editSchema('category', renameAttribute('name', 'title'));
  sites.copy().editSchema('article', renameAttribute('slug', 'path'));
}

/** The example's mapping, following the changes above. */
const FOLLOWING_MAPPING: PluginState = {
  enabled: true,
  fields: {
    author: { display_name: 'fullName' },
    blogCategory: { name: 'title', slug: null },
    post: { slug: 'path' },
  },
};

test('after the site renames and removes attributes the plugin indexes, it starts with the plugin disabled, then enabled', async () => {
  let site = await start();
  expect((await site.send('POST', '/posts', post('Before the change'))).status).toBe(200);
  const before = await site.call<Record<string, string[]>>('pluginIndexes');
  // The indexes are there on the columns about to change, or this test would prove nothing.
  expect(before.articles).toEqual(expect.arrayContaining([expect.stringMatching(/^articles_slug_/)]));
  expect(before.categories).toEqual(expect.arrayContaining([expect.stringMatching(/^categories_slug_/)]));
  if (indexesNames) {
    expect(before.authors).toEqual([expect.stringMatching(/^authors_name_/)]);
    expect(before.categories).toEqual(expect.arrayContaining([expect.stringMatching(/^categories_name_/)]));
  }

  changeLookedUpAttributes();
  site = await start({ enabled: false });
  await expectSiteServes(site);

  site = await start(FOLLOWING_MAPPING);
  await expectSiteServes(site);
  const after = await site.send('POST', '/posts', post('After the change'));
  expect(after.status).toBe(200);
  const indexes = await site.call<Record<string, string[]>>('pluginIndexes');
  expect(indexes.articles).toEqual(expect.arrayContaining([expect.stringMatching(/^articles_path_/)]));
  if (indexesNames) {
    expect(indexes.authors).toEqual([expect.stringMatching(/^authors_full_name_/)]);
    expect(indexes.categories).toEqual(expect.arrayContaining([expect.stringMatching(/^categories_title_/)]));
  }

  // And the indexes the plugin added on the new columns do not stop the next change either.
  sites.copy().editSchema('author', renameAttribute('fullName', 'name'));
  site = await start({ enabled: false });
  await expectSiteServes(site);
});

test('a mapping that names an attribute the site removed stops the plugin routes with the reason, never the site', async () => {
  await start();
  changeLookedUpAttributes();
  const site = await start();
  await expectSiteServes(site);
  const handshake = await site.send('POST', '/handshake', {});
  expect(handshake.status).toBe(503);
  expect(handshake.body.error).toMatch(/contentTypes\.author\.fields\.display_name/);
  expect(handshake.body.error).toMatch(/correct config\/plugins/);
  const publish = await site.send('POST', '/posts', post('While out of service'));
  expect(publish.status).toBe(503);
  // Anyone else learns nothing of the site's configuration.
  const unsigned = await fetch(`${site.baseUrl}/api/publish-bridge/handshake`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(unsigned.status).toBe(401);
  expect(JSON.stringify(await unsigned.json())).not.toMatch(/contentTypes/);
});

test('a site whose plugin once indexed LOWER(name) on SQLite starts after the column is renamed', async () => {
  if (testDatabaseClient() !== 'sqlite') return;
  let site = await start();
  // What earlier builds of the plugin left on SQLite: an index on an expression of the column.
  await site.call('runSql', 'DROP INDEX IF EXISTS authors_name_nocase_pb_idx');
  await site.call('runSql', 'CREATE INDEX IF NOT EXISTS authors_name_lower_pb_idx ON authors (LOWER(name))');
  changeLookedUpAttributes();
  site = await start(FOLLOWING_MAPPING);
  await expectSiteServes(site);
  expect((await site.call<Record<string, string[]>>('pluginIndexes')).authors).toEqual([
    'authors_full_name_nocase_pb_idx',
  ]);
  site = await start({ enabled: false });
  await expectSiteServes(site);
});
