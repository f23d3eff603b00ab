import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Core } from '@strapi/strapi';
import { ContractError, Unauthenticated } from '../contract/errors';
import { PLUGIN_ID } from '../constants';
import { fitColumn } from '../utils/column-text';
import { isLostConnection, isUniqueViolation } from '../utils/database-errors';

/** What a request was answered: kept so an exact replay gets it again. */
export type Answer = { status: number; body: unknown };
/** A request as the signature is bound to it: method and canonical path below the prefix. */
export type SignedRequest = { signature: string; method: string; path: string; expiresAt: Date };
type Claim = { first: true } | { first: false; answer: Answer };

const RECEIPT_UID = 'plugin::publish-bridge.request-receipt';

/** How long a replay waits for the first request's answer while that one is still running. */
const WAIT_FOR_FIRST_MS = 5_000;
const FIRST_POLL_MS = 50;
const MAX_POLL_MS = 500;
const PRUNE_INTERVAL_MS = 60_000;
/**
 * Receipts are kept this long past their timestamp's window, so instances whose clocks differ
 * by less than this never prune a receipt another instance still needs (keep them in sync).
 */
const RECEIPT_MARGIN_MS = 10 * 60_000;
/** The answer status of a write that failed with a 5xx: nothing was written, the same request may run again. */
const FAILED = 0;

type ReceiptRow = {
  method: string;
  path: string;
  claimant: string;
  httpStatus: number | null;
  answer: string | null;
};

const fingerprintOf = (signature: string) => createHash('sha256').update(signature).digest('hex');

/** The path as its varchar(255) column holds it (a decoded `%00` included). */
const storedPath = (path: string) => fitColumn(path, 255);

/** With the backoff below, about 5 s: a database restarting or failing over is ridden out. */
const RECORD_ATTEMPTS = 8;
const MAX_RECORD_BACKOFF_MS = 1_000;

/**
 * The contract signs only the timestamp and the body, so the headers of one signed request
 * would also authenticate any other request with the same body (an empty-body GET's headers, a
 * DELETE of another id) while the timestamp is fresh. Each signature is therefore bound, under a
 * database unique index, to the first request that used it: a write that presents it again for
 * the same method and path is an exact replay and gets the first answer; for another method or
 * path it is refused. Reads are recorded so their headers cannot authorise a write, and are
 * served again (a read changes nothing).
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const receipts = () => strapi.db.query(RECEIPT_UID as never);
  let lastPruneAt = 0;

  function pruneWhenDue() {
    if (Date.now() - lastPruneAt < PRUNE_INTERVAL_MS) return;
    lastPruneAt = Date.now();
    receipts()
      .deleteMany({ where: { expiresAt: { $lt: new Date(Date.now() - RECEIPT_MARGIN_MS) } } })
      .catch((error: Error) =>
        strapi.log.warn(`[${PLUGIN_ID}] could not prune request receipts: ${error.message}`)
      );
  }

  /**
   * True when this request recorded the signature first; false when another request holds it.
   * A connection that broke under the insert (a database restarting) is tried again for a few
   * seconds, as the transactions service does for a transaction that could not begin. An insert
   * that committed before its connection died is recognised by its claimant on the next try.
   */
  async function record(fingerprint: string, request: SignedRequest): Promise<boolean> {
    const claimant = randomUUID();
    const data = {
      fingerprint,
      method: request.method,
      path: storedPath(request.path),
      claimant,
      expiresAt: request.expiresAt,
    };
    for (let attempt = 1; ; attempt += 1) {
      try {
        await receipts().create({ data });
        pruneWhenDue();
        return true;
      } catch (error) {
        if (isUniqueViolation(error))
          return attempt > 1 && (await holderOf(fingerprint))?.claimant === claimant;
        if (!isLostConnection(error) || attempt === RECORD_ATTEMPTS) throw error;
        await sleep(Math.min(MAX_RECORD_BACKOFF_MS, FIRST_POLL_MS * 2 ** attempt));
      }
    }
  }

  const holderOf = (fingerprint: string) =>
    receipts().findOne({
      where: { fingerprint },
      select: ['method', 'path', 'claimant', 'httpStatus', 'answer'],
    }) as Promise<ReceiptRow | null>;

  function refuseReuse(holder: ReceiptRow): never {
    throw new Unauthenticated(
      'signature_reused',
      `This signature was already used for ${holder.method} ${holder.path}. Every request must be signed on its own; sign this one again and resend it.`
    );
  }

  /** Takes over the claim of the same request that failed with a 5xx; only one retry wins it. */
  async function reclaimFailed(fingerprint: string): Promise<boolean> {
    const { count } = (await receipts().updateMany({
      where: { fingerprint, httpStatus: FAILED },
      data: { httpStatus: null },
    })) as { count: number };
    return count === 1;
  }

  return {
    /** Records a read's signature so it cannot authorise a write; a read is never refused for reuse. */
    async recordRead(request: SignedRequest) {
      await record(fingerprintOf(request.signature), request);
    },

    /**
     * Claims the signature for this write, or returns the first answer of the same request,
     * waiting a little while that one is still running. A first request that failed with a 5xx
     * wrote nothing, so the same request (never another method or path) may run again.
     */
    async claimWrite(request: SignedRequest): Promise<Claim> {
      const fingerprint = fingerprintOf(request.signature);
      const deadline = Date.now() + WAIT_FOR_FIRST_MS;
      for (let pollMs = FIRST_POLL_MS; ; pollMs = Math.min(MAX_POLL_MS, pollMs * 2)) {
        if (await record(fingerprint, request)) return { first: true };
        const holder = await holderOf(fingerprint);
        if (holder && (holder.method !== request.method || holder.path !== storedPath(request.path)))
          refuseReuse(holder);
        if (holder?.httpStatus === FAILED) {
          if (await reclaimFailed(fingerprint)) return { first: true };
          continue;
        }
        if (holder?.httpStatus != null) {
          const body = holder.answer === null ? undefined : JSON.parse(holder.answer);
          return { first: false, answer: { status: holder.httpStatus, body } };
        }
        if (Date.now() >= deadline) {
          throw new ContractError(
            409,
            'The same signed request is still being processed. Wait for it to finish; a repeat sent after that gets its answer.'
          );
        }
        await sleep(pollMs);
      }
    },

    /** Keeps the answer for replays; a 5xx changed nothing, so it is kept as retryable instead. */
    async settle(signature: string, { status, body }: Answer) {
      const failed = status >= 500;
      await receipts().updateMany({
        where: { fingerprint: fingerprintOf(signature) },
        data: {
          httpStatus: failed ? FAILED : status,
          answer: failed || body === undefined ? null : JSON.stringify(body),
        },
      });
    },
  };
};
