import { AsyncLocalStorage } from 'node:async_hooks';
import type { Core } from '@strapi/strapi';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { ContractError } from '../../contract/errors';
import {
  isConnectionFailure,
  isLockWaitExceeded,
  isLostConnection,
  isRetryableConflict,
} from '../../utils/database-errors';
import { getService, pluginConfig } from '../../plugin';
import type { Trx } from '../../database/knex';
import { limitLockWaits } from '../../database/lock-waits';
import { failWhenCommitFails, isolationLevels } from '../../database/transactions';

const MAX_ATTEMPTS = 16;
const FIRST_BACKOFF_MS = 10;
const MAX_BACKOFF_MS = 1_000;
/** How long the plugin's work on SQLite runs before it lets the server's other requests in (see shareTheThread). */
const TURN_MS = 5;

type DriverConnection = {
  on?(event: string, listener: (error?: unknown) => void): unknown;
  off?(event: string, listener: (error?: unknown) => void): unknown;
  /** Set by knex when the driver reported the connection broken, possibly before the watch began. */
  __knex__disposed?: unknown;
};

export type Transaction = { trx: Trx };

/**
 * Waits a random time up to a ceiling that doubles with every attempt ("full jitter"), so
 * requests that lost the same race do not all come back at the same moment and collide again.
 */
const backoff = (attempt: number) =>
  sleep(Math.random() * Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt));

export class ConnectionLostError extends Error {
  constructor(cause: unknown) {
    super(
      `The database connection was lost during the transaction: ${(cause as Error)?.message ?? 'closed'}`
    );
  }
}

/**
 * Rejects once the transaction's connection fails or closes. When a connection dies in the
 * middle of a query, Strapi 5.54 can leave a promise of its own pending for ever (measured on
 * PostgreSQL: the request hung and kept its pool slot); racing the work against this makes the
 * transaction end, roll back and give the slot back.
 */
function watchConnection(connection: DriverConnection) {
  let stop = () => {};
  let lost = false;
  const failure = new Promise<never>((_, reject) => {
    if (typeof connection?.on !== 'function' || typeof connection.off !== 'function') return;
    const onLost = (cause?: unknown) => {
      lost = true;
      reject(new ConnectionLostError(cause));
    };
    connection.on('error', onLost);
    connection.on('end', onLost);
    stop = () => {
      connection.off!('error', onLost);
      connection.off!('end', onLost);
    };
  });
  // Only observed through Promise.race; a connection that dies after the work ended is no one's concern.
  failure.catch(() => {});
  return {
    failure,
    stop: () => stop(),
    wasLost: () => lost || Boolean(connection?.__knex__disposed),
  };
}

/**
 * The attempt whose work runs in this async context. An attempt whose connection died stops
 * waiting for its work, which may wait for ever on a promise Strapi left pending, and Strapi
 * forgets a transaction once it rolled it back: the work's later writes would each get a
 * transaction of their own, on a live connection, and commit (seen under connection kills on
 * PostgreSQL: a category stored twice, once by such work and once by the retry). So abandoned
 * work is stopped at its next Document Service call, before Strapi opens a transaction for it
 * or validates anything, and at its next write through the query engine, which also catches a
 * call that was under way. The query engine's reads are let through: Strapi's validators read
 * without handling a failure. The plugin's own queries name their transaction, and fail on its
 * dead connection.
 */
const attempts = new AsyncLocalStorage<{ abandoned: boolean }>();

/** Whether the caller runs inside the plugin's own unit of work, rather than an editor's or another plugin's. */
export const isPluginWork = (): boolean => attempts.getStore() !== undefined;
const WRITES = new Set([
  'beforeCreate',
  'beforeCreateMany',
  'beforeUpdate',
  'beforeUpdateMany',
  'beforeDelete',
  'beforeDeleteMany',
]);

const COMMIT_UNKNOWN =
  'The connection to the database was lost while this write was being committed, so the site cannot tell whether it was saved. Send it again: an entry with the same source_id is found and updated, not created a second time.';
export const NOTHING_SAVED =
  'The database could not be reached (it may be restarting), and nothing was saved. Send the request again in a moment.';

/** How far one attempt of a transaction got: whether and how run() may retry it. */
type AttemptState = {
  watch?: ReturnType<typeof watchConnection>;
  began: boolean;
  workEnded: boolean;
  endedUnderTheWork: boolean;
  /** The first conflict or lock wait the database reported to a statement of the attempt. */
  databaseRefusal?: unknown;
};

