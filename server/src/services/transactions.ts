import type { Core } from '@strapi/strapi';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryableConflict } from '../utils/database-errors';

const MAX_ATTEMPTS = 16;
const FIRST_BACKOFF_MS = 10;
const MAX_BACKOFF_MS = 1_000;

type Knex = { raw(sql: string): Promise<unknown> };

export type Transaction = { trx: unknown };

/**
 * Waits a random time up to a ceiling that doubles with every attempt ("full jitter"), so
 * requests that lost the same race do not all come back at the same moment and collide again.
 */
const backoff = (attempt: number) =>
  sleep(Math.random() * Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt));

/**
 * Runs a unit of work in one database transaction, so a failure leaves nothing half-written.
 * A unique violation or deadlock means a concurrent request created the same entity first;
 * the whole unit is rolled back and run again, and the next run finds that entity.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  let readCommittedIsSafe: Promise<boolean> | undefined;

  /**
   * MySQL and MariaDB default to REPEATABLE READ, where looking up a key that does not exist
   * yet (`SELECT ... FOR UPDATE`) takes a gap lock: concurrent publishes of new names then
   * deadlock on their inserts over and over, and their reads see a snapshot older than the row
   * locks they waited for. READ COMMITTED, PostgreSQL's default, has neither problem: a second
   * insert of a key waits for the first and then fails on the unique index, and is retried.
   * Strapi opens the transaction without options, so the empty one it began is ended and a
   * READ COMMITTED one started on the same connection; Strapi's commit or rollback then ends it.
   */
  async function useReadCommitted(trx: Knex) {
    if (strapi.db.dialect.client !== 'mysql') return;
    readCommittedIsSafe ??= binlogAllowsReadCommitted();
    if (!(await readCommittedIsSafe)) return;
    await trx.raw('COMMIT');
    await trx.raw('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
    await trx.raw('START TRANSACTION');
  }

  /** Statement-based binary logging refuses writes made at READ COMMITTED; such servers keep their default. */
  async function binlogAllowsReadCommitted(): Promise<boolean> {
    const [rows] = (await strapi.db.connection.raw(
      'SELECT @@log_bin AS logBin, @@binlog_format AS binlogFormat'
    )) as unknown as [Array<{ logBin: number | string; binlogFormat: string }>];
    const { logBin, binlogFormat } = rows[0];
    return Number(logBin) !== 1 || String(binlogFormat).toUpperCase() !== 'STATEMENT';
  }

  return {
    async run<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return await strapi.db.transaction(async ({ trx }) => {
            await useReadCommitted(trx as unknown as Knex);
            return work({ trx });
          });
        } catch (error) {
          if (attempt >= MAX_ATTEMPTS || !isRetryableConflict(error)) throw error;
          await backoff(attempt);
        }
      }
    },
  };
};
