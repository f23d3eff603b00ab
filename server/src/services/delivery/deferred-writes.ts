import { AsyncLocalStorage } from 'node:async_hooks';
import type { Core } from '@strapi/strapi';
import type { Trx } from '../../database/knex';

/**
 * How long what requests leave to write after their answers waits, so that the writes of every
 * request answered meanwhile share one transaction.
 */
export const DEFERRED_WRITE_WINDOW_MS = 200;

/** One batch of one kind of deferred write (the answers kept for replays, the activity log). */
export type DeferredBatch = {
  /** Writes the batch in the shared transaction; a failure rolls every kind's batch back. */
  write(trx: Trx): Promise<void>;
  /**
   * Writes the batch on its own after the shared transaction failed, with its kind's own failure
   * handling; false when it kept the batch for a later attempt (the database is away).
   */
  writeAlone(): Promise<boolean>;
};

/** What holds deferred writes of one kind. */
export type DeferredSource = {
  /** Its next batch, taken out of what it holds; undefined when it holds nothing. */
  nextBatch(): DeferredBatch | undefined;
  /** Called once the writes it handed out in a round have ended (its pruning). */
  settled?(): Promise<void>;
};

/**
 * What requests leave to write after their answers have gone: the answers kept for replays and
 * the activity log's entries, each kind in batches, written together in one transaction a
 * round, so they cost one commit where each kind's own batch cost one. On SQLite a commit
 * syncs the journal while the server's only thread waits (1.5 ms measured on this machine's
 * disk, about 2 % of a busy server's time at the two kinds' former rounds of 100 and 200 ms);
 * on PostgreSQL and MariaDB it is a round trip and a log flush.
 */
// Over 50 lines: a service factory; its functions, each short, share its queue through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const pending = new Set<DeferredSource>();
  let timer: NodeJS.Timeout | undefined;
  let writing: Promise<void> = Promise.resolve();
  /**
   * The context the plugin loaded in: no request's connection, no transaction of Strapi's. A
   * round runs in it, not in that of the request that scheduled it, whose transaction (which
   * Strapi's own statements would join) has ended by then.
   */
  const outsideRequests = AsyncLocalStorage.snapshot();

  /** Takes every pending source's next batch; a source with none is no longer pending. */
  function takeBatches(): Array<[DeferredSource, DeferredBatch]> {
    const taken: Array<[DeferredSource, DeferredBatch]> = [];
    for (const source of pending) {
      const batch = source.nextBatch();
      if (batch) taken.push([source, batch]);
      else pending.delete(source);
    }
    return taken;
  }

  /**
   * Writes rounds until nothing is pending. After a failed round each batch is written on its
   * own; a source that kept its batch waits until it is scheduled again, so a database that is
   * away is not asked in a loop.
   */
  async function writePending(): Promise<void> {
    const written = new Set<DeferredSource>();
    for (let taken = takeBatches(); taken.length > 0; taken = takeBatches()) {
      for (const [source] of taken) written.add(source);
      try {
        await strapi.db.transaction(async ({ trx }: { trx: Trx }) => {
          for (const [, batch] of taken) await batch.write(trx);
        });
      } catch {
        for (const [source, batch] of taken) if (!(await batch.writeAlone())) pending.delete(source);
      }
    }
    for (const source of written) await source.settled?.();
  }

  /** Runs a round after the ones running (never two at once). */
  function writeRound(): Promise<void> {
    writing = writing.then(
      () => outsideRequests(writePending),
      () => outsideRequests(writePending)
    );
    return writing;
  }

  return {
    /**
     * `source` holds writes: they are written within `delayMs` (the window by default; 0: at
     * once), with whatever else is pending by then.
     */
    schedule(source: DeferredSource, delayMs = DEFERRED_WRITE_WINDOW_MS) {
      pending.add(source);
      if (timer) {
        if (delayMs > 0) return;
        clearTimeout(timer);
      }
      timer = setTimeout(() => {
        timer = undefined;
        void writeRound();
      }, delayMs);
      // A write due must not keep a stopping process alive; Strapi's stop flushes them.
      timer.unref();
    },

    /**
     * Writes what is pending now, and what `sources` hold; resolves once it is stored (or its
     * failure was handled).
     */
    flush(...sources: DeferredSource[]): Promise<void> {
      for (const source of sources) pending.add(source);
      clearTimeout(timer);
      timer = undefined;
      return writeRound();
    },
  };
};
