import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PREFIX, type Reply } from '../helpers/site';
import { createTestDatabase, testDatabaseClient, type TestDatabase } from '../helpers/databases';
import { startInstance, type Instance } from '../helpers/instances';
import { recordTally, serverErrorsIn } from '../helpers/tally';

/**
 * Two Strapi processes of the example site on one database server, as behind a load
 * balancer, with requests alternating between them: the no-duplicate guarantees hold across
 * processes, and a key or capability saved through one instance is honoured by the other
 * once its settings cache (settingsCacheMs, 2 s by default) has expired.
 */
const db = testDatabaseClient();
/** SQLite is a file of one process's own: two processes writing it is not a deployment it serves. */
const describeOnServers = db === 'sqlite' ? describe.skip : describe;
const PARALLEL = 50;
/** Well above settingsCacheMs: how long the instances may disagree before the test fails. */
const CONVERGENCE_LIMIT_MS = 10_000;

const unique = () => randomBytes(4).toString('hex');
const caseVariant = (name: string, index: number) =>
  [name, name.toLowerCase(), name.toUpperCase()][index % 3];

/** Every reply a 200, all naming one id: returns it. */
function expectAllOkWithOneId(replies: Reply[]) {
  expect(replies.filter((reply) => reply.status !== 200).map((reply) => [reply.status, reply.body])).toEqual(
    []
  );
  const ids = new Set(replies.map((reply) => reply.body.id));
  expect(ids.size).toBe(1);
  return [...ids][0];
}

