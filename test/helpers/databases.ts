import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * The database a test run targets, from TEST_DB (sqlite, postgres or mariadb). Each booted
 * site gets a database of its own, created here and dropped afterwards.
 */
export type TestDatabase = {
  client: 'sqlite' | 'postgres' | 'mariadb';
  env: Record<string, string>;
  drop(): Promise<void>;
};

export const testDatabaseClient = (): TestDatabase['client'] => {
  const value = process.env.TEST_DB ?? 'sqlite';
  if (value !== 'sqlite' && value !== 'postgres' && value !== 'mariadb') {
    throw new Error(`TEST_DB must be sqlite, postgres or mariadb, not "${value}"`);
  }
  return value;
};

export const PG = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
};
export const MARIADB = {
  host: process.env.MARIADB_HOST ?? '127.0.0.1',
  port: Number(process.env.MARIADB_PORT ?? 3306),
  user: process.env.MARIADB_USER ?? 'root',
};

export async function createTestDatabase(): Promise<TestDatabase> {
  const client = testDatabaseClient();
  const name = `pb_test_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  if (client === 'postgres') {
    const { Client } = require('pg');
    const admin = new Client({ ...PG, database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return {
      client,
      env: {
        DATABASE_CLIENT: 'postgres',
        DATABASE_HOST: PG.host,
        DATABASE_PORT: String(PG.port),
        DATABASE_NAME: name,
        DATABASE_USERNAME: PG.user,
        DATABASE_PASSWORD: '',
      },
      async drop() {
        const dropper = new Client({ ...PG, database: 'postgres' });
        await dropper.connect();
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await dropper.end();
      },
    };
  }
  if (client === 'mariadb') {
    const mysql = require('mysql2/promise');
    const admin = await mysql.createConnection({ ...MARIADB, password: '' });
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.end();
    return {
      client,
      env: {
        DATABASE_CLIENT: 'mysql',
        DATABASE_HOST: MARIADB.host,
        DATABASE_PORT: String(MARIADB.port),
        DATABASE_NAME: name,
        DATABASE_USERNAME: MARIADB.user,
        DATABASE_PASSWORD: '',
      },
      async drop() {
        const dropper = await mysql.createConnection({ ...MARIADB, password: '' });
        await dropper.query(`DROP DATABASE IF EXISTS ${name}`);
        await dropper.end();
      },
    };
  }
  // Strapi resolves the filename to a path, so ':memory:' would become a shared file: use a temporary one.
  const filename = path.join(os.tmpdir(), `${name}.db`);
  return {
    client,
    env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: filename },
    async drop() {
      await fs.rm(filename, { force: true });
    },
  };
}
