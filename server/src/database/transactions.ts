import type { Core } from '@strapi/strapi';
import type { Trx } from './knex';

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