describeOnServers(
  "two instances on one database (PostgreSQL and MariaDB only, SQLite is one process's file: run with npm run test:postgres or test:mariadb)",
  () => {
    let database: TestDatabase;
    let a: Instance;
    let b: Instance;
    /** The instances start without PUBLISH_BRIDGE_API_KEY, so the key lives in the database and can change. */
    let key = `pb_instances_${unique()}_0123456789abcdef`;

    beforeAll(async () => {
      database = await createTestDatabase();
      const env = {
        ...database.env,
        PUBLISH_BRIDGE_API_KEY: '',
        PUBLISH_BRIDGE_CONTENT_TYPES: 'site',
        PUBLISH_BRIDGE_SCHEDULING_POLL_MS: '200',
      };
      // One after the other: the first creates the schema.
      a = await startInstance(env);
      b = await startInstance(env);
      await a.call('updateSettings', { connectionKey: { value: key, graceMs: 0 } });
      await untilBoth(
        async (instance) => (await instance.send('POST', '/handshake', {}, { key })).status === 200
      );
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await database?.drop();
    });

    const both = () => [a, b];
    const alternating = (count: number, request: (instance: Instance, index: number) => Promise<Reply>) =>
      Promise.all(Array.from({ length: count }, (_, index) => request(index % 2 ? b : a, index)));

    /** Polls until `condition` holds on both instances; fails if it does not within CONVERGENCE_LIMIT_MS. */
    async function untilBoth(condition: (instance: Instance) => Promise<boolean>) {
      const deadline = Date.now() + CONVERGENCE_LIMIT_MS;
      for (;;) {
        const results = await Promise.all(both().map(condition));
        if (results.every(Boolean)) return;
        if (Date.now() > deadline)
          throw new Error(`the instances still disagree after ${CONVERGENCE_LIMIT_MS} ms: ${results}`);
        await sleep(200);
      }
    }

    test(`${PARALLEL} publishes of one new source_id, alternating between the instances, make one post`, async () => {
      const prefix = `inst-${unique()}-`;
      const replies = await alternating(PARALLEL, (instance, index) =>
        instance.send(
          'POST',
          '/posts',
          {
            title: `Two instances ${index}`,
            content: '<p>x</p>',
            status: 'publish',
            source_id: `${prefix}0`,
          },
          { key }
        )
      );
      const id = expectAllOkWithOneId(replies);
      const [documents] = await b.call<Array<Array<{ documentId: string }>>>('postsBySourceId', prefix, 1);
      recordTally({
        test: 'two instances: posts by source_id',
        requests: PARALLEL,
        duplicates: documents.length - 1,
        serverErrors: serverErrorsIn(replies),
      });
      expect(documents.map((document) => document.documentId)).toEqual([id]);
    });

    test(`${PARALLEL} posts sharing new category names (mixed case), alternating, create each name once`, async () => {
      const run = unique();
      const shared = [`Across ${run}`, `Instances ${run}`];
      const prefix = `inst-shared-${run}-`;
      const replies = await alternating(PARALLEL, (instance, index) =>
        instance.send(
          'POST',
          '/posts',
          {
            title: `Shared ${run} ${index}`,
            content: '<p>x</p>',
            status: 'publish',
            source_id: `${prefix}${index}`,
            categories: shared.map((name) => caseVariant(name, index)),
            author: caseVariant(`Author ${run}`, index),
          },
          { key }
        )
      );
      expect(
        replies.filter((reply) => reply.status !== 200).map((reply) => [reply.status, reply.body])
      ).toEqual([]);
      const counts = await Promise.all([
        ...shared.map((name) => a.call<number>('countNamed', 'blogCategory', name)),
        a.call<number>('countNamed', 'author', `Author ${run}`),
      ]);
      recordTally({
        test: 'two instances: shared category and author names',
        requests: PARALLEL,
        duplicates: counts.reduce((sum, count) => sum + Math.max(0, count - 1), 0),
        serverErrors: serverErrorsIn(replies),
      });
      expect(counts).toEqual([1, 1, 1]);
      const posts = await a.call<Array<Array<{ categories: string[] }>>>('postsBySourceId', prefix, PARALLEL);
      expect(posts.map((found) => found.length)).toEqual(Array(PARALLEL).fill(1));
    });

    test(`${PARALLEL} POST /blog-categories and /product-categories, alternating, create one of each`, async () => {
      const run = unique();
      const categories = await alternating(PARALLEL, (instance, index) =>
        instance.send('POST', '/blog-categories', { name: caseVariant(`Blog ${run}`, index) }, { key })
      );
      const productCategories = await alternating(PARALLEL, (instance, index) =>
        instance.send(
          'POST',
          '/product-categories',
          { name: `Shop ${run} ${index}`, source_id: `inst-pcat-${run}` },
          { key }
        )
      );
      expectAllOkWithOneId(categories);
      expectAllOkWithOneId(productCategories);
      const count = await b.call<number>('countNamed', 'blogCategory', `Blog ${run}`);
      recordTally({
        test: 'two instances: blog and product categories',
        requests: PARALLEL * 2,
        duplicates: count - 1,
        serverErrors: serverErrorsIn([...categories, ...productCategories]),
      });
      expect(count).toBe(1);
    });

    test('posts scheduled through both instances are each published once, by one of them, at their date', async () => {
      const prefix = `sched-${unique()}-`;
      // Far enough ahead that ten writes on a loaded machine land before it.
      const due = new Date(Math.ceil((Date.now() + 6_000) / 1000) * 1000);
      const date = due.toISOString().slice(0, 19).replace('T', ' ');
      const replies = await alternating(10, (instance, index) =>
        instance.send(
          'POST',
          '/posts',
          {
            title: `Scheduled ${index}`,
            content: '<p>x</p>',
            status: 'publish',
            date,
            source_id: `${prefix}${index}`,
          },
          { key }
        )
      );
      expect(replies.filter((reply) => reply.status !== 200)).toEqual([]);
      expect(await a.call('postsCount', prefix, 'published')).toBe(0);
      // Both instances' timers (every 200 ms) race for every post from its date on; they take
      // the due posts in the same order, one at a time, which on a loaded machine takes seconds.
      await sleep(due.getTime() - Date.now());
      await untilBoth(async (instance) => (await instance.call('postsCount', prefix, 'published')) === 10);
      expect(await b.call('postsCount', prefix, 'draft')).toBe(10);
    });

    test('a capability switched off through one instance is refused by the other within seconds, and back on', async () => {
      const deleteAnswer = async (instance: Instance) =>
        (await instance.send('DELETE', '/posts/no-such-post', undefined, { key })).status;
      await untilBoth(async (instance) => (await deleteAnswer(instance)) === 404);

      await a.call('updateSettings', { capabilities: { 'posts.delete': false } });
      await untilBoth(async (instance) => (await deleteAnswer(instance)) === 403);
      const handshake = await b.send('POST', '/handshake', {}, { key });
      expect(handshake.body.capabilities).not.toContain('posts.delete');

      await b.call('updateSettings', { capabilities: { 'posts.delete': true } });
      await untilBoth(async (instance) => (await deleteAnswer(instance)) === 404);
    });

    test('a connection key changed through one instance is the only key both accept within seconds', async () => {
      const previous = key;
      key = `pb_instances_${unique()}_fedcba9876543210`;
      await a.call('updateSettings', { connectionKey: { value: key, graceMs: 0 } });
      await untilBoth(async (instance) => {
        const [withNew, withOld] = await Promise.all([
          instance.send('POST', '/handshake', {}, { key }),
          instance.send('POST', '/handshake', {}, { key: previous }),
        ]);
        return withNew.status === 200 && withOld.status === 401;
      });
    });
  }
);

