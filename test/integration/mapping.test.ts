import { loginAs, pluginTypesDisplayed } from '../helpers/admin-client';
import { startSiteWithImages } from '../helpers/site-with-images';
import type { ImageServer } from '../helpers/image-server';
import type { Site } from '../helpers/site';
import {
  caseInsensitiveIndexName,
  ensureCaseInsensitiveIndex,
  LOWER_EQUAL_COLLATIONS,
  indexName,
  rowsEqualIgnoringCase,
} from '../../server/src/database/indexes';
import { serviceOf } from '../helpers/site';
import { testDatabaseClient } from '../helpers/databases';
import { documentsOf, UIDS } from '../helpers/inspect';

/** The example maps posts, blog categories and authors onto its own blog types. */
const ARTICLE = 'api::article.article';
const CATEGORY = 'api::category.category';
const AUTHOR = 'api::author.author';

let site: Site;
let images: ImageServer;
const documents = (uid: string) => documentsOf(site.strapi, uid);
const uploadedFiles = () => site.strapi.db.query('plugin::upload.file').count();

let stopSite: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ site, images, stop: stopSite } = await startSiteWithImages({ PUBLISH_BRIDGE_CONTENT_TYPES: 'site' }));
});
afterAll(() => stopSite?.());

const CONTENT = [
  '<h2>Why grind fresh</h2>',
  '<p>Ground coffee goes <strong>stale</strong> in <a href="https://example.com/stale">minutes</a>.</p>',
  '<ul><li>Burr grinders</li><li>Blade grinders<ul><li>cheap</li></ul></li></ul>',
  '<table><tr><td>Size</td><td>Use</td></tr></table>',
].join('');

const LONG_TITLE = 'How to grind coffee at home for espresso, pour-over and French press brewing';

async function publishArticle(body: Record<string, unknown> = {}) {
  const reply = await site.send('POST', '/posts', {
    title: 'Grinding coffee at home',
    content: CONTENT,
    status: 'publish',
    excerpt: 'A short guide to grinders.',
    date: '2026-03-01 09:30:00',
    categories: ['Brewing', 'Gear'],
    tags: ['grinder', 'espresso'],
    author: 'Ada Barista',
    reading_time: '4 min',
    seo: {
      title: LONG_TITLE,
      description: 'Everything you need to know about grinding coffee beans at home, from burrs to blades.',
      keywords: ['coffee', 'grinder'],
    },
    source_id: 'map-1',
    ...body,
  });
  expect(reply.status).toBe(200);
  return reply.body as { id: string; url?: string };
}

test('a publish lands in the site types, readable through Strapi REST API as a blog frontend reads it', async () => {
  const { id } = await publishArticle();
  const response = await fetch(`${site.baseUrl}/api/articles/${id}?populate=*`);
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: any };
  expect(data).toMatchObject({
    documentId: id,
    title: 'Grinding coffee at home',
    slug: 'grinding-coffee-at-home',
    description: 'A short guide to grinders.',
    publishedDate: '2026-03-01T09:30:00.000Z',
    readingTime: '4 min',
    tags: ['grinder', 'espresso'],
    sourceId: 'map-1',
    author: { name: 'Ada Barista' },
  });
  expect(data.categories.map((category: { name: string }) => category.name)).toEqual(['Brewing', 'Gear']);
  expect(data.content).toEqual([
    { type: 'heading', level: 2, children: [{ type: 'text', text: 'Why grind fresh' }] },
    {
      type: 'paragraph',
      children: [
        { type: 'text', text: 'Ground coffee goes ' },
        { type: 'text', text: 'stale', bold: true },
        { type: 'text', text: ' in ' },
        { type: 'link', url: 'https://example.com/stale', children: [{ type: 'text', text: 'minutes' }] },
        { type: 'text', text: '.' },
      ],
    },
    {
      type: 'list',
      format: 'unordered',
      children: [
        { type: 'list-item', children: [{ type: 'text', text: 'Burr grinders' }] },
        { type: 'list-item', children: [{ type: 'text', text: 'Blade grinders' }] },
        {
          type: 'list',
          format: 'unordered',
          indentLevel: 1,
          children: [{ type: 'list-item', children: [{ type: 'text', text: 'cheap' }] }],
        },
      ],
    },
    {
      type: 'code',
      language: 'html',
      children: [{ type: 'text', text: '<table><tr><td>Size</td><td>Use</td></tr></table>' }],
    },
  ]);
  // metaTitle holds at most 60 characters: the title was cut at a word boundary, not refused.
  expect(data.seo.metaTitle.length).toBeLessThanOrEqual(60);
  expect(LONG_TITLE.startsWith(data.seo.metaTitle)).toBe(true);
  expect(LONG_TITLE[data.seo.metaTitle.length]).toBe(' ');
  expect(data.seo).toMatchObject({
    metaDescription: 'Everything you need to know about grinding coffee beans at home, from burrs to blades.',
    keywords: 'coffee, grinder',
  });
  // The plugin's own post type stays empty: the mapping is honoured.
  expect(await documents(UIDS.post).count({})).toBe(0);
});

