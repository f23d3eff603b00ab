import type { Core } from '@strapi/strapi';
import { driverMessageOf } from '../utils/database-errors';
import type { Trx } from './knex';

/** The flag of a MySQL or MariaDB answer that says a transaction is open on its connection. */
const SERVER_STATUS_IN_TRANS = 1;

/**
 * The database ended the whole transaction the plugin's work ran in a savepoint of (its error is
 * the `cause`): whoever began it must hear of it, since what it runs next would run outside any
 * transaction. A plugin's write then is tried again, as after any deadlock.
 */
export class TransactionEnded extends Error {
  constructor(cause: unknown) {
    super(`the database ended the transaction: ${driverMessageOf(cause)}`, { cause });
    this.name = 'TransactionEnded';
  }
}

/** Whether MySQL or MariaDB still has a transaction open on `trx`'s connection (no answer: none). */
async function mysqlTransactionOpen(trx: Trx): Promise<boolean> {
  try {
    const [header] = (await trx.raw('DO 0')) as [{ serverStatus?: number }];
    return ((header?.serverStatus ?? 0) & SERVER_STATUS_IN_TRANS) !== 0;
  } catch {
    return false;
  }
}

/**
 * Knex resolves the commit of a transaction whose COMMIT failed (a connection lost as it was
 * sent) and rejects only the transaction's own promise, which Strapi does not await: the write
 * answered 200 for a post that was rolled back, and Strapi ran its after-commit callbacks (the
 * document events behind webhooks, the content history) for it. Made to fail, the commit throws
 * before Strapi runs them.
 */
export function failWhenCommitFails(trx: Trx) {
  // Knex types `commit` as its query builder; Strapi only awaits it, so a promise stands in.
  const transaction = trx as unknown as { commit(...args: unknown[]): Promise<unknown> };
  const commit = transaction.commit.bind(trx);
  transaction.commit = async (...args: unknown[]) => {
    const committed = await commit(...args);
    // Settles once the transaction ended: rejected when its COMMIT failed.
    await trx.executionPromise;
    return committed;
  };
}

/**
 * Runs `work` in a savepoint of `trx`: a statement the database refuses rolls back to the
 * savepoint alone, and the caller may go on with its transaction. MySQL and MariaDB end the whole
 * transaction on some failures instead, savepoints and all: a deadlock, MariaDB's snapshot
 * conflict (ER_CHECKREAD, from 11.6.2), a lock wait with innodb_rollback_on_timeout. Which ones
 * depends on the server and its settings, so after a failure the server is asked whether the
 * transaction is still open; when not, the failure is TransactionEnded. (knex's mysql2 dialect
 * then logs "Transaction was implicitly committed, do not mix transactions and DDL": it reads the
 * rollback to a savepoint that is gone as DDL's doing.)
 */
export async function inSavepoint<T>(
  strapi: Core.Strapi,
  trx: Trx,
  work: (savepoint: Trx) => Promise<T>
): Promise<T> {
  try {
    return await trx.transaction((savepoint) => work(savepoint));
  } catch (error) {
    const ended = strapi.db.dialect.client === 'mysql' && !(await mysqlTransactionOpen(trx));
    throw ended ? new TransactionEnded(error) : error;
  }
}

/**
 * The statements that set the isolation level of the plugin's transactions: only MySQL and
 * MariaDB need them, since they begin transactions at REPEATABLE READ; each runs on the
 * transaction's own connection.
 */
export function isolationLevels(strapi: Core.Strapi) {
  return {
    /** Whether the database begins a transaction at REPEATABLE READ (MySQL and MariaDB). */
    beginsAtRepeatableRead: () => strapi.db.dialect.client === 'mysql',

    /**
     * Whether the server accepts writes at READ COMMITTED: statement-based binary logging refuses
     * them. Asked on the transaction's own connection: a query on the pool would wait for a free
     * connection while this transaction holds one, and when a burst of requests holds them all
     * (the first burst after boot), every transaction waited for the pool's acquire timeout (60 s)
     * and answered 500 (seen with two instances on MariaDB).
     */
    async binlogAllowsReadCommitted(trx: Trx): Promise<boolean> {
      const [rows] = (await trx.raw('SELECT @@log_bin AS logBin, @@binlog_format AS binlogFormat')) as [
        Array<{ logBin: number | string; binlogFormat: string }>,
      ];
      const { logBin, binlogFormat } = rows[0];
      return Number(logBin) !== 1 || String(binlogFormat).toUpperCase() !== 'STATEMENT';
    },

    /**
     * Ends the empty transaction Strapi began on `trx`'s connection and starts a READ COMMITTED
     * one in its place; Strapi's commit or rollback then ends that one.
     */
    async restartAtReadCommitted(trx: Trx): Promise<void> {
      await trx.raw('COMMIT');
      await trx.raw('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      await trx.raw('START TRANSACTION');
    },
  };
}
