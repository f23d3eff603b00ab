import { serviceOf, useSite } from '../helpers/site';
import { indexName } from '../../server/src/database/indexes';
import { relationTableOf } from '../../server/src/database/tables';
import { documentsOf, UIDS } from '../helpers/inspect';
import { testDatabaseClient } from '../helpers/databases';
import { slowOperations } from '../helpers/timing';
import type { Trx } from '../../server/src/database/knex';

// The example's demo catalogue (3 products in 2 categories) is part of what is listed.
const site = useSite({ PUBLISH_BRIDGE_DEMO_SEED: 'true' });
beforeAll(async () => {
  for (const [title, status] of [
    ['First post', 'publish'],
    ['Second post', 'publish'],
    ['Unpublished thoughts', 'draft'],
    ['Third post', 'publish'],
  ]) {
    const reply = await site.send('POST', '/posts', {
      title,
      content: '<p>Body</p>',
      status,
      categories: ['Brewing', 'Travel'],
      tags: ['beans'],
    });
    expect(reply.status).toBe(200);
  }
});

async function walk(perPage: number) {
  const pages: any[][] = [];
  for (let page = 1; page < 50; page += 1) {
    const reply = await site.send('GET', `/pages?per_page=${perPage}&page=${page}`);
    expect(reply.status).toBe(200);
    expect(Array.isArray(reply.body)).toBe(true);
    pages.push(reply.body);
    if (reply.body.length < perPage) return pages;
  }
  throw new Error('the walk never ended');
}

test('a walk with per_page=2 over an even count ends with an empty page and sees every item once', async () => {
  const pages = await walk(2);
  const items = pages.flat();
  // 3 published posts, 2 blog categories, 3 products, 2 product categories.
  expect(items).toHaveLength(10);
  expect(pages.map((page) => page.length)).toEqual([2, 2, 2, 2, 2, 0]);
  expect(new Set(items.map((item) => `${item.type}:${item.id}`)).size).toBe(10);
  // In order of creation: the demo catalogue at boot, then each post after the categories it created.
  expect(items.map((item) => `${item.type}:${item.title}`)).toEqual([
    'product_cat:Coffee',
    'product:Ethiopia Yirgacheffe',
    'product:House Espresso Blend',
    'product_cat:Brewing Gear',
    'product:Pour-Over Kettle',
    'category:Brewing',
    'category:Travel',
    'post:First post',
    'post:Second post',
    'post:Third post',
  ]);
  expect(items.map((item) => item.title)).not.toContain('Unpublished thoughts');
});

test('the same order whatever the page size', async () => {
  const byTwo = (await walk(2)).flat().map((item) => item.id);
  const byThree = (await walk(3)).flat().map((item) => item.id);
  const all = (await site.send('GET', '/pages')).body.map((item: { id: string }) => item.id);
  expect(byThree).toEqual(byTwo);
  expect(all).toEqual(byTwo);
});

test('items carry the decided fields, with categories and tags of posts', async () => {
  const items = (await site.send('GET', '/pages?per_page=250')).body;
  const first = items.find((item: { title: string }) => item.title === 'First post');
  expect(first).toEqual({
    id: expect.any(String),
    type: 'post',
    title: 'First post',
    slug: 'first-post',
    url: 'http://localhost:3000/blog/first-post',
    categories: ['Brewing', 'Travel'],
    tags: ['beans'],
    updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
  });
  const product = items.find((item: { type: string }) => item.type === 'product');
  expect(product).toMatchObject({ slug: 'ethiopia-yirgacheffe', categories: ['Coffee'], tags: [] });
  const productCategory = items.find((item: { type: string }) => item.type === 'product_cat');
  expect(productCategory).toMatchObject({
    title: 'Coffee',
    url: 'http://localhost:3000/shop/category/coffee',
  });
});

