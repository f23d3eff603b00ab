import { CLIENTS, createDatabase, driver, MARIADB, PG } from '../../scripts/lib/databases';

export { PG };

/**
 * The database a test run targets, from TEST_DB (sqlite, postgres or mariadb). Each booted
 * site gets a database of its own, created here and dropped afterwards: a copy of the run's
 * template (test/helpers/template-database.ts) when jest made one, else an empty one.
 */
export type TestDatabase = Awaited<ReturnType<typeof createDatabase>>;

export const testDatabaseClient = (): TestDatabase['client'] => {
  const value = process.env.TEST_DB ?? 'sqlite';
  if (!(CLIENTS as string[]).includes(value)) {
    throw new Error(`TEST_DB must be sqlite, postgres or mariadb, not "${value}"`);
  }
  return value as TestDatabase['client'];
};

/** Where the template's name (or SQLite file) is passed from jest's global setup to its workers. */
export const TEMPLATE_VARIABLE = 'PB_TEST_TEMPLATE_DATABASE';

export const createTestDatabase = (): Promise<TestDatabase> =>
  createDatabase(testDatabaseClient(), 'pb_test', process.env[TEMPLATE_VARIABLE]);

/**
 * What a failover or restart does to a site's database, done to one test database alone so
 * that tests running at the same time keep theirs. Each operation the way its server offers it.
 */
export type DatabaseFaults = {
  /**
   * The DATABASE_* variables a site must connect with for refuseConnections to reach it: on
   * MariaDB a user of the database's own, since refusing is done by locking that user.
   */
  siteEnv: Record<string, string>;
  /** The server's id of the connection a knex transaction (or knex) runs on. */
  connectionIdOf(knex: any): Promise<number>;
  /** Ends one connection, as a restart would; answers how many ended (0 or 1). */
  kill(connectionId: number): Promise<number>;
  /** Ends every connection open to the database; answers how many. */
  /**
   * Ends every connection open to the database; answers how many, and how many of them were in
   * a transaction at that moment (a write in flight, not an idle pool connection).
   */
  killAll(): Promise<{ killed: number; inTransaction: number }>;
  /** New connections are refused until allowConnections; open ones are left as they are. */
  refuseConnections(): Promise<void>;
  allowConnections(): Promise<void>;
  end(): Promise<void>;
};

/** The database servers whose connections a test can cut: SQLite has none. */
export const canCutConnections = (client: TestDatabase['client']) => client !== 'sqlite';

export async function connectDatabaseFaults(database: TestDatabase): Promise<DatabaseFaults> {
  const name = database.env.DATABASE_NAME;
  switch (database.client) {
    case 'postgres': {
      const { Client } = driver('pg');
      const admin = new Client({ ...PG, database: 'postgres' });
      await admin.connect();
      const setAllowConnections = (allowed: boolean) =>
        admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS ${allowed}`);
      return {
        siteEnv: {},
        async connectionIdOf(knex) {
          const { rows } = await knex.raw('SELECT pg_backend_pid() AS id');
          return rows[0].id;
        },
        kill: async (connectionId) =>
          (await admin.query('SELECT pg_terminate_backend($1)', [connectionId])).rowCount,
        async killAll() {
          const { rows } = await admin.query(
            `SELECT pg_terminate_backend(pid) AS killed, xact_start IS NOT NULL AS in_transaction
             FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`,
            [name]
          );
          return {
            killed: rows.filter((row: { killed: boolean }) => row.killed).length,
            inTransaction: rows.filter((row: { in_transaction: boolean }) => row.in_transaction).length,
          };
        },
        refuseConnections: () => setAllowConnections(false),
        async allowConnections() {
          await setAllowConnections(true);
        },
        async end() {
          await setAllowConnections(true).catch(() => undefined);
          await admin.end();
        },
      };
    }
    case 'mariadb': {
      const mysql = driver('mysql2/promise');
      const admin = await mysql.createConnection({ ...MARIADB, password: '' });
      // MariaDB has no per-database switch for connections; a locked account is refused at login.
      const siteUser = `'${name}'@'%'`;
      await admin.query(`CREATE USER ${siteUser}`);
      await admin.query(`GRANT ALL ON ${name}.* TO ${siteUser}`);
      const kill = async (connectionId: number) => {
        try {
          await admin.query(`KILL CONNECTION ${Number(connectionId)}`);
          return 1;
        } catch (error) {
          // The connection ended on its own between being listed and being killed.
          if ((error as { code?: string }).code === 'ER_NO_SUCH_THREAD') return 0;
          throw error;
        }
      };
      return {
        siteEnv: { DATABASE_USERNAME: name, DATABASE_PASSWORD: '' },
        async connectionIdOf(knex) {
          const [rows] = await knex.raw('SELECT CONNECTION_ID() AS id');
          return rows[0].id;
        },
        kill,
        async killAll() {
          const [rows] = await admin.query(
            `SELECT p.ID AS id, t.trx_id IS NOT NULL AS in_transaction
             FROM information_schema.PROCESSLIST p
             LEFT JOIN information_schema.INNODB_TRX t ON t.trx_mysql_thread_id = p.ID
             WHERE p.DB = ? AND p.ID <> CONNECTION_ID()`,
            [name]
          );
          const killed = await Promise.all(rows.map((row: { id: number }) => kill(row.id)));
          return {
            killed: killed.reduce((sum, count) => sum + count, 0),
            inTransaction: rows.filter((row: { in_transaction: number }) => Number(row.in_transaction) === 1)
              .length,
          };
        },
        async refuseConnections() {
          await admin.query(`ALTER USER ${siteUser} ACCOUNT LOCK`);
        },
        async allowConnections() {
          await admin.query(`ALTER USER ${siteUser} ACCOUNT UNLOCK`);
        },
        async end() {
          await admin.query(`DROP USER IF EXISTS ${siteUser}`).catch(() => undefined);
          await admin.end();
        },
      };
    }
    default:
      throw new Error(`${database.label} has no connections to cut`);
  }
}
