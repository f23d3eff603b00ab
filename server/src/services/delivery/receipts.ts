import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Core } from '@strapi/strapi';
import { ContractError } from '../../contract/errors';
import { PLUGIN_ID } from '../../constants';
import type { Trx } from '../../database/knex';
import {
  ANSWER_BYTES_PER_STATEMENT,
  ANSWERS_PER_STATEMENT,
  FAILED,
  requestReceipts,
} from '../../database/receipts';
import { driverMessageOf } from '../../utils/database-errors';
import { getService } from '../../plugin';
import type { DeferredSource } from './deferred-writes';

/** What a request was answered: kept so an exact replay gets it again. */
export type Answer = { status: number; body: unknown };
/** A signed write as its receipt identifies it: method, canonical path below the prefix, and signature. */
export type SignedWrite = { signature: string; method: string; path: string; expiresAt: Date };
/** A write on its way: the receipt it claims in its first transaction, or finds taken. */
export type WriteClaim = {
  fingerprint: string;
  claimant: string;
  expiresAt: Date;
  /** Set once a transaction of this request took the receipt: its answer is kept when it ends. */
  held: boolean;
  /** Set when a transaction of this request found the receipt held by the same request before it. */
  replayed: boolean;
};

/** How long a replay waits for the first request's answer while that one is still running. */
const WAIT_FOR_FIRST_MS = 5_000;
const FIRST_POLL_MS = 20;
const MAX_POLL_MS = 500;
const PRUNE_INTERVAL_MS = 60_000;
/**
 * Receipts are kept this long past their timestamp's window, so instances whose clocks differ
 * by less than this never prune a receipt another instance still needs (keep them in sync).
 */
const RECEIPT_MARGIN_MS = 10 * 60_000;
/** How long a 5xx answer waits for its receipt to be marked retryable: a database that is away must not hold it. */
const KEEP_FAILURE_WAIT_MS = 1_000;

/**
 * One digest for the signature, the method and the path: the same signed body sent to several
 * paths (a bulk "set to draft", deletes of several posts in one millisecond) is several
 * requests, each served once; the same request presented again is a replay. The method and the
 * path are hashed, not stored, so a path of any length or byte fits.
 */
const fingerprintOf = ({ signature, method, path }: SignedWrite) =>
  createHash('sha256').update(`${method} ${path}\n${signature}`).digest('hex');

/** Thrown inside a transaction of a replay: it rolls back, and the gate answers with the first answer. */
export class ReplayDetected extends ContractError {
  constructor() {
    super(
      409,
      'This exact request is already being processed. Wait for it to finish; a repeat sent after that gets its answer.'
    );
  }
}

/** The write whose controller is running, for the transactions it opens. */
const claims = new AsyncLocalStorage<WriteClaim>();

type KeptAnswer = { claimant: string; status: number; answer: string | null };

