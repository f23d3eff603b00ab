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

onServerDatabases(
  '(PostgreSQL, MariaDB) a batch of answers does not wait for writes still running that it does not touch',
  async () => {
    const claims = await heldClaims(20);
    // A write in flight: its receipt inserted, its transaction open until the batch is kept or 3 s pass.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const inFlight = site.strapi.db.connection.transaction(async (trx: any) => {
      await trx(table()).insert({
        fingerprint: randomBytes(32).toString('hex'),
        claimant: randomUUID(),
        expires_at: receiptInstant(new Date(Date.now() + 60_000)),
      });
      await Promise.race([released, sleep(3_000)]);
    });
    await sleep(100);
    try {
      for (const claim of claims) await receipts().settle(claim, { status: 200, body: { id: 'x' } });
      // MariaDB read the whole small table to find the batch's rows and waited at the open one.
      const first = await Promise.race([
        receipts()
          .flush()
          .then(() => 'kept'),
        sleep(2_000).then(() => 'waiting'),
      ]);
      expect(first).toBe('kept');
    } finally {
      release();
      await inFlight;
    }
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
    // A write in flight: its receipt, the newest, inserted; its transaction open until the prune ends or 5 s pass.
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const inFlight = site.strapi.db.connection.transaction(async (trx: any) => {
      await trx(table()).insert({
        fingerprint: randomBytes(32).toString('hex'),
        claimant: randomUUID(),
        expires_at: receiptInstant(new Date(Date.now() + 10 * 60_000)),
      });
      await Promise.race([released, sleep(5_000)]);
    });
    await sleep(100);
    try {
      // MariaDB read every receipt to find the expired ones, locking each (the new writes' claims
      // then waited for the prune) and waiting at the one the open write holds.
      const first = await Promise.race([
        receipts()
          .prune()
          .then(() => 'pruned'),
        sleep(2_000).then(() => 'waiting'),
      ]);
      expect(first).toBe('pruned');
    } finally {
      release();
      await inFlight;
    }
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
