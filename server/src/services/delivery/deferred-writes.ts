import { AsyncLocalStorage } from 'node:async_hooks';
import type { Core } from '@strapi/strapi';
import type { Trx } from '../../database/knex';
import { failWhenCommitFails } from '../../database/transactions';

/**
 * How long what requests leave to write after their answers waits, so that the writes of every
 * request answered meanwhile go in one batch of each kind (on SQLite, in one transaction).
 */
const DEFERRED_WRITE_WINDOW_MS = 200;

/** One batch of one kind of deferred write (the answers kept for replays, the activity log). */
export type DeferredBatch = {
  /** Writes the batch in the shared transaction; a failure rolls every kind's batch back. */
  write(trx: Trx): Promise<void>;
  /** Called once the shared transaction that wrote the batch has committed. */
  committed?(): void;
  /**
   * Writes the batch on its own, with its kind's own failure handling: on PostgreSQL and MariaDB,
   * and after a shared transaction failed. False when it kept the batch for a later attempt (the
   * database is away).
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
 * The context the plugin's code was loaded in: no request's, no transaction of Strapi's. Taken
 * as the module loads, not when a service is first asked for: Strapi makes a service on its
 * first use, which may be inside a request or an editor's transaction, and a round run in that
 * context would join the transaction (rolled back with it, or already ended) and keep the
 * request alive.
 */
const outsideRequests = AsyncLocalStorage.snapshot();

/**
 * What requests leave to write after their answers have gone: the answers kept for replays and
 * the activity log's entries, each kind in batches, a round every DEFERRED_WRITE_WINDOW_MS. On
 * SQLite a round writes every kind's batch in one transaction, one commit for all, where each
 * kind's own batch cost one: a commit syncs the journal while the server's only thread waits
 * (1.5 ms measured on this machine's disk, about 2 % of a busy server's time at the two kinds'
 * former rounds of 100 and 200 ms), and one writer holds the whole file, so no kind can wait at a
 * lock on another's table. On PostgreSQL and MariaDB each kind writes on its own, in its own
 * order of rounds: there a lock on the log's table (an index build, a prune) would hold the
 * answers' row locks in a shared transaction, and the replays waiting at them.
 */
// Over 50 lines: a service factory; its functions, each short, share its queue through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const pending = new Set<DeferredSource>();
  let timer: NodeJS.Timeout | undefined;
  /** The rounds running: the shared one on SQLite, one per kind elsewhere. */
  const writing = new Map<DeferredSource | 'shared', Promise<void>>();
  const sharesCommits = () => strapi.db.dialect.client === 'sqlite';

  /** Takes the next batch of each of `sources` that holds one; a source with none is no longer pending. */
  function takeBatches(sources: Iterable<DeferredSource>): Array<[DeferredSource, DeferredBatch]> {
    const taken: Array<[DeferredSource, DeferredBatch]> = [];
    for (const source of sources) {
      const batch = source.nextBatch();
      if (batch) taken.push([source, batch]);
      else pending.delete(source);
    }
    return taken;
  }

  /**
   * Writes the batches in one transaction; when it fails (its COMMIT included, which Strapi's
   * transaction does not report), each on its own. A source that kept its batch is no longer
   * pending: it waits until it is scheduled again, so a database that is away is not asked in a loop.
   */
  async function writeTogether(taken: Array<[DeferredSource, DeferredBatch]>): Promise<void> {
    try {
      await strapi.db.transaction(async ({ trx }: { trx: Trx }) => {
        failWhenCommitFails(trx);
        for (const [, batch] of taken) await batch.write(trx);
      });
      for (const [, batch] of taken) batch.committed?.();
    } catch {
      await writeEachAlone(taken);
    }
  }

  async function writeEachAlone(taken: Array<[DeferredSource, DeferredBatch]>): Promise<void> {
    for (const [source, batch] of taken) if (!(await batch.writeAlone())) pending.delete(source);
  }

  /** Writes rounds of `sources`' batches until none of them is pending; then lets them settle. */
  async function writePending(sources: () => DeferredSource[], together: boolean): Promise<void> {
    const written = new Set<DeferredSource>();
    for (let taken = takeBatches(sources()); taken.length > 0; taken = takeBatches(sources())) {
      for (const [source] of taken) written.add(source);
      await (together ? writeTogether(taken) : writeEachAlone(taken));
    }
    for (const source of written) await source.settled?.();
  }

  /** Runs a round after the one running of the same writer (never two at once). */
  function chained(key: DeferredSource | 'shared', round: () => Promise<void>): Promise<void> {
    const run = () => outsideRequests(round);
    const next = (writing.get(key) ?? Promise.resolve()).then(run, run);
    writing.set(key, next);
    return next;
  }

  /** A round of everything pending: on SQLite one, shared; elsewhere one per pending kind. */
  function writeRound(): Promise<unknown> {
    if (sharesCommits()) return chained('shared', () => writePending(() => [...pending], true));
    return Promise.all(
      [...pending].map((source) =>
        chained(source, () => writePending(() => (pending.has(source) ? [source] : []), false))
      )
    );
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
    async flush(...sources: DeferredSource[]): Promise<void> {
      for (const source of sources) pending.add(source);
      clearTimeout(timer);
      timer = undefined;
      await writeRound();
      // And the rounds of kinds that had nothing pending but were still writing.
      await Promise.all(writing.values());
    },
  };
};
