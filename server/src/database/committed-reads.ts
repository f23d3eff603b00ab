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
 * The second connection is opened as Strapi starts, when the site's pool opened its own, and
 * prepared the same way (the database config's `pool.afterCreate`: an encryption key,
 * functions); until it is open, and once Strapi stops (it destroys plugins before it closes its
 * HTTP server), reads go through the site's connection and never wait for it. Whatever else
 * fails on it, the read goes through the site's connection, and when that one answers, the
 * second connection is given up for good: a site whose file only its own connection can read
 * keeps its page list. Other databases, whose pools hold many connections, read through the
 * site's connection.
 */
export function committedReads(strapi: Core.Strapi) {
  let opening: Promise<void> | undefined;
  let own: DriverConnection | undefined;
  /** Strapi stopped, or the connection failed a read the site's answered: every read goes through the site's. */
  let siteOnly = false;

  function giveUp(why: string) {
    siteOnly = true;
    own = undefined;
    strapi.log.warn(
      `[${PLUGIN_ID}] the page list reads through the site's connection: a read-only one of its own ${why}`
    );
  }

  return {
    /** Opens the reading connection where the site's database is a SQLite file; reads do not wait for it. */
    open() {
      opening ??= openReadingConnection(strapi).then(
        (connection) => {
          if (siteOnly) connection?.close();
          else own = connection;
        },
        (error: unknown) => {
          // Not said once Strapi stopped: nothing reads then.
          if (!siteOnly) giveUp(`did not open (${driverMessageOf(error)})`);
        }
      );
    },

    /** Runs `query` through the reading connection, or through the site's where there is none or it fails. */
    async read<Row>(query: Query): Promise<Row[]> {
      const connection = own;
      if (!connection) return query;
      try {
        return await query.clone().connection(connection);
      } catch (error) {
        const rows: Row[] = await query;
        if (!isSqliteBusy(error) && own === connection) {
          giveUp(`failed a read the site's answered (${driverMessageOf(error)})`);
          connection.close();
        }
        return rows;
      }
    },

    /** Closes the reading connection, now or once it has opened; every read after this goes through the site's. */
    close() {
      siteOnly = true;
      own?.close();
      own = undefined;
    },
  };
}

/**
 * A read-only connection to the site's SQLite file, prepared as the site's pool prepares each of
 * its own, under the same conditions (the driver's busy timeout included, as Strapi starts);
 * undefined for any other database. Then it never waits for a lock.
 */
async function openReadingConnection(strapi: Core.Strapi): Promise<DriverConnection | undefined> {
  const client = strapi.db.connection.client as DriverClient;
  if (strapi.db.dialect.client !== 'sqlite' || !client.connectionSettings?.filename) return undefined;
  const connection = await client.acquireRawConnection();
  try {
    await prepareAsTheSitePrepares(client, connection);
    connection.pragma('query_only = ON');
    connection.pragma('busy_timeout = 0');
    // A site that locks its file for its one connection (locking_mode EXCLUSIVE) must not find it
    // locked by this one, which would keep the shared lock of its first read.
    connection.pragma('locking_mode = NORMAL');
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
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
