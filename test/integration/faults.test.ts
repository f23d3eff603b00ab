import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSite, type Reply, type Site } from '../helpers/site';
import { PG, testDatabaseClient } from '../helpers/databases';
import {
  captureServerErrors,
  identityRows,
  rowsNamed,
  rowsOf,
  snapshotTables,
  storageOf,
} from '../helpers/inspect';
import { recordTally, serverErrorsIn } from '../helpers/tally';
import { storedKey } from '../../server/src/services/identities';

/**
 * The database dropping the site's connections mid-request (what a failover or restart does to
 * it) gives a 5xx `{ error }` or a success after a retry, never half a write, and the site
 * works again as soon as the database does. PostgreSQL only: `pg_terminate_backend` and
 * `ALLOW_CONNECTIONS` act on this test's database alone, so other tests running at the same
 * time keep theirs.
 */
const db = testDatabaseClient();
const describeOnPostgres = db === 'postgres' ? describe : describe.skip;
const PLUGIN = 'publish-bridge';

const unique = () => randomBytes(4).toString('hex');

describeOnPostgres(
  'database faults (PostgreSQL only: run with TEST_DB=postgres or npm run test:postgres)',
  () => {
    const { Client } = require('pg');
    let site: Site;
    let admin: any;
    let databaseName: string;

    beforeAll(async () => {
      site = await startSite();
      captureServerErrors(site.strapi, { quiet: true });
      databaseName = site.database.env.DATABASE_NAME;
      admin = new Client({ ...PG, database: 'postgres' });
      await admin.connect();
    });
    afterAll(async () => {
      await admin?.query(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`).catch(() => undefined);
      await admin?.end();
      await site?.stop();
    });

    /** Ends every connection the site has open to its database, as a restart would. */
    const terminateSiteConnections = async () =>
      (
        await admin.query(
          'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [databaseName]
        )
      ).rowCount as number;

    const publish = (run: string, index: number) =>
      site.send('POST', '/posts', {
        title: `Fault ${run} ${index}`,
        content: '<p>x</p>',
        status: 'publish',
        source_id: `fault-${run}-${index}`,
        categories: [`Fault Shared ${run}`, `Fault Own ${run} ${index}`],
      });

    /** A failure answers the contract's error shape; a success answers an id. */
    function expectWholeAnswers(replies: Reply[]) {
      for (const reply of replies) {
        if (reply.status >= 500) expect(reply.body).toEqual({ error: expect.stringMatching(/request id/) });
        else expect([reply.status, typeof reply.body.id]).toEqual([200, 'string']);
      }
    }

    /**
     * Every publish is all or nothing: a post that exists carries both its categories and its
     * source_id link, and a publish that answered 200 exists. Names and links point at
     * entities that exist.
     */
    async function expectNoPartialWrites(run: string, replies: Reply[]) {
      const post = storageOf(site.strapi, 'post');
      const category = storageOf(site.strapi, 'blogCategory');
      const links = await identityRows(site.strapi, post.registry);
      for (const [index, reply] of replies.entries()) {
        const sourceId = `fault-${run}-${index}`;
        const stored = (await site.strapi.documents(post.uid as never).findMany({
          filters: { [post.attribute('source_id')]: sourceId },
          populate: { [post.attribute('categories')]: { fields: [category.nameField] } },
        } as never)) as any[];
        if (reply.status === 200) expect(stored.map((entry) => entry.documentId)).toEqual([reply.body.id]);
        expect(stored.length).toBeLessThanOrEqual(1);
        for (const entry of stored) {
          const names = entry[post.attribute('categories')]
            .map((named: any) => named[category.nameField])
            .sort();
          expect(names).toEqual([`Fault Own ${run} ${index}`, `Fault Shared ${run}`]);
          expect(links.filter((link) => link.naturalKey === storedKey(`source:${sourceId}`))).toHaveLength(1);
        }
        if (stored.length === 0) {
          expect(
            await rowsNamed(site.strapi, category.uid, category.nameField, `Fault Own ${run} ${index}`)
          ).toEqual([]);
        }
      }
      const shared = await rowsNamed(site.strapi, category.uid, category.nameField, `Fault Shared ${run}`);
      expect(shared.length).toBe(
        replies.some((reply) => reply.status === 200) ? 1 : Math.min(shared.length, 1)
      );
      const identities = await identityRows(site.strapi);
      const documentsById = new Set<string>();
      for (const kind of ['post', 'blogCategory', 'tag', 'author', 'product', 'productCategory'] as const) {
        for (const row of await rowsOf(site.strapi, storageOf(site.strapi, kind).uid))
          documentsById.add(row.documentId);
      }
      expect(identities.filter((row) => !documentsById.has(row.target))).toEqual([]);
    }

    async function expectSiteRecovered(run: string) {
      const after = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          site.send('POST', '/posts', {
            title: `Recovered ${run} ${index}`,
            content: '<p>back</p>',
            status: 'publish',
            categories: [`Fault Shared ${run}`],
          })
        )
      );
      expect(after.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200]);
    }

    test('a connection killed in the middle of a publish: no partial write, and the next requests succeed', async () => {
      const run = unique();
      const taxonomy = site.strapi.plugin(PLUGIN).service('taxonomy') as Record<string, any>;
      const original = taxonomy.findOrCreate;
      let killed = 0;
      taxonomy.findOrCreate = async function (this: unknown, transaction: { trx: any }, ...rest: unknown[]) {
        const result = await original.call(this, transaction, ...rest);
        if (killed === 0) {
          // The transaction has written a category; its connection dies before the post is stored.
          const { rows } = await transaction.trx.raw('SELECT pg_backend_pid() AS pid');
          killed = (await admin.query('SELECT pg_terminate_backend($1)', [rows[0].pid])).rowCount;
        }
        return result;
      };
      const before = await snapshotTables(site.strapi);
      let reply: Reply;
      try {
        reply = await publish(run, 0);
      } finally {
        taxonomy.findOrCreate = original;
      }

      expect(killed).toBe(1);
      expectWholeAnswers([reply]);
      if (reply.status !== 200) expect(await snapshotTables(site.strapi)).toEqual(before);
      await expectNoPartialWrites(run, [reply]);
      recordTally({
        test: 'connection killed mid-publish',
        requests: 1,
        serverErrors: serverErrorsIn([reply]),
      });
      await expectSiteRecovered(run);
    });

    test('every connection of the site killed again and again during 30 parallel publishes', async () => {
      const run = unique();
      let kills = 0;
      const pending = Promise.all(Array.from({ length: 30 }, (_, index) => publish(run, index)));
      // Like a flapping database: every connection dropped every few dozen ms for a while.
      const stormUntil = Date.now() + 1500;
      while (Date.now() < stormUntil) {
        kills += await terminateSiteConnections();
        await sleep(40 + Math.random() * 80);
      }
      const replies = await pending;

      expect(kills).toBeGreaterThan(0);
      expectWholeAnswers(replies);
      await expectNoPartialWrites(run, replies);
      recordTally({
        test: 'connections killed during 30 publishes',
        requests: 30,
        serverErrors: serverErrorsIn(replies),
      });
      await expectSiteRecovered(run);
    });

    test('the database refusing connections for a while: requests fail whole or wait, and work once it is back', async () => {
      const run = unique();
      await admin.query(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS false`);
      await terminateSiteConnections();
      const pending = Promise.all(Array.from({ length: 5 }, (_, index) => publish(run, index)));
      await sleep(1500);
      await admin.query(`ALTER DATABASE ${databaseName} ALLOW_CONNECTIONS true`);
      const replies = await pending;

      expectWholeAnswers(replies);
      await expectNoPartialWrites(run, replies);
      recordTally({
        test: 'database refusing connections',
        requests: 5,
        serverErrors: serverErrorsIn(replies),
      });
      await expectSiteRecovered(run);
    });
  }
);
