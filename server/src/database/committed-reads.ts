import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import { driverMessageOf, isSqliteBusy } from '../utils/database-errors';
import type { Query } from './knex';

/** A connection of the database driver's own, outside knex's pool (a better-sqlite3 Database). */
type DriverConnection = { pragma(source: string): unknown; close(): unknown };

/** The part of knex's client that opens a connection of the driver's own, with the site's settings. */
type DriverClient = {
  connectionSettings?: { filename?: string };
  config: { pool?: { afterCreate?: (connection: DriverConnection, done: (error?: Error) => void) => void } };
  acquireRawConnection(): Promise<DriverConnection>;
};

/**
 * Reads that must not queue behind the site's writes. SQLite serves the site through one
 * connection (knex's pool of one), which Strapi holds for a whole write transaction: a page of
 * the publisher's walk waited for every publish queued before it. On SQLite these reads go
 * through a second connection to the same file, read-only, which reads what is committed
 * between a write's statements; better-sqlite3 runs each statement to its end on this thread, so
 * a read never holds a lock a write waits for. It never waits for a lock either (busy_timeout
 * 0): while a write holds the file (a large transaction whose pages spilled into it) the read
 * goes through the site's connection, as before.
 *
 * The second connection is prepared as the site's pool prepares each of its own (the database
 * config's `pool.afterCreate`: an encryption key, functions). Whatever else fails on it, the read
 * goes through the site's connection, and when that one answers, the second connection is given
 * up for good: a site whose file only its own connection can read keeps its page list. Other
 * databases, whose pools hold many connections, read through the site's connection, and so does
 * every read once Strapi stops (it destroys plugins before it closes its HTTP server).
 */
export function committedReads(strapi: Core.Strapi) {
  let opened: Promise<DriverConnection | undefined> | undefined;
  /** Strapi stopped, or the connection failed a read the site's answered: every read goes through the site's. */
  let siteOnly = false;

  async function open(): Promise<DriverConnection | undefined> {
    const client = strapi.db.connection.client as DriverClient;
    const filename = client.connectionSettings?.filename;
    if (strapi.db.dialect.client !== 'sqlite' || !filename) return undefined;
    const connection = await client.acquireRawConnection();
    try {
      await prepareAsTheSitePrepares(client, connection);
      connection.pragma('query_only = ON');
      connection.pragma('busy_timeout = 0');
      return connection;
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  function giveUp(why: string) {
    siteOnly = true;
    strapi.log.warn(
      `[${PLUGIN_ID}] the page list reads through the site's connection: a read-only one of its own ${why}`
    );
  }

  return {
    /** Runs `query` through the reading connection, or through the site's where there is none or it fails. */
    async read<Row>(query: Query): Promise<Row[]> {
      opened ??= open().catch((error: Error) => {
        giveUp(`did not open (${error.message})`);
        return undefined;
      });
      const own = siteOnly ? undefined : await opened;
      if (!own || siteOnly) return query;
      try {
        return await query.clone().connection(own);
      } catch (error) {
        const rows: Row[] = await query;
        if (!isSqliteBusy(error) && !siteOnly) {
          giveUp(`failed a read the site's answered (${driverMessageOf(error)})`);
          own.close();
        }
        return rows;
      }
    },

    /** Closes the reading connection, if one was opened; every read after this goes through the site's. */
    async close() {
      const wasOpen = !siteOnly;
      siteOnly = true;
      const own = await opened;
      if (wasOpen) own?.close();
    },
  };
}

/** How long the site's `pool.afterCreate` may take on the reading connection (knex's pool would wait its acquire timeout). */
const PREPARE_TIMEOUT_MS = 10_000;

/**
 * Runs the database config's `pool.afterCreate` on `connection`, as knex's pool runs it on each of
 * the site's. Strapi's own step in it never calls back when it fails, so it is given a time limit.
 */
function prepareAsTheSitePrepares(client: DriverClient, connection: DriverConnection): Promise<void> {
  const afterCreate = client.config.pool?.afterCreate;
  if (!afterCreate) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  return new Promise<void>((resolve, reject) => {
    timer = setTimeout(() => reject(new Error('its pool.afterCreate did not finish')), PREPARE_TIMEOUT_MS);
    afterCreate(connection, (error) => (error ? reject(error) : resolve()));
  }).finally(() => clearTimeout(timer));
}