/**
 * Why an attempt failed. A deadlock, a conflict or a lock wait the database reported to one of
 * its statements is the cause, even when the work ended with another error: Strapi's update
 * (@strapi/database entity-manager `update`) answers a failed write of relations by writing the
 * row back as it read it, raw, and throws that write's error when it fails in turn, as it does
 * after a deadlock: on MariaDB a syntax error (mysql2 reads a json column as an array, which knex
 * expands into a list), on PostgreSQL "current transaction is aborted". The request answered 500
 * where the deadlock is retried and the lock wait answers 503. An error of the plugin's own
 * contract is never replaced: the work chose it.
 */
function causeOf(error: unknown, { databaseRefusal }: AttemptState): unknown {
  if (databaseRefusal === undefined || error instanceof ContractError) return error;
  return isRetryableConflict(error) || isLockWaitExceeded(error) ? error : databaseRefusal;
}

/** A write that failed because the database went away, as a 503 that says whether it may have been saved. */
function databaseWentAway(
  error: unknown,
  { watch, workEnded }: { watch?: ReturnType<typeof watchConnection>; workEnded: boolean }
): ContractError | undefined {
  if (error instanceof ContractError || !(isLostConnection(error) || watch?.wasLost())) return undefined;
  return new ContractError(503, workEnded ? COMMIT_UNKNOWN : NOTHING_SAVED);
}

