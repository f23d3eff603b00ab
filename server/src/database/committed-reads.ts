import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import type { Query } from './knex';

/** A connection of the database driver's own, outside knex's pool (a better-sqlite3 Database). */
type DriverConnection = { pragma(source: string): unknown; close(): unknown };

/** The part of knex's client that opens a connection of the driver's own, with the site's settings. */
type DriverClient = {
  connectionSettings?: { filename?: string };
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
 * goes through the site's connection, as before. Other databases, whose pools hold many
 * connections, and an in-memory SQLite database read through the site's connection.
 */
export function committedReads(strapi: Core.Strapi) {
  let opened: Promise<DriverConnection | undefined> | undefined;

  async function open(): Promise<DriverConnection | undefined> {
    const client = strapi.db.connection.client as DriverClient;
    const filename = client.connectionSettings?.filename;
    if (strapi.db.dialect.client !== 'sqlite' || !filename || filename === ':memory:') return undefined;
    const connection = await client.acquireRawConnection();
    connection.pragma('query_only = ON');
    connection.pragma('busy_timeout = 0');
    return connection;
  }

  return {
    /** Runs `query` through the reading connection, or through the site's where there is none or the file is locked. */
    async read<Row>(query: Query): Promise<Row[]> {
      opened ??= open().catch((error: Error) => {
        strapi.log.warn(
          `[${PLUGIN_ID}] the page list reads through the site's connection: a read-only one of its own did not open (${error.message})`
        );
        return undefined;
      });
      const connection = await opened;
      if (!connection) return query;
      try {
        return await query.clone().connection(connection);
      } catch (error) {
        if ((error as { code?: unknown }).code === 'SQLITE_BUSY') return query;
        throw error;
      }
    },

    /** Closes the reading connection, if one was opened; the next read opens another. */
    async close() {
      const connection = await opened;
      opened = undefined;
      connection?.close();
    },
  };
}