test('every PUT shape keeps what it does not send, with the seo component merged', async () => {
  const { id } = await publishArticle({ source_id: 'map-2', title: 'Second article' });
  const read = () =>
    documents(ARTICLE).findOne({ documentId: id, populate: ['categories', 'author', 'seo'] });
  const before = await read();

  expect(
    (await site.send('PUT', `/posts/${id}`, { content: '<p>Only the body changed.</p>', source_id: 'map-2' }))
      .status
  ).toBe(200);
  const afterContent = await read();
  expect(afterContent.content).toEqual([
    { type: 'paragraph', children: [{ type: 'text', text: 'Only the body changed.' }] },
  ]);
  for (const field of ['title', 'slug', 'description', 'publishedDate', 'readingTime', 'tags', 'sourceId']) {
    expect(afterContent[field]).toEqual(before[field]);
  }
  expect(afterContent.categories.map((c: any) => c.documentId)).toEqual(
    before.categories.map((c: any) => c.documentId)
  );
  expect(afterContent.author.documentId).toBe(before.author.documentId);
  expect({ ...afterContent.seo, id: undefined }).toEqual({ ...before.seo, id: undefined });

  const description = 'A brand new description that is long enough for the SEO component rules.';
  expect((await site.send('PUT', `/posts/${id}`, { seo: { description } })).status).toBe(200);
  const afterSeo = await read();
  expect(afterSeo.seo).toMatchObject({
    metaTitle: before.seo.metaTitle,
    keywords: before.seo.keywords,
    metaDescription: description,
  });

  expect((await site.send('PUT', `/posts/${id}`, { status: 'draft' })).status).toBe(200);
  expect(await documents(ARTICLE).findOne({ documentId: id, status: 'published' })).toBeNull();
  const draft = await read();
  expect(draft.title).toBe('Second article');
  expect((await site.send('PUT', `/posts/${id}`, { status: 'publish' })).status).toBe(200);
  expect(await documents(ARTICLE).findOne({ documentId: id, status: 'published' })).not.toBeNull();
});

test('categories and authors are the site types, reused case-insensitively; delete removes the article', async () => {
  const { id } = await publishArticle({
    source_id: 'map-3',
    title: 'Third',
    categories: ['BREWING'],
    author: 'ada barista',
  });
  expect(await documents(CATEGORY).count({ filters: { name: { $eqi: 'brewing' } } })).toBe(1);
  expect(await documents(AUTHOR).count({ filters: { name: { $eqi: 'ada barista' } } })).toBe(1);

  const category = await site.send('POST', '/blog-categories', {
    name: 'Recipes',
    description: 'Drinks to make',
    parent: 'Brewing',
  });
  const stored = await documents(CATEGORY).findOne({ documentId: category.body.id, populate: ['parent'] });
  expect(stored).toMatchObject({
    name: 'Recipes',
    description: 'Drinks to make',
    slug: 'recipes',
    parent: { name: 'Brewing' },
  });

  const author = await site.send('POST', '/authors', {
    display_name: 'Grace',
    email: 'grace@example.com',
    description: 'Roaster',
  });
  expect(await documents(AUTHOR).findOne({ documentId: author.body.id })).toMatchObject({
    name: 'Grace',
    email: 'grace@example.com',
    bio: 'Roaster',
  });

  expect((await site.send('DELETE', `/posts/${id}`)).body).toEqual({ id, deleted: true });
  expect(await documents(ARTICLE).findOne({ documentId: id })).toBeNull();
});

test('the settings page is told where each resource goes', () => {
  const storage = serviceOf(site, 'mapping').describe();
  const post = storage.find((entry) => entry.resource === 'post')!;
  expect(post).toMatchObject({ uid: ARTICLE, displayName: 'Article', ownedByPlugin: false, unmapped: [] });
  expect(post.fields).toContainEqual({ field: 'content', attribute: 'content', storedAs: 'blocks' });
  expect(post.fields).toContainEqual({
    field: 'seo',
    attribute: 'seo.metaTitle, seo.metaDescription, seo.keywords, seo.canonicalURL',
    storedAs: 'seoComponent',
  });
  const author = storage.find((entry) => entry.resource === 'author')!;
  expect(author.unmapped).toEqual(['username', 'first_name', 'last_name', 'role', 'url']);
});

