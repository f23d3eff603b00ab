import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { testDatabaseClient } from '../helpers/databases';
import { fullPost } from '../helpers/fixtures';
import { documentsOf, storageOf } from '../helpers/inspect';
import { useSite } from '../helpers/site';

/**
 * A write of the plugin that the database picks as a deadlock's victim in the middle of a
 * Document Service update is run again, as any deadlock is. Strapi's update (the entity
 * manager of @strapi/database) writes the row first and its relations after; when the relation
 * write fails, it writes the row back as it read it, raw, and that write fails in its turn: on
 * MariaDB, whose driver reads a json column as an array, with a syntax error; on PostgreSQL with
 * "current transaction is aborted". Its error replaced the deadlock, and two connections
 * updating posts with shared tags at once answered 500 (one run in three of the conformance
 * checks on MariaDB). SQLite takes no row locks, so it has no deadlock to make.
 */
const db = testDatabaseClient();
const DEADLOCK_CODES = new Set(['ER_LOCK_DEADLOCK', '40P01']);
const BALLAST = 'pb_test_deadlock_ballast';

const site = useSite();

type Meta = {
  tableName: string;
  attributes: Record<string, { joinTable?: { name: string; joinColumn: { name: string } } }>;
};

/** Per server: how the other session makes the site's request the deadlock's victim, and how it sees that request wait. */
const SESSIONS = {
  mariadb: {
    // InnoDB rolls back the lighter side of a deadlock: rows written make this session the heavier one.
    prepare: async (holder: Knex.Transaction) => {
      await holder(BALLAST).insert(Array.from({ length: 2_000 }, (_, n) => ({ n })));
    },
    lockWaiters: async (knex: Knex) =>
      (
        (await knex.raw(
          "SELECT trx_query AS query FROM information_schema.innodb_trx WHERE trx_state = 'LOCK WAIT'"
        )) as [Array<{ query: string | null }>]
      )[0],
  },
  postgres: {
    // PostgreSQL's deadlock check runs in the session that waited deadlock_timeout first: the site's request.
    prepare: async (holder: Knex.Transaction) => {
      await holder.raw("SET LOCAL deadlock_timeout = '30s'");
    },
    lockWaiters: async (knex: Knex) =>
      (
        (await knex.raw(
          "SELECT query FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )) as { rows: Array<{ query: string | null }> }
      ).rows,
  },
};
const session = SESSIONS[db as keyof typeof SESSIONS] as (typeof SESSIONS)['mariadb'] | undefined;

/** Resolves once a session waits for a lock with a statement on `table`. */
async function someoneWaitsOn(knex: Knex, table: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const waiters = await session!.lockWaiters(knex);
    if (waiters.some((waiter) => waiter.query?.includes(table))) return;
    // MariaDB refreshes information_schema.innodb_trx only when nobody read it for 100 ms.
    await sleep(200);
  }
  throw new Error(`no session waited for a lock on ${table}`);
}

(session ? test : test.skip)(
  "a full update picked as a deadlock's victim while Strapi writes its relations: retried, 200",
  async () => {
    const knex = site.strapi.db.connection as unknown as Knex;
    const post = storageOf(site.strapi, 'post');
    const meta = site.strapi.db.metadata.get(post.uid as never) as unknown as Meta;
    const tags = meta.attributes[post.attribute('tags')].joinTable!;

    const created = await site.send('POST', '/posts', fullPost({ source_id: 'deadlock-victim' }));
    expect(created.status).toBe(200);
    const draft = await documentsOf(site.strapi, post.uid).findOne({ documentId: created.body.id });

    const deadlocks: unknown[] = [];
    const onQueryError = (error: { code?: string }) => {
      if (DEADLOCK_CODES.has(String(error?.code))) deadlocks.push(error);
    };
    knex.on('query-error', onQueryError);
    await knex.schema.dropTableIfExists(BALLAST);
    await knex.schema.createTable(BALLAST, (table) => {
      table.increments('id');
      table.integer('n');
    });
    try {
      const update = fullPost({
        title: 'Victim, updated',
        tags: ['victim-tag'],
        source_id: 'deadlock-victim',
      });
      const holder = await knex.transaction();
      let reply: ReturnType<typeof site.send> | undefined;
      try {
        await session!.prepare(holder);
        // The draft's tag links, which Strapi's update replaces after it wrote the draft's row.
        await holder(tags.name).where(tags.joinColumn.name, draft.id).forUpdate().select('*');
        reply = site.send('PUT', `/posts/${created.body.id}`, update);
        await someoneWaitsOn(knex, tags.name);
        // The site's request holds the draft's row and waits for its links: this closes the cycle.
        await holder(meta.tableName).where({ id: draft.id }).update({ title: 'Held by another session' });
      } finally {
        await holder.rollback();
      }

      const answered = await reply!;
      expect(deadlocks.length).toBeGreaterThan(0);
      expect({ status: answered.status, body: answered.body }).toEqual({
        status: 200,
        body: { id: created.body.id, url: expect.any(String) },
      });
      const written = await documentsOf(site.strapi, post.uid).findOne({
        documentId: created.body.id,
        status: 'published',
        populate: [post.attribute('tags')],
      });
      expect(written.title).toBe('Victim, updated');
      expect(written[post.attribute('tags')].map((tag: { name: string }) => tag.name)).toEqual([
        'victim-tag',
      ]);
    } finally {
      knex.off('query-error', onQueryError);
      await knex.schema.dropTableIfExists(BALLAST);
    }
  },
  60_000
);
