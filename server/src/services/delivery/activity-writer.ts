import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import { createRefusalTally, type Refusal } from './activity-aggregation';
import {
  ACTIVITY_UID,
  ENTRY_LIMITS,
  UNAUTHENTICATED_ACTION,
  entryOf,
  entryOfAggregate,
  type ActivityEntry,
  type Exchange,
} from './activity';
import { fitColumn } from '../../utils/column-text';
import { getService, pluginConfig } from '../../plugin';
import { rowsOf } from '../../database/schemas';
import { inBoundedTransaction } from '../../database/lock-waits';
import type { DeferredSource } from './deferred-writes';

const MAX_BATCH = 100;
/** While the database refuses writes, entries wait in memory up to this many; older ones are dropped. */
const MAX_QUEUED = 5_000;
const PRUNE_INTERVAL_MS = 60 * 60_000;
/** A minute's aggregates are written this long after it ends, so refusals answered at its very end are in. */
const MINUTE_END_GRACE_MS = 1_000;
const DAY_MS = 24 * 3_600_000;
/** Rows of refusal counts kept beside `maxEntries` deliveries: a tenth as many, at least 100. */
const refusalBudget = (maxEntries: number) => Math.max(100, Math.floor(maxEntries / 10));

/**
 * Writes the activity log. Entries are queued and written in batches after the answer has
 * gone, so a slow or failing database never delays or fails the request being logged; on SQLite
 * a batch shares its transaction with the answers kept for replays (deferred-writes.ts).
 * Retention is bounded by count and age (plugin config `activityLog`). Unauthenticated
 * refusals are counted in memory (activity-aggregation.ts) and written as one row per minute,
 * reason and address once their minute has ended, or at a forced `flush()`.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const query = () => rowsOf<ActivityEntry & { id: number }>(strapi, ACTIVITY_UID);
  const config = () => pluginConfig(strapi).activityLog;

  let queue: ActivityEntry[] = [];
  const refusals = createRefusalTally();
  let minuteTimer: NodeJS.Timeout | undefined;
  let writtenSincePrune = 0;
  let lastPruneAt = 0;
  const deferredWrites = () => getService(strapi, 'deferred-writes');

  /** Wakes up when the earliest counted minute has ended, so its aggregates are written without new traffic. */
  function scheduleMinuteEnd() {
    const end = refusals.nextMinuteEnd();
    if (minuteTimer || !end) return;
    minuteTimer = setTimeout(
      () => {
        minuteTimer = undefined;
        enqueueAggregates({ openMinutes: false });
        deferredWrites().schedule(entries, 0);
        scheduleMinuteEnd();
      },
      Math.max(0, end.getTime() - Date.now()) + MINUTE_END_GRACE_MS
    );
    minuteTimer.unref?.();
  }

  function enqueue(added: ActivityEntry[]) {
    queue.push(...added);
    if (queue.length > MAX_QUEUED) queue = queue.slice(queue.length - MAX_QUEUED);
  }

  /**
   * The aggregates of ended minutes; with `openMinutes`, those of the current minute too (a later
   * refusal in that minute starts a new aggregate: two rows, no lost count).
   */
  function enqueueAggregates({ openMinutes }: { openMinutes: boolean }) {
    enqueue(refusals.take(openMinutes ? undefined : new Date()).map(entryOfAggregate));
  }

  function queueEntry(entry: () => ActivityEntry) {
    try {
      enqueue([entry()]);
      deferredWrites().schedule(entries, queue.length >= MAX_BATCH ? 0 : undefined);
    } catch (error) {
      strapi.log.warn(`[${PLUGIN_ID}] could not queue an activity log entry: ${(error as Error).message}`);
    }
  }

  /** Knex drops its pool on `strapi.destroy()`; a batch due after that has nowhere to go. */
  const databaseClosed = () =>
    !(strapi.db?.connection as { client?: { pool?: unknown } } | undefined)?.client?.pool;

  /** The queued entries, written in batches with the other deferred writes. */
  const entries: DeferredSource = {
    nextBatch() {
      if (queue.length > 0 && databaseClosed()) {
        strapi.log.debug(`[${PLUGIN_ID}] ${queue.length} activity log entries dropped at shutdown`);
        queue = [];
      }
      if (queue.length === 0) return undefined;
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      return {
        async write() {
          await query().createMany({ data: batch });
        },
        committed() {
          writtenSincePrune += batch.length;
        },
        writeAlone: () => writeAlone(batch),
      };
    },

    async settled() {
      const { maxEntries } = config();
      if (writtenSincePrune >= Math.max(50, Math.floor(maxEntries / 10)) || pruneIsDue()) await prune();
    },
  };

  /**
   * A batch on its own: in one statement, else entry by entry. Either the database is away (no
   * entry goes in: the batch is kept, before what was queued since) or it refuses some entries
   * (the others go in, and the refused ones are dropped rather than holding back every later
   * entry forever).
   */
  async function writeAlone(batch: ActivityEntry[]): Promise<boolean> {
    try {
      await query().createMany({ data: batch });
      writtenSincePrune += batch.length;
      return true;
    } catch (error) {
      const { written, refusal } = await writeOneByOne(batch);
      if (written === 0) {
        strapi.log.warn(
          `[${PLUGIN_ID}] could not write ${batch.length} activity log entries (kept for the next attempt): ${(error as Error).message}`
        );
        queue = [...batch, ...queue].slice(-MAX_QUEUED);
        return false;
      }
      writtenSincePrune += written;
      strapi.log.warn(
        `[${PLUGIN_ID}] dropped ${batch.length - written} activity log entries the database refused: ${refusal}`
      );
      return true;
    }
  }

  async function writeOneByOne(batch: ActivityEntry[]) {
    let written = 0;
    let refusal = '';
    for (const entry of batch) {
      try {
        await query().create({ data: entry });
        written += 1;
      } catch (error) {
        refusal ||= (error as Error).message;
      }
    }
    return { written, refusal };
  }

  /** Writes what is queued and, with `openMinutes`, the aggregates of the current minute too. */
  function write({ openMinutes }: { openMinutes: boolean }): Promise<void> {
    enqueueAggregates({ openMinutes });
    return deferredWrites().flush(entries);
  }

  /** Writes everything recorded so far; resolves once it is stored (or the attempt failed and was logged). */
  const flush = () => write({ openMinutes: true });

  const pruneIsDue = () => Date.now() - lastPruneAt > PRUNE_INTERVAL_MS;

  /** Deletes all but the newest `count` rows that match `where`. */
  async function keepNewest(where: Record<string, unknown>, count: number) {
    const [oldestKept] = await query().findMany({
      where,
      select: ['id'],
      orderBy: { id: 'desc' },
      offset: count - 1,
      limit: 1,
    });
    if (oldestKept) await query().deleteMany({ where: { ...where, id: { $lt: oldestKept.id } } });
  }

  /**
   * Deliveries and refusal counts have separate budgets: however many counts strangers cause
   * (each minute, reason and address of theirs can add one), they only ever push out older counts.
   */
  async function prune() {
    const { maxEntries, maxAgeDays } = config();
    lastPruneAt = Date.now();
    writtenSincePrune = 0;
    try {
      // Bounded: a start must not wait for ever behind a lock on the log's table (a VACUUM FULL).
      await inBoundedTransaction(strapi, pluginConfig(strapi).lockTimeoutMs, async () => {
        await query().deleteMany({
          where: { receivedAt: { $lt: new Date(Date.now() - maxAgeDays * DAY_MS) } },
        });
        await keepNewest({ action: { $ne: UNAUTHENTICATED_ACTION } }, maxEntries);
        await keepNewest({ action: UNAUTHENTICATED_ACTION }, refusalBudget(maxEntries));
      });
    } catch (error) {
      strapi.log.warn(`[${PLUGIN_ID}] could not prune the activity log: ${(error as Error).message}`);
    }
  }

  return {
    /** Queues an exchange for the log. Never throws and never waits for the database. */
    record(exchange: Exchange) {
      queueEntry(() => entryOf(exchange));
    },

    /** Queues a row no request caused (the scheduler's). Never throws and never waits for the database. */
    recordEntry(entry: ActivityEntry) {
      queueEntry(() => entry);
    },

    /**
     * Counts a refusal of a request that was not authenticated; anyone can send those, so they
     * are aggregated instead of taking a row each. Never throws and never waits for the database.
     */
    recordRefusal(refusal: Refusal) {
      try {
        refusals.add({
          ...refusal,
          reason: fitColumn(refusal.reason, ENTRY_LIMITS.refusal),
          sourceAddress: fitColumn(refusal.sourceAddress || 'unknown', ENTRY_LIMITS.sourceAddress),
        });
        scheduleMinuteEnd();
      } catch (error) {
        strapi.log.warn(`[${PLUGIN_ID}] could not count a refused request: ${(error as Error).message}`);
      }
    },

    flush,

    /**
     * Writes the requests queued so far (not the current minute's refusal counts, which keep
     * counting): for a reader that must see every answered request, as the settings page's status does.
     */
    writeAnswered: () => write({ openMinutes: false }),

    prune,

    /** Prunes when the last pruning is older than the interval (a site that logs little still gets pruned). */
    async pruneIfDue() {
      if (pruneIsDue()) await prune();
    },
  };
};