test("the plugin's types no resource uses leave the Content Manager's menu, and their entries stay", async () => {
  const superAdmin = await loginAs(site, 'strapi-super-admin');
  expect(await pluginTypesDisplayed(superAdmin)).toMatchObject({
    post: false,
    'blog-category': false,
    author: false,
    tag: true,
    product: true,
    'product-category': true,
  });

  // A post from before the site mapped posts onto its articles: kept, and still readable.
  const PLUGIN_POST = UIDS.post;
  const earlier = await documents(PLUGIN_POST).create({ data: { title: 'Written before the mapping' } });
  const reply = await superAdmin.request(
    'GET',
    `/content-manager/collection-types/${PLUGIN_POST}/${earlier.documentId}`
  );
  expect(reply.body.data).toMatchObject({ title: 'Written before the mapping' });
});

test('the page list shows mapped articles and categories', async () => {
  const items = (await site.send('GET', '/pages?per_page=250')).body;
  const article = items.find((item: any) => item.type === 'post' && item.slug === 'grinding-coffee-at-home');
  expect(article).toMatchObject({
    title: 'Grinding coffee at home',
    categories: ['Brewing', 'Gear'],
    tags: ['grinder', 'espresso'],
  });
  expect(items.some((item: any) => item.type === 'category' && item.title === 'Brewing')).toBe(true);
});

test('every slug column the plugin looks up has an index, added once, and again when it was dropped', async () => {
  const service = serviceOf(site, 'slug-indexes');
  const indexesOf = (table: string): Promise<{ name: string; columns: string[] }[]> =>
    site.strapi.db.dialect.schemaInspector.getIndexes(table);
  const columns: { uid: string; table: string; column: string }[] = service.slugColumns();
  expect(columns.map((column) => column.uid)).toEqual(expect.arrayContaining([ARTICLE, CATEGORY]));
  const before = new Map<string, string[]>();
  for (const { table, column } of columns) {
    const indexes = await indexesOf(table);
    expect(indexes.some((index) => index.columns[0] === column)).toBe(true);
    before.set(table, indexes.map((index) => index.name).sort());
  }

  await service.ensure();
  for (const { table } of columns) {
    expect((await indexesOf(table)).map((index) => index.name).sort()).toEqual(before.get(table));
  }

  const articles = columns.find((column) => column.uid === ARTICLE)!;
  const ours = indexName(articles.table, articles.column);
  await site.strapi.db.connection.schema.alterTable(articles.table, (table: any) =>
    table.dropIndex([], ours)
  );
  expect((await indexesOf(articles.table)).map((index) => index.name)).not.toContain(ours);
  await service.ensure();
  expect((await indexesOf(articles.table)).map((index) => index.name).sort()).toEqual(
    before.get(articles.table)
  );
});

test('a category is found by name case-insensitively through the index the plugin adds for it', async () => {
  const { strapi } = site;
  const service = serviceOf({ strapi }, 'slug-indexes');
  const columns: { uid: string; table: string; column: string }[] = service.nameColumns();
  const categories = columns.find((column) => column.uid === CATEGORY)!;
  expect(categories).toBeDefined();
  const name = caseInsensitiveIndexName(strapi, categories.table, categories.column);
  const client = strapi.db.dialect.client;
  const rowsNamed = await rowsEqualIgnoringCase(
    strapi,
    strapi.db.connection,
    categories.table,
    categories.column
  );
  const lookup = rowsNamed('ROASTING NOTES').select('document_id');
  const plan = async () =>
    JSON.stringify(
      client === 'postgres'
        ? // A table of a few rows is read whole whatever its indexes: the plan is asked without that choice.
          await strapi.db.connection.transaction(async (trx: any) => {
            await trx.raw('SET LOCAL enable_seqscan = off');
            return (await trx.raw(`EXPLAIN ${lookup.toString()}`)).rows;
          })
        : client === 'sqlite'
          ? await strapi.db.connection.raw(`EXPLAIN QUERY PLAN ${lookup.toString()}`)
          : // MariaDB names the index it reads in the plan's `key`.
            (await strapi.db.connection.raw(`EXPLAIN ${lookup.toString()}`))[0]
    );
  // SQLite says SEARCH when it looks the value up in the index, SCAN when it reads all of it.
  const readsIndex = new RegExp(
    client === 'sqlite' ? `SEARCH [^"]*INDEX ${name}` : client === 'mysql' ? `"key":"${name}"` : name
  );
  expect(await plan()).toMatch(readsIndex);
  await service.ensure();
  await strapi.db.connection.raw(
    client === 'mysql' ? 'DROP INDEX ?? ON ??' : 'DROP INDEX ??',
    client === 'mysql' ? [name, categories.table] : [name]
  );
  expect(await plan()).not.toMatch(readsIndex);
  await service.ensure();
  expect(await plan()).toMatch(readsIndex);

  // An editor's category, which the registry does not know: the publish finds it by name.
  const editors = await strapi.documents(CATEGORY).create({
    data: { name: 'Roasting Notes', slug: 'roasting-notes' },
    status: 'published',
  } as any);
  const post = {
    title: 'Roast and grind',
    content: '<p>x</p>',
    status: 'publish',
    categories: ['ROASTING NOTES'],
  };
  const created = await site.send('POST', '/posts', post);
  expect(created.status).toBe(200);
  const stored = await strapi
    .documents(ARTICLE)
    .findOne({ documentId: created.body.id, populate: ['categories'] } as any);
  expect((stored as any).categories.map((category: any) => category.documentId)).toEqual([
    editors.documentId,
  ]);
});

