import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Core } from '@strapi/strapi';
import { ContractError } from '../contract/errors';
import { PLUGIN_ID } from '../constants';
import { isUniqueViolation } from '../utils/database-errors';

/** What a request was answered: kept so an exact replay gets it again. */
export type Answer = { status: number; body: unknown };
export type Claim = { first: true } | { first: false; answer: Answer };

/** How long a replay waits for the first request's answer while that one is still running. */
const WAIT_FOR_FIRST_MS = 5_000;
const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 500;
const PRUNE_INTERVAL_MS = 60_000;

export const RECEIPT_UID = 'plugin::publish-bridge.request-receipt';

type ReceiptRow = { httpStatus: number | null; answer: string | null };

/**
 * The contract signs only the timestamp and the body, so a signed request captured on its way
 * could be sent again while its timestamp is fresh. Its fingerprint (signature, method and
 * path) is claimed under a database unique index before a write runs: a second arrival, on any
 * instance sharing the database, gets the first answer instead of running again.
 */
export const fingerprintOf = (signature: string, method: string, path: string) =>
  createHash('sha256').update(`${signature}\n${method.toUpperCase()}\n${path}`).digest('hex');

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const receipts = () => strapi.db.query(RECEIPT_UID as never);
  let lastPruneAt = 0;

  /** Receipts outlive their timestamp's window by nothing: a replay after it is refused as stale anyway. */
  function pruneWhenDue() {
    if (Date.now() - lastPruneAt < PRUNE_INTERVAL_MS) return;
    lastPruneAt = Date.now();
    receipts()
      .deleteMany({ where: { expiresAt: { $lt: new Date() } } })
      .catch((error: Error) =>
        strapi.log.warn(`[${PLUGIN_ID}] could not prune request receipts: ${error.message}`)
      );
  }

  async function earlierAnswer(fingerprint: string): Promise<Answer | undefined> {
    const row = (await receipts().findOne({
      where: { fingerprint },
      select: ['httpStatus', 'answer'],
    })) as ReceiptRow | null;
    if (row?.httpStatus == null) return undefined;
    return { status: row.httpStatus, body: row.answer === null ? undefined : JSON.parse(row.answer) };
  }

  return {
    /**
     * Claims `fingerprint` for this request, or returns the answer of the request that claimed it
     * first, waiting a little while that one is still running. A first request that failed with a
     * 5xx released its claim (nothing was written), so its replay runs.
     */
    async claim(fingerprint: string, expiresAt: Date): Promise<Claim> {
      const deadline = Date.now() + WAIT_FOR_FIRST_MS;
      for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(MAX_POLL_MS, pollMs * 2)) {
        try {
          await receipts().create({ data: { fingerprint, expiresAt } });
          pruneWhenDue();
          return { first: true };
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
        }
        const answer = await earlierAnswer(fingerprint);
        if (answer) return { first: false, answer };
        if (Date.now() >= deadline) {
          throw new ContractError(
            409,
            'The same signed request is still being processed. Wait for it to finish; a repeat sent after that gets its answer.'
          );
        }
        await sleep(pollMs);
      }
    },

    /** Keeps the answer for replays; a 5xx changed nothing, so its claim is released instead. */
    async settle(fingerprint: string, { status, body }: Answer) {
      if (status >= 500) {
        await receipts().delete({ where: { fingerprint } });
        return;
      }
      await receipts().update({
        where: { fingerprint },
        data: { httpStatus: status, answer: body === undefined ? null : JSON.stringify(body) },
      });
    },
  };
};
