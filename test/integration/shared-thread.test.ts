import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';
import knex from 'knex';
import { serviceOf, startSite, useSite } from '../helpers/site';
import { documentsOf } from '../helpers/inspect';
import { testDatabaseClient } from '../helpers/databases';
import { slowOperations } from '../helpers/timing';

// On SQLite the plugin's work gives the event loop a turn every few milliseconds
// (transactions.shareTheThread; pages.test shows a page answered during a publish). These are
// the sites where a turn would hurt. SQLite's alone: its driver runs on the server's thread.
const onSqlite = testDatabaseClient() === 'sqlite' ? describe : describe.skip;

/** Runs outside any request's and the plugin's async context, as an editor's request or a SIGTERM does. */
const outside = AsyncLocalStorage.snapshot();

onSqlite('a SQLite site whose pool holds two connections', () => {
  const site = useSite(
    {},
    { beforeLoad: (strapi) => strapi.config.set('database.connection.pool', { min: 1, max: 2 }) }
  );

  test("an editor's save during a publish is neither refused nor held: the plugin gives no turn holding the write lock", async () => {
    expect((site.strapi.db.connection.client as { pool: { max: number } }).pool.max).toBe(2);
    const postType = serviceOf(site, 'mapping').resource('post').uid;
    type Outcome = { ok: boolean; ms: number; error?: string };
    let editorSave: Promise<Outcome> | undefined;
    const unsubscribe = slowOperations(site.strapi, (event) => {
      // The save arrives as the publish creates its post, holding SQLite's write lock.
      if (event.action !== 'beforeCreate' || event.model.uid !== postType || editorSave) return;
      editorSave = new Promise<Outcome>((resolve) =>
        outside(() =>
          setImmediate(() => {
            const started = performance.now();
            documentsOf(site.strapi, 'api::category.category')
              .create({ data: { name: 'Saved by an editor meanwhile' } })
              .then(
                () => resolve({ ok: true, ms: performance.now() - started }),
                (error: Error) =>
                  resolve({ ok: false, ms: performance.now() - started, error: error.message })
              );
          })
        )
      );
    });
    try {
      const published = await site.send('POST', '/posts', {
        title: 'Published while an editor saves',
        content: '<p>Body</p>',
        status: 'publish',
        categories: ['Brewing'],
      });
      expect(published.status).toBe(200);
      // With a turn given, the save waited SQLite's busy timeout (5 s) on the thread and failed.
      const saved = await editorSave;
      expect(saved).toMatchObject({ ok: true });
      expect(saved!.ms).toBeLessThan(2_000);
    } finally {
      unsubscribe();
    }
  });
});

onSqlite('Strapi stopping while a publish runs', () => {
  test('the publish ends first: it answers, and every row it commits went through the lifecycle hooks', async () => {
    const site = await startSite();
    const { strapi } = site;
    let stopping: Promise<void> | undefined;
    slowOperations(strapi, (event) => {
      // Strapi is asked to stop (SIGTERM) as the publish makes its first entry.
      if (event.action !== 'beforeCreate' || stopping) return;
      stopping = new Promise((resolve, reject) =>
        outside(() => setImmediate(() => strapi.destroy().then(resolve, reject)))
      );
    });
    let reply: number | string;
    try {
      reply = await site
        .send('POST', '/posts', {
          title: 'Published as the site stops',
          content: '<p>Body</p>',
          status: 'publish',
          categories: ['Brand new category', 'Another new one'],
          tags: ['brand-new-tag', 'another-new-tag'],
        })
        .then(
          (answer) => answer.status,
          (error: Error) => `no answer: ${error.message}`
        );
      await stopping;
    } finally {
      if (!stopping) await strapi.destroy();
    }
    // The site's connections are closed: its file is read through one of this test's own.
    const file = knex({
      client: 'better-sqlite3',
      connection: { filename: site.database.env.DATABASE_FILENAME! },
      useNullAsDefault: true,
    });
    const tables = ['publish_bridge_posts', 'publish_bridge_blog_categories', 'publish_bridge_tags'];
    const undated = await Promise.all(
      tables.map(async (table) =>
        Number((await file(table).whereNull('created_at').orWhereNull('updated_at').count({ n: '*' }))[0].n)
      )
    );
    const posts = Number((await file('publish_bridge_posts').count({ n: '*' }))[0].n);
    await file.destroy();
    await site.database.drop();
    expect(stopping).toBeDefined();
    expect(reply).toBe(200);
    expect(posts).toBe(2);
    expect(undated).toEqual([0, 0, 0]);
  });
});
