import { CLIENTS, createDatabase, PG } from '../../scripts/lib/databases';

export { PG };

/**
 * The database a test run targets, from TEST_DB (sqlite, postgres or mariadb). Each booted
 * site gets a database of its own, created here and dropped afterwards.
 */
export type TestDatabase = Awaited<ReturnType<typeof createDatabase>>;

export const testDatabaseClient = (): TestDatabase['client'] => {
  const value = process.env.TEST_DB ?? 'sqlite';
  if (!(CLIENTS as string[]).includes(value)) {
    throw new Error(`TEST_DB must be sqlite, postgres or mariadb, not "${value}"`);
  }
  return value as TestDatabase['client'];
};

export const createTestDatabase = (): Promise<TestDatabase> =>
  createDatabase(testDatabaseClient(), 'pb_test');
