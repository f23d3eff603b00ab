'use strict';

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const PG = {
  host: process.env.PGHOST ?? '127.0.0.1',
  port: Number(process.env.PGPORT ?? 5432),
  user: process.env.PGUSER ?? 'postgres',
};
const MARIADB = {
  host: process.env.MARIADB_HOST ?? '127.0.0.1',
  port: Number(process.env.MARIADB_PORT ?? 3306),
  user: process.env.MARIADB_USER ?? 'root',
};

/** Server connections are resolved from the example's workspace, where the drivers are installed. */
const driver = (name) =>
  require(require.resolve(name, { paths: [path.resolve(__dirname, '../../example')] }));

/**
 * A fresh, empty database of the given kind for one bench run, with the DATABASE_* variables
 * the example reads, and a way to drop it afterwards.
 */
async function createBenchDatabase(client) {
  const name = `pb_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  if (client === 'postgres') {
    const { Client } = driver('pg');
    const admin = new Client({ ...PG, database: 'postgres' });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    return {
      label: `PostgreSQL (${PG.host}:${PG.port})`,
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
    const mysql = driver('mysql2/promise');
    const admin = await mysql.createConnection({ ...MARIADB, password: '' });
    await admin.query(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    await admin.end();
    return {
      label: `MariaDB (${MARIADB.host}:${MARIADB.port})`,
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
  const filename = path.join(os.tmpdir(), `${name}.db`);
  return {
    label: 'SQLite (temporary file)',
    env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: filename },
    async drop() {
      for (const suffix of ['', '-wal', '-shm', '-journal'])
        fs.rmSync(`${filename}${suffix}`, { force: true });
    },
  };
}

module.exports = { createBenchDatabase };
