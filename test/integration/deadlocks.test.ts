import { setTimeout as sleep } from 'node:timers/promises';
import type { Knex } from 'knex';
import { testDatabaseClient } from '../helpers/databases';
import { fullPost } from '../helpers/fixtures';
import { documentsOf, storageOf, UIDS } from '../helpers/inspect';
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
    // This site's database only: other test files' sites run on the same server meanwhile.
    lockWaiters: async (knex: Knex) =>
      (
        (await knex.raw(
          `SELECT trx.trx_query AS query FROM information_schema.innodb_trx trx
             JOIN information_schema.processlist session ON session.id = trx.trx_mysql_thread_id
           WHERE trx.trx_state = 'LOCK WAIT' AND session.db = DATABASE()`
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

/**
 * Resolves once the site's connection has run a statement matching `sql` (its answer came back):
 * a lock it took is then held. Call it before the work starts.
 */
function siteRan(knex: Knex, sql: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const onResponse = (_response: unknown, query: { sql?: string }) => {
      if (!sql.test(String(query?.sql))) return;
      done();
      resolve();
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`the site ran no statement matching ${sql}`));
    }, 20_000);
    const done = () => {
      clearTimeout(timer);
      knex.off('query-response', onResponse);
    };
    knex.on('query-response', onResponse);
  });
}

/**
 * Runs `work` with a ballast table for the holding session, and returns the statements the
 * database picked as deadlocks' victims meanwhile.
 */
async function deadlocksDuring(knex: Knex, work: () => Promise<void>): Promise<string[]> {
  const deadlocks: string[] = [];
  const onQueryError = (error: { code?: string }, query: { sql?: string }) => {
    if (DEADLOCK_CODES.has(String(error?.code))) deadlocks.push(String(query?.sql));
  };
  knex.on('query-error', onQueryError);
  await knex.schema.dropTableIfExists(BALLAST);
  await knex.schema.createTable(BALLAST, (table) => {
    table.increments('id');
    table.integer('n');
  });
  try {
    await work();
    return deadlocks;
  } finally {
    knex.off('query-error', onQueryError);
    await knex.schema.dropTableIfExists(BALLAST);
  }
}

/**
 * Starts work on the site (a request, a Document Service call) while another session holds a
 * lock the work waits for (`hold`), then, once the work holds a lock of its own (`closeWhen`), has
 * that session take it (`close`): a deadlock, whose victim is the site's work, the lighter side.
 * The other session then rolls back; the work's outcome.
 */
async function intoDeadlock<T>(
  knex: Knex,
  start: () => Promise<T>,
  {
    hold,
    closeWhen,
    close,
  }: {
    hold: (holder: Knex.Transaction) => Promise<unknown>;
    closeWhen: () => Promise<void>;
    close: (holder: Knex.Transaction) => Promise<unknown>;
  }
) {
  const holder = await knex.transaction();
  let outcome: Promise<T> | undefined;
  try {
    await session!.prepare(holder);
    await hold(holder);
    outcome = start();
    // Settled by the caller; a failure must not go unhandled meanwhile.
    outcome.catch(() => {});
    await closeWhen();
    await close(holder);
  } finally {
    await holder.rollback();
  }
  return outcome!;
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

    let answered: Awaited<ReturnType<typeof site.send>> | undefined;
    const deadlocks = await deadlocksDuring(knex, async () => {
      const update = fullPost({
        title: 'Victim, updated',
        tags: ['victim-tag'],
        source_id: 'deadlock-victim',
      });
      answered = await intoDeadlock(knex, () => site.send('PUT', `/posts/${created.body.id}`, update), {
        // The draft's tag links, which Strapi's update replaces after it wrote the draft's row.
        hold: (holder) => holder(tags.name).where(tags.joinColumn.name, draft.id).forUpdate().select('*'),
        closeWhen: () => someoneWaitsOn(knex, tags.name),
        // The site's request holds the draft's row and waits for its links: this closes the cycle.
        close: (holder) =>
          holder(meta.tableName).where({ id: draft.id }).update({ title: 'Held by another session' }),
      });
    });

    expect(deadlocks.length).toBeGreaterThan(0);
    expect({ status: answered!.status, body: answered!.body }).toEqual({
      status: 200,
      body: { id: created.body.id, url: expect.any(String) },
    });
    const written = await documentsOf(site.strapi, post.uid).findOne({
      documentId: created.body.id,
      status: 'published',
      populate: [post.attribute('tags')],
    });
    expect(written.title).toBe('Victim, updated');
    expect(written[post.attribute('tags')].map((tag: { name: string }) => tag.name)).toEqual(['victim-tag']);
  },
  60_000
);

type ColumnsMeta = Meta & { attributes: Record<string, { columnName?: string }> };
const columnOf = (meta: ColumnsMeta, attribute: string) => meta.attributes[attribute].columnName ?? attribute;

/** `hold` for intoDeadlock: the entry's managed-entry rows, where the plugin notes an editor's save or publish. */
const managedRowsOf = (managed: ColumnsMeta, documentId: string) => (holder: Knex.Transaction) =>
  holder(managed.tableName).where(columnOf(managed, 'entryDocumentId'), documentId).forUpdate().select('*');

/** A post the platform published, with the site's connection and the tables the test reaches. */
async function platformPost(sourceId: string) {
  const knex = site.strapi.db.connection as unknown as Knex;
  const post = storageOf(site.strapi, 'post');
  const entries = site.strapi.db.metadata.get(post.uid as never) as unknown as ColumnsMeta;
  const managed = site.strapi.db.metadata.get(UIDS.managedEntry as never) as unknown as ColumnsMeta;
  const created = await site.send('POST', '/posts', fullPost({ source_id: sourceId }));
  expect(created.status).toBe(200);
  return { knex, post, entries, managed, documentId: created.body.id as string };
}

