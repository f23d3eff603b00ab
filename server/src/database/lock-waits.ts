import type { Core } from '@strapi/strapi';
import type { Trx } from './knex';
import { inSavepoint } from './transactions';

/**
 * Bounds how long the statements of one of the plugin's transactions wait for a lock another
 * session holds (a long job, a migration, a backup): past `lockTimeoutMs` the statement fails
 * and the request answers 503 instead of hanging. PostgreSQL scopes the setting to the
 * transaction. MySQL and MariaDB only have it per session, on a connection the site's pool
 * shares: the returned function gives the session its own values back before the transaction
 * ends. SQLite locks the whole file, the site's tables with it; its driver's
 * own busy timeout applies.
 */
export async function limitLockWaits(
  strapi: Core.Strapi,
  trx: Trx,
  lockTimeoutMs: number
): Promise<() => Promise<void>> {
  const client = strapi.db.dialect.client;
  if (client === 'postgres') {
    await trx.raw(`SET LOCAL lock_timeout = ${Math.ceil(lockTimeoutMs)}`);
    return async () => {};
  }
  if (client === 'mysql') {
    const seconds = Math.max(1, Math.ceil(lockTimeoutMs / 1_000));
    // Row locks (InnoDB) and table or metadata locks (LOCK TABLES, ALTER TABLE) have their own
    // limits. The session's own values (a site may set them on each connection, in its pool's
    // afterCreate) are kept in the same statement, left to right, and given back after.
    await trx.raw(
      'SET @publish_bridge_innodb_lock_wait_timeout = @@SESSION.innodb_lock_wait_timeout, @publish_bridge_lock_wait_timeout = @@SESSION.lock_wait_timeout, SESSION innodb_lock_wait_timeout = ?, lock_wait_timeout = ?',
      [seconds, seconds]
    );
    return async () => {
      await trx.raw(
        'SET SESSION innodb_lock_wait_timeout = @publish_bridge_innodb_lock_wait_timeout, lock_wait_timeout = @publish_bridge_lock_wait_timeout'
      );
    };
  }
  return async () => {};
}

/**
 * Runs `work` in a transaction of its own whose lock waits are bounded as above: statements the
 * plugin runs outside a request (the start's pruning, an editor's publish that cancels a waiting
 * one) then never hang on a table another session keeps locked; the wait fails instead, and the
 * caller logs it. Inside a caller's transaction the work runs unbounded in a savepoint of it: a
 * failed statement rolls back to the savepoint only, where it would abort the caller's whole
 * transaction on PostgreSQL (an editor's publish in the Content Manager), which is not the
 * plugin's to risk. A failure that ended the caller's transaction all the same is
 * TransactionEnded, which the plugin's code passes on to the caller.
 */
export async function inBoundedTransaction<T>(
  strapi: Core.Strapi,
  lockTimeoutMs: number,
  work: (trx: Trx) => Promise<T>
): Promise<T> {
  const bounded = !strapi.db.inTransaction();
  // Strapi types the callback's promise as the answer itself; it resolves to what `work` did.
  return (await strapi.db.transaction(async ({ trx }: { trx: Trx }) => {
    const restore = bounded ? await limitLockWaits(strapi, trx, lockTimeoutMs) : async () => {};
    try {
      return bounded ? await work(trx) : await inSavepoint(strapi, trx, work);
    } finally {
      // The session is the pool's: its own values back, unless its connection is gone.
      await restore().catch(() => {});
    }
  })) as T;
}