/**
 * Runs a unit of work in one database transaction, so a failure leaves nothing half-written.
 * A unique violation or deadlock means a concurrent request created the same entity first;
 * the whole unit is rolled back and run again, and the next run finds that entity. A
 * connection lost before the work finished is retried too: nothing was committed, since the
 * commit had not been sent. A connection lost during the commit is not retried, because the
 * commit may have happened. A transaction that could not begin because the database was
 * unreachable is tried again for a few seconds (the backoff), which rides out a restart or
 * failover. A write the database went away under answers 503 saying what became of it, not 500.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const receipts = () => getService(strapi, 'receipts');
  const isolation = isolationLevels(strapi);
  /** Known once a transaction has asked the server; until then each transaction asks on its own connection. */
  let readCommittedIsSafe: boolean | undefined;
  /** The units of work run() started that have not ended yet (see settle). */
  const underWay = new Set<Promise<unknown>>();
  let stopping = false;

  /**
   * MySQL and MariaDB default to REPEATABLE READ, where looking up a key that does not exist
   * yet (`SELECT ... FOR UPDATE`) takes a gap lock: concurrent publishes of new names then
   * deadlock on their inserts over and over, and their reads see a snapshot older than the row
   * locks they waited for. READ COMMITTED, PostgreSQL's default, has neither problem: a second
   * insert of a key waits for the first and then fails on the unique index, and is retried.
   * Strapi opens the transaction without options, so it is restarted at READ COMMITTED on the
   * same connection, unless the server's binary logging refuses writes at that level.
   */
  async function useReadCommitted(trx: Trx) {
    if (!isolation.beginsAtRepeatableRead()) return;
    readCommittedIsSafe ??= await isolation.binlogAllowsReadCommitted(trx);
    if (!readCommittedIsSafe) return;
    await isolation.restartAtReadCommitted(trx);
  }

  /**
   * One attempt of run(): the work in a transaction of its own, raced against the loss of its
   * connection. `attemptState` records how far it got, which decides whether run() retries.
   */
  async function runAttempt<T>(
    work: (transaction: Transaction) => Promise<T>,
    attemptState: AttemptState
  ): Promise<T> {
    return strapi.db.transaction(async ({ trx }: Transaction) => {
      attemptState.began = true;
      failWhenCommitFails(trx);
      trx.on('query-error', (error: unknown) => {
        if (isRetryableConflict(error) || isLockWaitExceeded(error)) attemptState.databaseRefusal ??= error;
      });
      const watch = watchConnection((await trx.client.acquireConnection()) as DriverConnection);
      attemptState.watch = watch;
      let restoreLockWaits = async () => {};
      try {
        await useReadCommitted(trx);
        restoreLockWaits = await limitLockWaits(strapi, trx, pluginConfig(strapi).lockTimeoutMs);
        await receipts().claimInTransaction(trx);
        const attempt = { abandoned: false };
        const working = attempts.run(attempt, () => work({ trx }));
        const result = await Promise.race([working, watch.failure]).catch((error) => {
          attempt.abandoned = true;
          throw error;
        });
        await restoreLockWaits();
        attemptState.workEnded = true;
        return result;
      } catch (error) {
        // The session is the pool's: its own lock-wait limits back, unless its connection is gone.
        await restoreLockWaits().catch(() => {});
        // Knex ends a transaction whose BEGIN failed on a dropped connection; nothing of it was committed.
        attemptState.endedUnderTheWork = trx.isCompleted();
        throw error;
      }
    });
  }

  async function runWithRetries<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      const attemptState: AttemptState = { began: false, workEnded: false, endedUnderTheWork: false };
      try {
        return await runAttempt(work, attemptState);
      } catch (thrown) {
        const error = causeOf(thrown, attemptState);
        // Checked after the rollback: the driver reports a dropped connection just after the query that hit it.
        const lostMidWork =
          !attemptState.workEnded &&
          (attemptState.endedUnderTheWork || Boolean(attemptState.watch?.wasLost()));
        const couldNotBegin = !attemptState.began && isConnectionFailure(error);
        if (attempt >= MAX_ATTEMPTS || !(isRetryableConflict(error) || lostMidWork || couldNotBegin))
          throw databaseWentAway(error, attemptState) ?? error;
        await backoff(attempt);
      } finally {
        attemptState.watch?.stop();
      }
    }
  }

  return {
    /**
     * On SQLite, lets the server's other requests in while the plugin's work runs. better-sqlite3
     * answers each statement on the server's one thread before it returns, so a publish's
     * statements (40 ms of them on the bench's machine) ran in one turn of the event loop: a
     * request that arrived meanwhile, a visitor's or the publisher's next page of its walk,
     * waited for it and for the publish queued behind it (`npm run bench -- --only H --items
     * 20000`: the walk took 10 times as long while two clients published). Now, before each
     * operation of its own work that comes TURN_MS or more after the last turn it gave, the plugin
     * waits for the event loop's next turn. Other databases' drivers answer through the network,
     * which gives a turn at every statement. Only where the site's pool holds one connection (knex's
     * default for SQLite): with two, a write of the other connection during the turn would wait,
     * blocking the thread, for the lock the plugin's transaction holds. Registered before
     * refuseAbandonedWork, whose check then sees a transaction abandoned during the wait.
     */
    shareTheThread() {
      const pool = (strapi.db.connection.client as { pool?: { max?: number } }).pool;
      if (strapi.db.dialect.client !== 'sqlite' || pool?.max !== 1) return;
      let turnGivenAt = performance.now();
      strapi.db.lifecycles.subscribe(({ action }: { action: string }) => {
        if (stopping || !action.startsWith('before') || !isPluginWork()) return undefined;
        if (performance.now() - turnGivenAt < TURN_MS) return undefined;
        return nextTurn().then(() => {
          turnGivenAt = performance.now();
        });
      });
    },

    /** Makes the Document Service calls and the writes of work that a transaction abandoned fail before they run. */
    refuseAbandonedWork() {
      const refuseIfAbandoned = () => {
        if (attempts.getStore()?.abandoned)
          throw new ConnectionLostError(new Error('its transaction was rolled back'));
      };
      strapi.documents.use((_context, next) => {
        refuseIfAbandoned();
        return next();
      });
      strapi.db.lifecycles.subscribe((event: { action: string }) => {
        if (WRITES.has(event.action)) refuseIfAbandoned();
      });
    },

    /**
     * Runs `work` in a transaction of its own, retried where nothing of it can have been saved.
     * Inside a caller's transaction, the work joins it; retrying is the outermost run's job.
     */
    async run<T>(work: (transaction: Transaction) => Promise<T>): Promise<T> {
      if (strapi.db.inTransaction()) return strapi.db.transaction(({ trx }: Transaction) => work({ trx }));
      const running = runWithRetries(work);
      underWay.add(running);
      const ended = () => underWay.delete(running);
      running.then(ended, ended);
      return running;
    },

    /**
     * Waits for the work under way, as Strapi stops: it clears the lifecycle subscribers (the
     * timestamps among them), then waits for the connections, so work that went on past that
     * point committed rows without their timestamps, and its answer found the HTTP server closed.
     * From now on the work gives no turns.
     */
    async settle(): Promise<void> {
      stopping = true;
      await Promise.allSettled([...underWay]);
    },
  };
};