/**
 * Runs each signed write once. The write claims its receipt, under a database unique index
 * shared by every instance, as the first statement of the first transaction it opens, so the
 * claim costs no commit of its own and rolls back with a write that failed. An exact replay
 * (same signature, method and path) finds the receipt taken, rolls back, and is answered with
 * the first answer, which is kept after the first request's answer, in batches. Reads change
 * nothing and take no receipt; neither does a request that wrote nothing (it opened no transaction).
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const receipts = requestReceipts(strapi);
  let lastPruneAt = 0;
  const answersToKeep = new Map<string, KeptAnswer>();
  /** Failures whose receipts are still being marked retryable, and whether the site is stopping. */
  const failuresToKeep = new Set<Promise<void>>();
  /** The claimants of those failures: a retry reaching this instance meanwhile may take their receipts over. */
  const failedClaimants = new Set<string>();
  let stopping = false;

  /** Deletes the receipts whose window, and the margin after it, have passed. */
  async function prune(): Promise<void> {
    await receipts
      .deleteExpiredBefore(new Date(Date.now() - RECEIPT_MARGIN_MS))
      .catch((error: Error) =>
        strapi.log.warn(`[${PLUGIN_ID}] could not prune request receipts: ${error.message}`)
      );
  }

  function pruneWhenDue() {
    if (Date.now() - lastPruneAt < PRUNE_INTERVAL_MS) return;
    lastPruneAt = Date.now();
    void prune();
  }

  /** The next answers to keep in one statement, at most so many and so many bytes. */
  function nextBatch(): Array<[string, KeptAnswer]> {
    const batch: Array<[string, KeptAnswer]> = [];
    let bytes = 0;
    for (const entry of answersToKeep) {
      const size = entry[1].answer?.length ?? 0;
      const full = batch.length === ANSWERS_PER_STATEMENT || bytes + size > ANSWER_BYTES_PER_STATEMENT;
      if (batch.length > 0 && full) break;
      batch.push(entry);
      bytes += size;
    }
    for (const [fingerprint] of batch) answersToKeep.delete(fingerprint);
    return batch;
  }

  /**
   * The answers of the writes that finished meanwhile, kept one statement per batch, not per
   * request, with the other deferred writes (on SQLite's single connection each commit holds up
   * every other write). A batch that failed is logged: replays of its requests are answered 409
   * "still being processed" until their receipts expire.
   */
  const answers: DeferredSource = {
    nextBatch() {
      if (answersToKeep.size === 0) return undefined;
      const batch = nextBatch().map(([fingerprint, kept]) => ({ fingerprint, ...kept }));
      return {
        write: (trx: Trx) => receipts.keepAnswers(batch, trx),
        async writeAlone() {
          // The driver's own message only: knex's starts with the statement, answers and all.
          await receipts
            .keepAnswers(batch)
            .catch((error: unknown) =>
              strapi.log.warn(
                `[${PLUGIN_ID}] could not keep ${batch.length} answers for replays: ${driverMessageOf(error)}`
              )
            );
          return true;
        },
      };
    },
  };

  /**
   * Whether a receipt already in place is this request's: an earlier transaction of it, or one
   * whose commit raced a lost connection, took it; or the same request failed with a 5xx
   * before, and this one takes the receipt over: marked retryable, or known here to have failed
   * while the mark has not landed yet (the database was away). A request runs several
   * transactions at once (its image imports): when one of them took the receipt over while
   * another waited at the row, the waiting one finds it taken by its own request.
   */
  async function ownsReceipt(trx: Trx, claim: WriteClaim): Promise<boolean> {
    const holder = await receipts.holderOf(claim.fingerprint, trx);
    if (!holder) return false;
    if (holder.claimant === claim.claimant) return true;
    const markedFailed = holder.status != null && Number(holder.status) === FAILED;
    const failedHere = holder.status == null && failedClaimants.has(holder.claimant);
    if (!markedFailed && !failedHere) return false;
    const takenOver = await receipts.takeOver(trx, claim.fingerprint, holder.claimant, claim.claimant);
    return takenOver === 1 || (await receipts.holderOf(claim.fingerprint, trx))?.claimant === claim.claimant;
  }

  /**
   * Marks the receipt of a write that failed with a 5xx as retryable. A 5xx often means the
   * database is away: then the mark is tried again, until it lands or the receipt's window has
   * closed (no replay of it can be presented after that) or the site stops. Otherwise a receipt
   * that image imports committed would stay "still running", and every retry would get 409.
   */
  async function keepFailure({ fingerprint, claimant, expiresAt }: WriteClaim) {
    for (let waitMs = FIRST_POLL_MS; ; waitMs = Math.min(MAX_POLL_MS, waitMs * 2)) {
      try {
        await receipts.markFailed(fingerprint, claimant);
        return;
      } catch (error) {
        if (stopping || Date.now() > expiresAt.getTime()) {
          strapi.log.warn(
            `[${PLUGIN_ID}] could not mark a failed request as retryable: ${(error as Error).message}`
          );
          return;
        }
        // Unref'd: a retry must not keep a stopping process alive.
        await sleep(waitMs, undefined, { ref: false });
      }
    }
  }

  /** Polls for the first request's answer, kept once it finished. */
  async function firstAnswer(fingerprint: string): Promise<Answer> {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (let pollMs = FIRST_POLL_MS; Date.now() < deadline; pollMs = Math.min(MAX_POLL_MS, pollMs * 2)) {
      await sleep(pollMs);
      const holder = await receipts.holderOf(fingerprint);
      if (holder?.status != null && Number(holder.status) !== FAILED) {
        return {
          status: Number(holder.status),
          body: holder.answer === null ? undefined : JSON.parse(holder.answer),
        };
      }
      if (holder?.status != null || !holder) break;
    }
    // Still running, or it failed (a 5xx) meanwhile: then the same request may be sent again.
    return { status: 409, body: { error: new ReplayDetected().message } };
  }

  return {
    claimFor(request: SignedWrite): WriteClaim {
      return {
        fingerprint: fingerprintOf(request),
        claimant: randomUUID(),
        expiresAt: request.expiresAt,
        held: false,
        replayed: false,
      };
    },

    /** Runs `next` (the route) as this write; for an exact replay, returns the first request's answer. */
    async runOnce(claim: WriteClaim, next: () => Promise<unknown>): Promise<Answer | undefined> {
      await claims.run(claim, next);
      return claim.replayed ? firstAnswer(claim.fingerprint) : undefined;
    },

    /**
     * The first statement of every transaction a write opens: takes the receipt, finds it this
     * request's own (an earlier transaction of it, or one whose commit raced a lost connection),
     * takes over the receipt of the same request that failed with a 5xx, or stops a replay. On
     * PostgreSQL and MySQL a concurrent twin waits here for the first transaction to end.
     */
    async claimInTransaction(trx: Trx) {
      const claim = claims.getStore();
      if (!claim) return;
      if (claim.replayed) throw new ReplayDetected();
      // A receipt there already is read: a replay's, or one a failed write left to take over.
      const inserted = await receipts.insertIfAbsent(trx, claim);
      if (!inserted && !(await ownsReceipt(trx, claim))) {
        claim.replayed = true;
        throw new ReplayDetected();
      }
      claim.held = true;
      pruneWhenDue();
    },

    /**
     * Keeps the answer for replays, in the next batch. A 5xx changed nothing: its receipt is kept
     * as retryable at once, before the answer leaves, so that the same request sent again right
     * after the 5xx runs instead of waiting for a first answer that will never come (a receipt
     * can outlive the failed write: image imports commit it in transactions of their own).
     */
    async settle(claim: WriteClaim, { status, body }: Answer): Promise<void> {
      if (!claim.held || claim.replayed) return;
      if (status >= 500) {
        const kept = keepFailure(claim);
        failuresToKeep.add(kept);
        failedClaimants.add(claim.claimant);
        void kept.finally(() => {
          failuresToKeep.delete(kept);
          failedClaimants.delete(claim.claimant);
        });
        await Promise.race([kept, sleep(KEEP_FAILURE_WAIT_MS, undefined, { ref: false })]);
        return;
      }
      answersToKeep.set(claim.fingerprint, {
        claimant: claim.claimant,
        status,
        answer: body === undefined ? null : JSON.stringify(body),
      });
      getService(strapi, 'deferred-writes').schedule(answers);
    },

    prune,

    /** Keeps the answers not yet kept, with the other deferred writes. */
    flush: () => getService(strapi, 'deferred-writes').flush(),

    /** Before Strapi stops: keeps the answers not yet kept, and gives up marking failures. */
    async stop() {
      stopping = true;
      await this.flush();
      await Promise.race([
        Promise.all(failuresToKeep),
        sleep(KEEP_FAILURE_WAIT_MS, undefined, { ref: false }),
      ]);
    },
  };
};
