import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDatabaseClient } from '../helpers/databases';
import { rowsOf, tableOf, UIDS } from '../helpers/inspect';
import { serviceOf, useSite } from '../helpers/site';

/**
 * How the answers of finished writes are kept for replays (services/delivery/receipts.ts): in batches, one
 * statement each. A fresh site, so the receipts table starts small, as on a quiet site.
 */
const RECEIPT = UIDS.requestReceipt;

const site = useSite();

const receipts = () => serviceOf(site, 'receipts');
const table = () => tableOf(site.strapi, RECEIPT);

/** Receipts as writes in flight hold them: claimed, their answer not kept yet. */
async function heldClaims(count: number) {
  const expiresAt = new Date(Date.now() + 5 * 60_000);
  const claims = Array.from({ length: count }, () => ({
    fingerprint: randomBytes(32).toString('hex'),
    claimant: randomUUID(),
    expiresAt,
    held: true,
    replayed: false,
  }));
  for (const claim of claims) {
    await site.strapi.db.connection(table()).insert({
      fingerprint: claim.fingerprint,
      claimant: claim.claimant,
      expires_at: receiptInstant(expiresAt),
    });
  }
  return claims;
}

const receiptInstant = (instant: Date) =>
  site.strapi.db.dialect.client === 'sqlite'
    ? instant.getTime()
    : instant.toISOString().replace('T', ' ').replace('Z', '');

const keptAnswers = async (fingerprints: string[]) =>
  (await rowsOf(site.strapi, RECEIPT)).filter(
    (row) => fingerprints.includes(String(row.fingerprint)) && row.httpStatus != null
  );

// SQLite has one connection: any statement waits for an open transaction, which is why its batches are small.
const onServerDatabases = testDatabaseClient() === 'sqlite' ? test.skip : test;
const onSqlite = testDatabaseClient() === 'sqlite' ? test : test.skip;

/** A signed publish of a new post; its request id (the activity log's), and `replay()` sends the same bytes again. */
async function publish(label: string) {
  const body = JSON.stringify({
    source_id: `${label}-${randomUUID()}`,
    title: label,
    content: '<p>Kept for replays and logged.</p>',
    status: 'publish',
  });
  const timestamp = Date.now();
  const send = () => site.send('POST', '/posts', body, { timestamp });
  const sent = await send();
  expect(sent.status).toBe(200);
  return { requestId: sent.headers.get('x-request-id')!, sent, replay: send };
}

/** Writes the answers and the log entries waiting (the deferred writes). */
async function flushDeferred() {
  await receipts().flush();
  await serviceOf(site, 'activity-writer').flush();
}

const loggedRequest = async (requestId: string) =>
  (await rowsOf(site.strapi, UIDS.activityEntry)).filter((row) => row.requestId === requestId);

// First in this file: Strapi makes a service on its first use, here the deferred writes'.
test('the deferred writes first used inside a transaction of Strapi that has ended still keep answers and log entries', async () => {
  // As a scheduled post's report in an editor's publish in the Content Manager uses them: in a
  // transaction nested in Strapi's, whose context keeps the transaction once it has ended.
  await site.strapi.db.transaction(() =>
    site.strapi.db.transaction(async () => {
      serviceOf(site, 'deferred-writes');
    })
  );
  const { requestId } = await publish('first-use');
  await flushDeferred();
  // Before, every round ran in that ended transaction: the log's batch failed ("Transaction
  // query already complete") and stayed queued for good.
  expect(await loggedRequest(requestId)).toHaveLength(1);
});

/**
 * Whether `work` ends within 2 s while a write is in flight: its receipt, expiring in
 * `expiresInMs`, inserted, and its transaction open until `work` ends (5 s at most).
 */
async function endsBesideAWriteInFlight(expiresInMs: number, work: () => Promise<unknown>) {
  let release = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  const inFlight = site.strapi.db.connection.transaction(async (trx: any) => {
    await trx(table()).insert({
      fingerprint: randomBytes(32).toString('hex'),
      claimant: randomUUID(),
      expires_at: receiptInstant(new Date(Date.now() + expiresInMs)),
    });
    await Promise.race([released, sleep(5_000)]);
  });
  await sleep(100);
  try {
    return await Promise.race([work().then(() => 'ended'), sleep(2_000).then(() => 'waiting')]);
  } finally {
    release();
    await inFlight;
  }
}

onServerDatabases(
  '(PostgreSQL, MariaDB) a batch of answers does not wait for writes still running that it does not touch',
  async () => {
    const claims = await heldClaims(20);
    // MariaDB read the whole small table to find the batch's rows and waited at the open one.
    const keeping = await endsBesideAWriteInFlight(60_000, async () => {
      for (const claim of claims) await receipts().settle(claim, { status: 200, body: { id: 'x' } });
      await receipts().flush();
    });
    expect(keeping).toBe('ended');
    await receipts().flush();
    expect(await keptAnswers(claims.map((claim) => claim.fingerprint))).toHaveLength(20);
  }
);