test("a post's item is what the Document Service reads of its published version, byte for byte", async () => {
  const reply = await site.send('POST', '/posts', {
    title: 'Names in order',
    content: '<p>Body</p>',
    status: 'publish',
    // Two categories the first posts made and one new, so the links are not in creation order.
    categories: ['Travel', 'Origins', 'Brewing'],
    tags: ['roast', 'beans', 'aeropress'],
  });
  expect(reply.status).toBe(200);
  const items = (await site.send('GET', '/pages?per_page=250')).body;
  const item = items.find((listed: { id: string }) => listed.id === reply.body.id);
  const stored = await documentsOf(site.strapi, UIDS.post).findOne({
    documentId: reply.body.id,
    status: 'published',
    populate: { categories: { fields: ['name'] }, tags: { fields: ['name'] } },
  });
  const names = (related: { name: string }[]) => related.map(({ name }) => name);
  expect(names(stored.categories).sort()).toEqual(['Brewing', 'Origins', 'Travel']);
  // The JSON text, so the order of keys and of names counts too.
  expect(JSON.stringify(item)).toBe(
    JSON.stringify({
      id: stored.documentId,
      type: 'post',
      title: 'Names in order',
      slug: 'names-in-order',
      url: 'http://localhost:3000/blog/names-in-order',
      updated_at: stored.updatedAt,
      categories: names(stored.categories),
      tags: names(stored.tags),
    })
  );
});

test('a walk sees every item once while the publisher adds posts and categories', async () => {
  const before = (await site.send('GET', '/pages?per_page=250')).body.map((item: { id: string }) => item.id);
  const seen: string[] = [];
  for (let page = 1; ; page += 1) {
    const reply = await site.send('GET', `/pages?per_page=2&page=${page}`);
    seen.push(...reply.body.map((item: { id: string }) => item.id));
    if (reply.body.length < 2) break;
    // Two new items per page would keep the walk going forever: add during the first pages only.
    if (page > 3) continue;
    await site.send('POST', '/posts', {
      title: `Added during the walk ${page}`,
      content: '<p>New</p>',
      status: 'publish',
      categories: [`New category ${page}`],
    });
  }
  expect(new Set(seen).size).toBe(seen.length);
  for (const id of before) expect(seen).toContain(id);
  expect(seen).toHaveLength(before.length + 6);
});

test('updating a post keeps its place in the order', async () => {
  const items = (await site.send('GET', '/pages?per_page=250')).body;
  const before = items.map((item: { id: string }) => item.id);
  const post = items.find((item: { type: string }) => item.type === 'post');
  const reply = await site.send('PUT', `/posts/${post.id}`, { content: '<p>Edited</p>' });
  expect(reply.status).toBe(200);
  const after = (await site.send('GET', '/pages?per_page=250')).body.map((item: { id: string }) => item.id);
  expect(after).toEqual(before);
});

test('the demo catalogue can take product copy from the publisher', async () => {
  // The copy (a richtext attribute) is compared with the HTML sent, not as Markdown.
  site.strapi.config.set('plugin::publish-bridge.richtextFormat', 'html');
  const items = (await site.send('GET', '/pages?per_page=250')).body;
  const product = items.find((item: { type: string }) => item.type === 'product');
  const reply = await site.send('PUT', `/products/${product.id}`, { description: '<p>Fresh copy</p>' });
  expect(reply.status).toBe(200);
  const stored = await documentsOf(site.strapi, UIDS.product).findOne({
    documentId: product.id,
    status: 'published',
  });
  expect(stored).toMatchObject({ description: '<p>Fresh copy</p>', sku: 'COF-ETH-250', stock: 40 });
});