const onMariadb = testDatabaseClient() === 'mariadb' ? test : test.skip;

onMariadb(
  '(MariaDB) a name column gets an index only under a collation that holds every name equal to its LOWER(), and its names are found without regard to case under any',
  async () => {
    const { strapi } = site;
    const knex = strapi.db.connection;
    const [[{ connection }]] = await knex.raw('SELECT @@collation_connection AS connection');
    // mysql2's own default, which the lookup's LOWER(?) folds the value's case by.
    expect(connection).toBe('utf8mb4_unicode_ci');
    // Found without regard to case under every collation.
    const cased = [
      ['ROASTING NOTES', 1],
      ['kelvin', 3],
    ] as const;
    // Under the Unicode collations, a decomposed "é" too (two characters for one): in a short name,
    // and in one of 256 characters, longer than the column and its index, equal to a stored 255.
    const decomposed = [
      ['cafe\u0301 au lait', 4],
      [`E\u0301${'B'.repeat(254)}`, 5],
    ] as const;
    const tables = [
      { table: 'pb_test_names_bin', collation: 'utf8mb4_bin', indexed: false, found: cased },
      // MariaDB 10.11's default: the Kelvin sign is not equal to its LOWER() "k".
      { table: 'pb_test_names_general', collation: 'utf8mb4_general_ci', indexed: false, found: cased },
      {
        table: 'pb_test_names_unicode',
        collation: 'utf8mb4_unicode_ci',
        indexed: true,
        found: [...cased, ...decomposed],
      },
      // A site's index on the name's first 6 characters, which would cut every value looked up.
      {
        table: 'pb_test_names_prefix',
        collation: 'utf8mb4_unicode_ci',
        indexed: false,
        found: [...cased, ...decomposed],
        prefix: 6,
      },
    ];
    try {
      for (const { table, collation, indexed, found, prefix } of tables) {
        await knex.raw(
          `CREATE TABLE ?? (id INT PRIMARY KEY, name VARCHAR(255) COLLATE ${collation}${prefix ? `, KEY (name(${prefix}))` : ''})`,
          [table]
        );
        await knex(table).insert([
          { id: 1, name: 'Roasting Notes' },
          { id: 2, name: 'Brewing' },
          { id: 3, name: '\u212Aelvin' },
          { id: 4, name: 'Caf\u00e9 au lait' },
          { id: 5, name: `\u00e9${'b'.repeat(254)}` },
        ]);
        const wanted = { uid: CATEGORY, table, columns: ['name'], purpose: 'a test' };
        const name = `${table}_name_pb_idx`;
        expect([collation, await ensureCaseInsensitiveIndex(strapi, wanted, name)]).toEqual([
          collation,
          indexed,
        ]);
        const indexes = await strapi.db.dialect.schemaInspector.getIndexes(table);
        expect(indexes.some((index: { name: string }) => index.name === name)).toBe(indexed);
        const rowsNamed = await rowsEqualIgnoringCase(strapi, knex, table, 'name');
        for (const [value, id] of found) {
          expect([table, value, await rowsNamed(value).pluck('id')]).toEqual([table, value, [id]]);
        }
      }
    } finally {
      await knex.raw(`DROP TABLE IF EXISTS ${tables.map(({ table }) => table).join(', ')}`);
    }
  }
);