onServerDatabases(
  '(PostgreSQL, MariaDB) pruning the expired receipts does not wait for writes still running, which would wait for it in turn',
  async () => {
    const kept = await heldClaims(5);
    const expired = randomBytes(32).toString('hex');
    await site.strapi.db.connection(table()).insert({
      fingerprint: expired,
      claimant: randomUUID(),
      expires_at: receiptInstant(new Date(Date.now() - 60 * 60_000)),
    });
    // MariaDB read every receipt to find the expired ones, locking each (new writes' claims then
    // waited for the prune), and waited at the one the write in flight holds. Through an index on
    // the expiry it still locked the first receipt past the expired ones: here the write's, whose
    // timestamp is older than the held claims'.
    expect(await endsBesideAWriteInFlight(60_000, () => receipts().prune())).toBe('ended');
    const fingerprints = (await rowsOf(site.strapi, RECEIPT)).map((row) => String(row.fingerprint));
    expect(fingerprints).not.toContain(expired);
    expect(fingerprints).toEqual(expect.arrayContaining(kept.map((claim) => claim.fingerprint)));
  }
);

test('answers larger together than a statement may be are all kept, and the log never carries them', async () => {
  const claims = await heldClaims(200);
  // 20 MB in all: over MariaDB's default max_allowed_packet (16 MB) in one statement.
  const large = 'x'.repeat(100_000);
  const warnings: string[] = [];
  const warn = jest.spyOn(site.strapi.log, 'warn').mockImplementation((message: unknown) => {
    warnings.push(String(message));
    return site.strapi.log;
  });
  try {
    for (const claim of claims) await receipts().settle(claim, { status: 200, body: { notes: [large] } });
    await receipts().flush();
  } finally {
    warn.mockRestore();
  }
  expect(warnings.filter((message) => message.includes('x'.repeat(1_000)))).toEqual([]);
  expect(await keptAnswers(claims.map((claim) => claim.fingerprint))).toHaveLength(200);
});

onSqlite('(SQLite) the answers and log entries of requests answered together share one commit', async () => {
  // Every statement in order, with the pooled connection it ran on (knex's __knexUid).
  const statements: Array<{ sql: string; connection: string }> = [];
  const watch = (query: { sql: string; __knexUid: string }) =>
    statements.push({ sql: query.sql, connection: query.__knexUid });
  await flushDeferred();
  site.strapi.db.connection.on('query', watch);
  try {
    await Promise.all([1, 2, 3].map((index) => publish(`shared-commit-${index}`)));
    // Within the window the three answers wait together; then one round writes them and the log.
    await sleep(500);
    await flushDeferred();
  } finally {
    site.strapi.db.connection.off('query', watch);
  }
  // One round writes them, or, on a machine too busy to answer the three within one window, a
  // round each: every round keeps its answers and its log entries in one transaction.
  const answers = statements.filter(({ sql }) => /publish_bridge_request_receipts.* set /i.test(sql));
  const answered = answers.map(({ sql }) => sql.match(/ in \(([?, ]*)\)$/i)![1].split('?').length - 1);
  expect(answered.reduce((sum, count) => sum + count, 0)).toBe(3);
  for (const answer of answers) {
    // The transaction the answers were kept in: from the BEGIN before them on their connection to its COMMIT.
    const onItsConnection = statements.filter(({ connection }) => connection === answer.connection);
    const at = onItsConnection.indexOf(answer);
    const begin = onItsConnection.map(({ sql }) => /^begin/i.test(sql)).lastIndexOf(true, at);
    const commit = onItsConnection.findIndex(({ sql }, index) => index > begin && /^commit/i.test(sql));
    expect(begin).toBeGreaterThanOrEqual(0);
    expect(commit).toBeGreaterThan(at);
    const transaction = onItsConnection.slice(begin + 1, commit).map(({ sql }) => sql);
    expect(transaction.filter((sql) => /^insert into .*publish_bridge_activity/i.test(sql))).toHaveLength(1);
    expect(transaction).toHaveLength(2);
  }
});

onServerDatabases(
  '(PostgreSQL, MariaDB) while another session keeps the log table locked, answers are kept and replays answered at once',
  async () => {
    await flushDeferred();
    const activity = tableOf(site.strapi, UIDS.activityEntry);
    // Another session holds the log's table, as an index build or a long prune does.
    const held = await site.strapi.db.connection.transaction();
    try {
      await held.raw(
        testDatabaseClient() === 'postgres'
          ? 'LOCK TABLE ?? IN SHARE MODE'
          : 'SELECT id FROM ?? LOCK IN SHARE MODE',
        [activity]
      );
      const { sent, replay: sendAgain } = await publish('log-locked');
      const started = Date.now();
      const replay = await sendAgain();
      // Sharing the answers' transaction with the log's insert, it waited for the lock (6.6 s of 7).
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(replay.status).toBe(sent.status);
      expect(replay.body).toEqual(sent.body);
    } finally {
      await held.rollback();
    }
    await flushDeferred();
  }
);