test('bad paging values answer 400 naming the parameter', async () => {
  for (const query of ['per_page=0', 'per_page=251', 'per_page=-1', 'page=0', 'page=x', 'per_page=']) {
    const reply = await site.send('GET', `/pages?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatch(/per_page|page/);
  }
});

test('a page reads each listed table in order from its index and merges them, never sorting every published row', async () => {
  const { strapi } = site;
  const knex = strapi.db.connection;
  const client = strapi.db.dialect.client;
  const indexes = (serviceOf({ strapi }, 'pages').orderIndexes() as { table: string }[]).map(({ table }) =>
    indexName(table, 'pages')
  );
  const statements: { sql: string; bindings?: unknown[] }[] = [];
  const record = (query: { sql: string; bindings?: unknown[] }) => statements.push(query);
  knex.on('query', record);
  try {
    expect((await site.send('GET', '/pages?per_page=2&page=2')).status).toBe(200);
  } finally {
    knex.off('query', record);
  }
  // The page's keys: a SELECT (the activity log's batched INSERT of earlier requests may run meanwhile).
  const keys = statements.find(({ sql }) => /^\s*select\b/i.test(sql) && /union all/i.test(sql));
  expect(keys).toBeDefined();
  const query = knex.raw(keys!.sql.replace(/\$\d+/g, '?'), keys!.bindings ?? []).toString();

  if (client === 'sqlite') {
    // SQLite merges the members when the ORDER BY is the union's own, each read in order from its
    // index (rows of the same instant are sorted among themselves, not the whole member).
    const plan = JSON.stringify(await knex.raw(`EXPLAIN QUERY PLAN ${query}`));
    expect(plan).toContain('MERGE (UNION ALL)');
    for (const index of indexes) expect(plan).toContain(index);
    expect(plan).not.toContain('TEMP B-TREE FOR ORDER BY');
  } else if (client === 'postgres') {
    // PostgreSQL sorts a whole union: each member must stop after the rows the page needs, read
    // in order from its index. A table of a few rows is read whole whatever its indexes, or read
    // through any index and sorted, so the plan is asked without either choice: an order no index
    // gives still shows as a sort, or as a scan of another index. This test runs before the one that
    // drops and re-creates the posts' index: an index built over a table with updated rows
    // (pg_index.indcheckxmin) is unusable to every query while a transaction older than it runs
    // anywhere in the cluster, as one of another test file often is (that failed CI runs twice).
    const [
      {
        'QUERY PLAN': [{ Plan: plan }],
      },
    ] = await knex.transaction(async (trx: any) => {
      await trx.raw('SET LOCAL enable_seqscan = off');
      await trx.raw('SET LOCAL enable_sort = off');
      return (await trx.raw(`EXPLAIN (FORMAT JSON) ${query}`)).rows;
    });
    type Node = { 'Node Type': string; 'Index Name'?: string; Plans?: Node[] };
    // Every scan of a listed table's index, and whether a limit of its member stops it.
    const scans: { index: string; limited: boolean }[] = [];
    const visit = (node: Node, limited: boolean) => {
      if (node['Index Name']) scans.push({ index: node['Index Name'], limited });
      for (const child of node.Plans ?? [])
        visit(child, limited || (node !== plan && node['Node Type'] === 'Limit'));
    };
    visit(plan, false);
    expect([...new Set(scans.map(({ index }) => index))].sort()).toEqual([...indexes].sort());
    expect(scans.filter(({ limited }) => !limited)).toEqual([]);
  }
});

test('each listed table has the index the walk reads in order, added once, and again when it was dropped', async () => {
  const service = serviceOf(site, 'pages');
  const namesOf = async (table: string): Promise<string[]> =>
    ((await site.strapi.db.dialect.schemaInspector.getIndexes(table)) as { name: string }[])
      .map((index) => index.name)
      .sort();
  const wanted: { table: string; columns: string[] }[] = service.orderIndexes();
  // Posts, blog categories, products and product categories live in four tables here.
  expect(wanted).toHaveLength(4);
  const before = new Map<string, string[]>();
  for (const { table, columns } of wanted) {
    expect(columns.slice(0, 2)).toEqual(['created_at', 'document_id']);
    before.set(table, await namesOf(table));
    expect(before.get(table)).toContain(indexName(table, 'pages'));
  }

  await service.ensureIndexes();
  for (const { table } of wanted) expect(await namesOf(table)).toEqual(before.get(table));

  const { table } = wanted[0];
  await site.strapi.db.connection.schema.alterTable(table, (builder: any) =>
    builder.dropIndex([], indexName(table, 'pages'))
  );
  expect(await namesOf(table)).not.toContain(indexName(table, 'pages'));
  await service.ensureIndexes();
  expect(await namesOf(table)).toEqual(before.get(table));
});

test("a walk's next page starts after the page before, even when an earlier item was deleted in between", async () => {
  const ids = async () =>
    (await site.send('GET', '/pages?per_page=250')).body.map((item: { id: string }) => item.id);
  const added: string[] = [];
  for (const title of ['Walked A', 'Walked B', 'Walked C', 'Walked D']) {
    const reply = await site.send('POST', '/posts', { title, content: '<p>Walked</p>', status: 'publish' });
    expect(reply.status).toBe(200);
    added.push(reply.body.id);
  }
  const all = await ids();
  expect(all.slice(-4)).toEqual(added);
  // Page 1 ends with A and B, page 2 starts with C.
  const perPage = all.length - 2;
  const first = await site.send('GET', `/pages?per_page=${perPage}&page=1`);
  expect(first.body.map((item: { id: string }) => item.id).slice(-2)).toEqual(added.slice(0, 2));

  expect((await site.send('DELETE', `/posts/${added[0]}`)).status).toBe(200);
  // Counted by offset, page 2 would now start at D: the walk would never see C.
  const second = await site.send('GET', `/pages?per_page=${perPage}&page=2`);
  expect(second.body.map((item: { id: string }) => item.id)).toEqual(added.slice(2));
  // A walk begun afterwards sees the list as it is now.
  expect((await walk(perPage)).flat().map((item) => item.id)).toEqual(await ids());
});

test('a walk sees each item once when creation times tie to the microsecond or are missing', async () => {
  const { strapi } = site;
  const added: string[] = [];
  for (const title of ['Same instant A', 'Same instant B', 'Same instant C', 'Undated D', 'Undated E']) {
    const reply = await site.send('POST', '/posts', { title, content: '<p>Timed</p>', status: 'publish' });
    expect(reply.status).toBe(200);
    added.push(reply.body.id);
  }
  // Written outside Strapi, as an import may: a time finer than a JavaScript Date keeps, and none.
  const { table, columns } = (
    serviceOf({ strapi }, 'pages').orderIndexes() as {
      uid: string;
      table: string;
      columns: string[];
    }[]
  ).find(({ uid }) => uid === serviceOf({ strapi }, 'mapping').resource('post').uid)!;
  const [createdAt, documentId] = columns;
  await strapi.db
    .connection(table)
    .whereIn(documentId, added.slice(0, 3))
    .update({ [createdAt]: '2030-01-01 00:00:00.123456' });
  await strapi.db
    .connection(table)
    .whereIn(documentId, added.slice(3))
    .update({ [createdAt]: null });

  const all = (await site.send('GET', '/pages?per_page=250')).body.map((item: { id: string }) => item.id);
  for (const id of added) expect(all).toContain(id);
  for (const perPage of [1, 2, 3]) {
    expect((await walk(perPage)).flat().map((item) => item.id)).toEqual(all);
  }
});

test("a page mixing types keeps each item's own categories and tags, though row ids and names repeat across types", async () => {
  const { strapi } = site;
  // A product category and a tag of the same names as a blog category and a post's tag, so a
  // name on the wrong item would still look plausible; posts' and products' row ids overlap.
  const category = await documentsOf(strapi, UIDS.productCategory).create({
    data: { name: 'Brewing' },
    status: 'published',
  });
  const tags = [];
  for (const name of ['kettles', 'beans'])
    tags.push(await documentsOf(strapi, UIDS.tag).create({ data: { name }, status: 'published' }));
  await documentsOf(strapi, UIDS.product).create({
    data: {
      name: 'Travel Grinder',
      sku: 'GRI-TRV-1',
      categories: [category.documentId],
      tags: tags.map(({ documentId }) => documentId),
    },
    status: 'published',
  });
  const items = (await site.send('GET', '/pages?per_page=250')).body;
  const names = (related: { name: string }[]) => related.map(({ name }) => name);
  const populate = { categories: { fields: ['name'] }, tags: { fields: ['name'] } };
  for (const [type, uid] of [
    ['post', UIDS.post],
    ['product', UIDS.product],
  ]) {
    const listed = items.filter((item: { type: string }) => item.type === type);
    expect(listed.length).toBeGreaterThan(2);
    for (const item of listed) {
      const stored = await documentsOf(strapi, uid).findOne({
        documentId: item.id,
        status: 'published',
        populate,
      });
      expect({ categories: item.categories, tags: item.tags }).toEqual({
        categories: names(stored.categories),
        tags: names(stored.tags),
      });
    }
  }
  const grinder = items.find((item: { title: string }) => item.title === 'Travel Grinder');
  expect(grinder).toMatchObject({ categories: ['Brewing'], tags: ['kettles', 'beans'] });
});

test('a page of posts, categories and products reads its items in three statements, as a page of one type', async () => {
  const knex = site.strapi.db.connection;
  const items = (await site.send('GET', '/pages?per_page=250')).body;
  expect(new Set(items.map((item: { type: string }) => item.type)).size).toBe(4);
  const statements: string[] = [];
  const record = ({ sql }: { sql: string }) => statements.push(sql);
  knex.on('query', record);
  try {
    expect((await site.send('GET', '/pages?per_page=250')).body).toEqual(items);
  } finally {
    knex.off('query', record);
  }
  // The keys, every type's rows, every relation's names; not the i18n settings Strapi reads now
  // and then, nor the activity log's batch of earlier requests.
  const reads = statements.filter(
    (sql) => /^\s*select\b/i.test(sql) && !/strapi_core_store_settings/.test(sql)
  );
  expect(reads).toHaveLength(3);
});

test("a page asks for its items' rows and their names side by side, once it has their keys", async () => {
  // Where a statement waits for the network, a page waits for two round trips after its keys,
  // not three in a row; a page read while publishes run waits behind them at each of them.
  const knex = site.strapi.db.connection;
  const kindOf = (sql: string) =>
    /kind_index/.test(sql)
      ? 'keys'
      : /type_index/.test(sql)
        ? 'rows'
        : /link_set/.test(sql)
          ? 'names'
          : undefined;
  const events: string[] = [];
  const started = ({ sql }: { sql: string }) => kindOf(sql) && events.push(`${kindOf(sql)} asked`);
  const answered = (_response: unknown, { sql }: { sql: string }) =>
    kindOf(sql) && events.push(`${kindOf(sql)} answered`);
  knex.on('query', started);
  knex.on('query-response', answered);
  try {
    expect((await site.send('GET', '/pages?per_page=250')).status).toBe(200);
  } finally {
    knex.off('query', started);
    knex.off('query-response', answered);
  }
  expect(events.slice(0, 2)).toEqual(['keys asked', 'keys answered']);
  expect(events.slice(2, 4).sort()).toEqual(['names asked', 'rows asked']);
  expect(events.slice(4).sort()).toEqual(['names answered', 'rows answered']);
});

/**
 * The page that ends with the first post listed with categories (items after it can fill the
 * page again), asked while `change` runs on the site's own connection, synchronously, right
 * after the first read of the page's keys: deterministic on SQLite. Answers the page, the post's
 * item, and how many times the page's keys were read.
 */
async function pageChangedAfterKeys(
  change: (connection: any, post: { table: string; documentId: string }) => void
) {
  const knex = site.strapi.db.connection;
  const listed: Array<{ id: string; type: string; categories: string[]; tags: string[] }> = (
    await site.send('GET', '/pages?per_page=250')
  ).body;
  const postAt = listed.findIndex(({ type, categories }) => type === 'post' && categories.length > 0);
  const perPage = postAt + 1;
  expect(listed.length).toBeGreaterThan(perPage);
  const { table } = (serviceOf(site, 'pages').orderIndexes() as { uid: string; table: string }[]).find(
    ({ uid }) => uid === serviceOf(site, 'mapping').resource('post').uid
  )!;
  const connection = await knex.client.acquireConnection();
  await knex.client.releaseConnection(connection);
  let keyReads = 0;
  const changeAfterKeys = (_response: unknown, query: { sql: string }) => {
    if (/kind_index/.test(query.sql) && (keyReads += 1) === 1)
      change(connection, { table, documentId: listed[postAt].id });
  };
  knex.on('query-response', changeAfterKeys);
  try {
    const page = await site.send('GET', `/pages?per_page=${perPage}&page=1`);
    return { page: page.body, post: listed[postAt], postAt, perPage, keyReads };
  } finally {
    knex.off('query-response', changeAfterKeys);
  }
}

(testDatabaseClient() === 'sqlite' ? test : test.skip)(
  'a page stays full when one of its items is unpublished between the reads of its keys and its rows',
  async () => {
    // The publisher ends its walk at the first page shorter than per_page: a page missing an
    // item unpublished meanwhile would end it there, and every later item would be missed.
    const { page, post, perPage, keyReads } = await pageChangedAfterKeys(
      (connection, { table, documentId }) =>
        connection
          .prepare(`DELETE FROM "${table}" WHERE document_id = ? AND published_at IS NOT NULL`)
          .run(documentId)
    );
    expect(keyReads).toBe(2);
    const after = (await site.send('GET', '/pages?per_page=250')).body;
    expect(after.map(({ id }: { id: string }) => id)).not.toContain(post.id);
    expect(page).toEqual(after.slice(0, perPage));
  }
);

(testDatabaseClient() === 'sqlite' ? test : test.skip)(
  "a post republished between the reads of a page's keys and its rows is listed with its new row's categories and tags",
  async () => {
    // Strapi's publish replaces the published row by a new one, with new links. The page reads
    // the names by the rows its keys read, beside the rows, and then those of any new row.
    const { page, post, postAt, perPage, keyReads } = await pageChangedAfterKeys(
      (connection, { table, documentId }) => {
        const columnsOf = (name: string, except: string) =>
          (connection.prepare(`PRAGMA table_info("${name}")`).all() as { name: string }[])
            .map(({ name: column }) => column)
            .filter((column) => column !== 'id' && column !== except);
        const { id } = connection
          .prepare(`SELECT id FROM "${table}" WHERE document_id = ? AND published_at IS NOT NULL`)
          .get(documentId);
        const copied = columnsOf(table, 'id')
          .map((column) => `"${column}"`)
          .join(', ');
        connection.transaction(() => {
          const { lastInsertRowid } = connection
            .prepare(`INSERT INTO "${table}" (${copied}) SELECT ${copied} FROM "${table}" WHERE id = ?`)
            .run(id);
          const { uid, fields } = serviceOf(site, 'mapping').resource('post');
          for (const field of ['categories', 'tags']) {
            const join = relationTableOf(site.strapi, uid, fields[field].attribute);
            const kept = columnsOf(join.name, join.joinColumn)
              .map((column) => `"${column}"`)
              .join(', ');
            connection
              .prepare(
                `INSERT INTO "${join.name}" ("${join.joinColumn}", ${kept}) SELECT ?, ${kept} FROM "${join.name}" WHERE "${join.joinColumn}" = ?`
              )
              .run(lastInsertRowid, id);
          }
          connection.prepare(`DELETE FROM "${table}" WHERE id = ?`).run(id);
        })();
      }
    );
    expect(keyReads).toBe(1);
    expect(post.categories.length + post.tags.length).toBeGreaterThan(0);
    expect(page[postAt]).toEqual(post);
    const after = (await site.send('GET', '/pages?per_page=250')).body;
    expect(page).toEqual(after.slice(0, perPage));
  }
);

/**
 * A write transaction on the site's connection that runs `work` and then stays open until its
 * `end()`, which rolls it back and resolves once it has.
 */
async function heldWrite(work: (trx: Trx) => Promise<unknown>) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let began!: () => void;
  const begun = new Promise<void>((resolve) => (began = resolve));
  const rolledBack = new Error('rolled back');
  const write = site.strapi.db
    .transaction(async ({ trx }) => {
      await work(trx);
      began();
      await released;
      throw rolledBack;
    })
    .catch((error: Error) => {
      if (error !== rolledBack) throw error;
    });
  await Promise.race([begun, write]);
  return {
    async end() {
      release();
      await write;
    },
  };
}

(testDatabaseClient() === 'sqlite' ? test : test.skip)(
  "a page is read while a write holds the site's only SQLite connection",
  async () => {
    // SQLite serves the site through one connection, held by a write transaction from its first
    // statement to its commit: the publisher's walk must not wait behind every publish.
    const expected = (await site.send('GET', '/pages?per_page=5')).body;
    const write = await heldWrite(() => site.strapi.db.query(UIDS.post).findOne({ select: ['id'] }));
    const waited = new Promise<'still waiting'>((resolve) =>
      setTimeout(() => resolve('still waiting'), 5_000)
    );
    const page = await Promise.race([site.send('GET', '/pages?per_page=5'), waited]);
    await write.end();
    expect(page === 'still waiting' ? page : page.body).toEqual(expected);
  }
);

(testDatabaseClient() === 'sqlite' ? test : test.skip)(
  'a page waits for a write that holds the SQLite file itself, then is read',
  async () => {
    // A write whose changes outgrow SQLite's page cache spills them into the file, which it then
    // holds exclusively until it ends: no second connection can read it meanwhile.
    const knex = site.strapi.db.connection;
    const expected = (await site.send('GET', '/pages?per_page=5')).body;
    const [{ cache_size: cacheSize }] = await knex.raw('PRAGMA cache_size');
    const write = await heldWrite(async (trx) => {
      await trx.raw('PRAGMA cache_size = 10');
      await trx.raw('CREATE TABLE pb_spilled (bytes BLOB)');
      await trx.raw('INSERT INTO pb_spilled VALUES (randomblob(4000000))');
    });
    const page = site.send('GET', '/pages?per_page=5');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await write.end();
    await knex.raw(`PRAGMA cache_size = ${Number(cacheSize)}`);
    expect((await page).body).toEqual(expected);
  }
);

test("a publish lets the server's other requests in between its database operations: a walk's page is answered during it", async () => {
  // A site whose own lifecycle hooks are slow: 10 ms of work on this thread before each
  // database operation. On SQLite every statement runs on this thread too: but for the turns of
  // the event loop the plugin gives, a request that came during a publish waited for all of it.
  const categoryType = serviceOf(site, 'mapping').resource('blogCategory').uid;
  // The page checks its signature with the connection settings, cached for settingsCacheMs (2 s).
  // Where they expired during the publish, the page read them anew from strapi::core-store
  // through the site's one connection, which the publish holds, and was answered after it (once
  // in a .ci/run and once in six runs of this file beside three busy processes). That wait is
  // the settings cache's, not the turns': they are read afresh here and kept past the publish.
  const restoreSettingsCache = await keepSettingsFresh();
  let page: Promise<unknown> | undefined;
  let answeredFirst: 'page' | 'publish' | undefined;
  const unsubscribe = slowOperations(site.strapi, (event) => {
    // Asked once the publish is under way: as it creates the first of its new categories.
    if (event.action === 'beforeCreate' && event.model.uid === categoryType)
      page ??= site.send('GET', '/pages?per_page=5').then((reply) => {
        answeredFirst ??= 'page';
        return reply.status;
      });
  });
  try {
    const published = await site.send('POST', '/posts', {
      title: 'Published while a walk goes on',
      content: '<p>Body</p>',
      status: 'publish',
      // New names: dozens of operations after the page is asked, each 10 ms, so the page's
      // request has turns to spare (it needs a few: its connection, its bytes, its answer).
      categories: Array.from({ length: 6 }, (_, index) => `Walked past ${index}`),
      tags: Array.from({ length: 6 }, (_, index) => `walked-past-${index}`),
    });
    answeredFirst ??= 'publish';
    expect(published.status).toBe(200);
    expect(await page).toBe(200);
  } finally {
    unsubscribe();
    restoreSettingsCache();
  }
  expect(answeredFirst).toBe('page');
});

/**
 * Has the connection settings read anew and kept for a minute: the copy cached before expires
 * after settingsCacheMs, and the next request reads them. Returns what puts the cache time back.
 */
async function keepSettingsFresh(): Promise<() => void> {
  const option = 'plugin::publish-bridge.settingsCacheMs';
  const cacheMs = Number(site.strapi.config.get(option));
  site.strapi.config.set(option, 60_000);
  await new Promise((resolve) => setTimeout(resolve, cacheMs + 50));
  expect((await site.send('GET', '/pages?per_page=1')).status).toBe(200);
  return () => site.strapi.config.set(option, cacheMs);
}