onMariadb(
  '(MariaDB) every pair of LOWER_EQUAL_COLLATIONS holds every character, and every cased letter with a combining mark, equal to its LOWER() of either collation',
  async () => {
    const knex = site.strapi.db.connection;
    // Every code point but the surrogates, as text; the sequence engine makes the numbers.
    const characters = `SELECT seq AS code, CONVERT(CHAR(seq USING utf32) USING utf8mb4) COLLATE utf8mb4_bin AS text
    FROM seq_0_to_1114111 WHERE seq NOT BETWEEN 55296 AND 57343`;
    // The combining marks: diacritical marks, their extended and supplement blocks, for symbols, half marks.
    const marks = [
      [0x300, 0x36f],
      [0x1ab0, 0x1aff],
      [0x1dc0, 0x1dff],
      [0x20d0, 0x20ff],
      [0xfe20, 0xfe2f],
    ]
      .map(([first, last]) => `SELECT seq AS mark FROM seq_${first}_to_${last}`)
      .join(' UNION ALL ');
    for (const [collation, connections] of Object.entries(LOWER_EQUAL_COLLATIONS)) {
      for (const connection of connections) {
        const unequal = (text: string) =>
          `(${text} COLLATE ${collation}) <> LOWER(${text} COLLATE ${connection}) COLLATE ${collation} OR (${text} COLLATE ${collation}) <> LOWER(${text} COLLATE ${collation})`;
        const [[single]] = await knex.raw(
          `SELECT COUNT(*) AS count, GROUP_CONCAT(HEX(code)) AS codes FROM (${characters}) c WHERE ${unequal('text')}`
        );
        const [[pairs]] = await knex.raw(
          `SELECT COUNT(*) AS count, GROUP_CONCAT(HEX(code)) AS codes FROM (
          SELECT c.code, CONCAT(c.text, CONVERT(CHAR(m.mark USING utf32) USING utf8mb4)) COLLATE utf8mb4_bin AS text
          FROM (${characters}) c JOIN (${marks}) m
          WHERE c.text <> LOWER(c.text COLLATE ${collation}) COLLATE utf8mb4_bin
        ) p WHERE ${unequal('text')}`
        );
        expect([collation, connection, Number(single.count), single.codes]).toEqual([
          collation,
          connection,
          0,
          null,
        ]);
        expect([collation, connection, Number(pairs.count), pairs.codes]).toEqual([
          collation,
          connection,
          0,
          null,
        ]);
      }
    }
  }
);

describe('images', () => {
  test('the featured image and inline images go into the Media Library, and a republish reuses them', async () => {
    const filesBefore = await uploadedFiles();
    const body = {
      title: 'Latte art basics',
      featured_image: images.url('/images/latte-cover.png'),
      content: `<p>Pour slowly.</p><figure><img src="${images.url('/images/latte-inline.png')}" alt="A rosetta"><figcaption>A rosetta</figcaption></figure>`,
      source_id: 'media-1',
    };
    const { id } = await publishArticle(body);
    const article = await documents(ARTICLE).findOne({ documentId: id, populate: ['cover'] });
    expect(article.cover).toMatchObject({
      mime: 'image/png',
      width: 5,
      height: 3,
      alternativeText: 'Latte art basics',
    });
    expect(article.content[1]).toMatchObject({
      type: 'image',
      image: { mime: 'image/png', alternativeText: 'A rosetta', caption: 'A rosetta' },
    });
    expect(await uploadedFiles()).toBe(filesBefore + 2);

    await publishArticle(body);
    expect(await uploadedFiles()).toBe(filesBefore + 2);
    expect(images.hits('/images/latte-cover.png')).toBe(1);
    expect(images.hits('/images/latte-inline.png')).toBe(1);
    const republished = await documents(ARTICLE).findOne({ documentId: id, populate: ['cover'] });
    expect(republished.cover.id).toBe(article.cover.id);
  });

  test('an image that cannot be imported never fails the publish', async () => {
    const missing = images.url('/missing.png');
    const { id } = await publishArticle({
      title: 'Without pictures',
      source_id: 'media-2',
      featured_image: missing,
      content: `<p>Text stays.</p><img src="${missing}" alt="gone">`,
    });
    const article = await documents(ARTICLE).findOne({ documentId: id, populate: ['cover'] });
    expect(article.cover).toBeNull();
    expect(article.content).toEqual([
      { type: 'paragraph', children: [{ type: 'text', text: 'Text stays.' }] },
      {
        type: 'code',
        language: 'html',
        children: [{ type: 'text', text: `<img src="${missing}" alt="gone">` }],
      },
    ]);
  });
});
