import type { Core } from '@strapi/strapi';
import { endsTransaction } from '../utils/database-errors';
import type { Trx } from './knex';

/**
 * The database ended the whole transaction the plugin's work ran in a savepoint of (its error is
 * the `cause`): whoever began it must hear of it, since what it runs next would run outside any
 * transaction. A plugin's write then is tried again, as after any deadlock.
 */
export class TransactionEnded extends Error {
  constructor(cause: unknown) {
    super(`the database ended the transaction: ${(cause as Error)?.message ?? String(cause)}`, { cause });
    this.name = 'TransactionEnded';
  }
}

/**
 * Runs `work` in a savepoint of `trx`: a statement the database refuses rolls back to the
 * savepoint alone, and the caller may go on with its transaction. Where the database ended the
 * whole transaction instead (endsTransaction: a deadlock on MySQL and MariaDB, which forget the
 * savepoint too, so knex's rollback to it fails in its turn), the failure is TransactionEnded.
 */
export async function inSavepoint<T>(trx: Trx, work: (savepoint: Trx) => Promise<T>): Promise<T> {
  let failure: unknown;
  try {
    return await trx.transaction(async (savepoint) => {
      try {
        return await work(savepoint);
      } catch (error) {
        failure = error;
        throw error;
      }
    });
  } catch (error) {
    throw endsTransaction(failure) ? new TransactionEnded(failure) : error;
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