describeOnServers(
  'two instances, each with two connections (en, fr) whose keys come from the environment',
  () => {
    const KEYS = {
      en: `pb_en_${unique()}_0123456789abcdef0123456789`,
      fr: `pb_fr_${unique()}_0123456789abcdef0123456789`,
    };
    let database: TestDatabase;
    let a: Instance;
    let b: Instance;

    beforeAll(async () => {
      database = await createTestDatabase();
      const env = {
        ...database.env,
        PUBLISH_BRIDGE_CONTENT_TYPES: 'site',
        PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: {} }),
        PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
        PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
      };
      // One after the other: the first creates the schema.
      a = await startInstance(env);
      b = await startInstance(env);
    });
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await database?.drop();
    });

    const post = (index: number, sourceId: string) => ({
      title: `Connections ${index}`,
      content: '<p>x</p>',
      status: 'publish',
      source_id: sourceId,
    });

    test(`${PARALLEL} publishes of one new source_id on fr, alternating, make one post; the same source_id on en makes another`, async () => {
      const prefix = `conn-${unique()}-`;
      const sourceId = `${prefix}0`;
      const fr = await Promise.all(
        Array.from({ length: PARALLEL }, (_, index) =>
          (index % 2 ? b : a).send('POST', '/fr/posts', post(index, sourceId), { key: KEYS.fr })
        )
      );
      const frId = expectAllOkWithOneId(fr);
      const [afterFr] = await b.call<Array<Array<{ documentId: string }>>>('postsBySourceId', prefix, 1);
      recordTally({
        test: 'two instances, two connections: posts by source_id',
        requests: PARALLEL,
        duplicates: afterFr.length - 1,
        serverErrors: serverErrorsIn(fr),
      });
      expect(afterFr.map((document) => document.documentId)).toEqual([frId]);

      const en = await Promise.all(
        [a, b].map((instance) => instance.send('POST', '/en/posts', post(0, sourceId), { key: KEYS.en }))
      );
      const enId = expectAllOkWithOneId(en);
      expect(enId).not.toBe(frId);
      const [afterEn] = await a.call<Array<Array<{ documentId: string }>>>('postsBySourceId', prefix, 1);
      expect(afterEn.map((document) => document.documentId).sort()).toEqual([frId, enId].sort());
    });

    test("en's key is refused (401) at fr's base URL on both instances, and fr's at en's", async () => {
      for (const instance of [a, b]) {
        const replies = await Promise.all([
          instance.send('POST', '/fr/handshake', {}, { key: KEYS.en }),
          instance.send('POST', '/fr/posts', post(0, `refused-${unique()}`), { key: KEYS.en }),
          instance.send('POST', '/en/handshake', {}, { key: KEYS.fr }),
        ]);
        expect(replies.map((reply) => [reply.status, typeof reply.body.error])).toEqual([
          [401, 'string'],
          [401, 'string'],
          [401, 'string'],
        ]);
      }
    });

    test('every activity row either instance wrote names the connection whose base URL the request came to', async () => {
      await Promise.all([a, b].map((instance) => instance.call('pluginService', 'activity-writer', 'flush')));
      const rows = await a.call<
        Array<{
          connection: string | null;
          path: string;
          refusal: string | null;
          outcome: string;
          count: number | null;
        }>
      >('query', 'plugin::publish-bridge.activity-entry', 'findMany', {});
      expect(rows.filter((row) => !row.path.startsWith(`${PREFIX}/${row.connection}/`))).toEqual([]);
      // Refusals are counted per minute, reason and address (the row keeps the first one's path).
      const tally: Record<string, number> = {};
      for (const row of rows) {
        const key = row.refusal
          ? `${row.connection} ${row.refusal}`
          : `${row.connection} ${row.path} ${row.outcome}`;
        tally[key] = (tally[key] ?? 0) + (row.count ?? 1);
      }
      expect(tally).toEqual({
        [`fr ${PREFIX}/fr/posts success`]: PARALLEL,
        [`en ${PREFIX}/en/posts success`]: 2,
        'fr wrong_key': 4,
        'en wrong_key': 2,
      });
    });
  }
);