/**
 * An editor's save the draft mark does not tell of (saved past the Document Service) is written
 * into the mark in a savepoint of the plugin's write. A deadlock there was only logged, but on
 * MariaDB it had rolled back the whole write, its request receipt with it: the rest ran outside
 * any transaction and answered 200, and a replay of the request would have run again. Now the
 * write is tried again from the start. PostgreSQL rolls back to the savepoint only, and the
 * write goes on in its transaction.
 */
(session ? test : test.skip)(
  "an editor's save noted during a write, the note picked as a deadlock's victim: the write is tried again whole, the save kept",
  async () => {
    const { knex, post, entries, managed, documentId } = await platformPost('deadlock-noted');
    const receipts = site.strapi.db.metadata.get(UIDS.requestReceipt as never) as unknown as Meta;
    const draft = await documentsOf(site.strapi, post.uid).findOne({ documentId });
    // An editor's save of the draft that went past the Document Service, so no mark tells of it.
    await knex(entries.tableName)
      .where({ id: draft.id })
      .update({ [columnOf(entries, 'updatedAt')]: new Date(Date.now() + 60_000) });
    const receiptsBefore = await knex(receipts.tableName).count({ count: '*' }).first();

    let answered: Awaited<ReturnType<typeof site.send>> | undefined;
    const deadlocks = await deadlocksDuring(knex, async () => {
      answered = await intoDeadlock(
        knex,
        () => site.send('PUT', `/posts/${documentId}`, { title: 'Noted, updated' }),
        {
          // Where the write notes the editor's save.
          hold: managedRowsOf(managed, documentId),
          closeWhen: () => someoneWaitsOn(knex, managed.tableName),
          // The write holds the post's rows and waits for that row: this closes the cycle.
          close: (holder) =>
            holder(entries.tableName).where({ id: draft.id }).update({ title: 'Held by another session' }),
        }
      );
    });

    // The victim was the note of the save, in its savepoint.
    expect(deadlocks).toEqual(expect.arrayContaining([expect.stringContaining(managed.tableName)]));
    expect(answered!.status).toBe(200);
    const receiptsAfter = await knex(receipts.tableName).count({ count: '*' }).first();
    expect(Number(receiptsAfter!.count)).toBe(Number(receiptsBefore!.count) + 1);
    const written = await documentsOf(site.strapi, post.uid).findOne({ documentId });
    expect(written.title).toBe('Noted, updated');
    const row = await knex(managed.tableName)
      .where(columnOf(managed, 'entryDocumentId'), documentId)
      .first(columnOf(managed, 'draftSavedInStrapi'));
    expect(Boolean(Number(row[columnOf(managed, 'draftSavedInStrapi')]))).toBe(true);
  },
  60_000
);

/**
 * An editor's publish of a platform's post in a transaction of Strapi's (the Content Manager
 * publishes in one), whose note on the plugin's table is a deadlock's victim. On MariaDB the
 * deadlock rolled back the whole publish, and the note's failure was only logged: the publish
 * answered as done and nothing was published. Now it fails, as it would without the plugin.
 * PostgreSQL rolls back to the note's savepoint: the publish goes through, the note's failure
 * logged.
 */
(session ? test : test.skip)(
  "an editor's publish in Strapi's transaction whose note is a deadlock's victim: done on PostgreSQL, failed whole on MariaDB",
  async () => {
    const { knex, post, entries, managed, documentId } = await platformPost('deadlock-editor');
    const documents = documentsOf(site.strapi, post.uid);
    await documents.update({ documentId, data: { title: 'The editor’s title' } });
    const before = await documents.findOne({ documentId, status: 'published' });

    let publishing: Promise<unknown> | undefined;
    const deadlocks = await deadlocksDuring(knex, async () => {
      // Watched from before the publish starts: not a lock wait seen in information_schema,
      // which MariaDB answers from a cache all sessions share and which can be stale (MySQL bug
      // 48883); the likely cause of this test's two failures in the full CI run's MariaDB suite,
      // not reproduced alone.
      const publishedVersionDeleted = siteRan(
        knex,
        // PostgreSQL names the schema too.
        new RegExp(`^delete from ([\`"]\\w+[\`"]\\.)?[\`"]${entries.tableName}[\`"] `, 'i')
      );
      publishedVersionDeleted.catch(() => {});
      publishing = intoDeadlock(
        knex,
        () => site.strapi.db.transaction(() => documents.publish({ documentId })),
        {
          hold: managedRowsOf(managed, documentId),
          // The publish deleted the published version it replaces, and holds it until it ends: the
          // other session's update of it waits, and the publish's note then waits for the other
          // session (or already does): the cycle is closed either way.
          closeWhen: () => publishedVersionDeleted,
          close: (holder) =>
            holder(entries.tableName).where({ id: before.id }).update({ title: 'Held by another session' }),
        }
      );
      await publishing.catch(() => {});
    });

    const outcome = await publishing!.then(
      () => 'done',
      (error: Error) => error.message
    );
    const after = await documents.findOne({ documentId, status: 'published' });
    // One assertion, so that a failure shows the whole story.
    expect({ deadlocks, outcome, after }).toEqual({
      // The victim was the note, on the plugin's table.
      deadlocks: expect.arrayContaining([expect.stringContaining(managed.tableName)]),
      ...(db === 'mariadb'
        ? {
            outcome: expect.stringMatching(/ended the transaction/),
            after: expect.objectContaining({ id: before.id, title: before.title }),
          }
        : { outcome: 'done', after: expect.objectContaining({ title: 'The editor’s title' }) }),
    });
  },
  60_000
);
