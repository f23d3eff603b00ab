import type { Core } from '@strapi/strapi';
import { setTimeout as sleep } from 'node:timers/promises';
import { isRetryableConflict } from '../utils/database-errors';

const MAX_ATTEMPTS = 12;
const BASE_BACKOFF_MS = 5;

export type Transaction = { trx: unknown };

/**
 * Runs a unit of work in one database transaction, so a failure leaves nothing half-written.
 * A unique violation or deadlock means a concurrent request created the same entity first;
 * the whole unit is rolled back and run again, and the next run finds that entity.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async run<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await strapi.db.transaction(({ trx }) => work({ trx }));
      } catch (error) {
        if (attempt >= MAX_ATTEMPTS || !isRetryableConflict(error)) throw error;
        const jitter = Math.random() * BASE_BACKOFF_MS * attempt;
        await sleep(BASE_BACKOFF_MS * attempt + jitter);
      }
    }
  },
});
