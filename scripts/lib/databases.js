'use strict';

/**
 * A fresh, empty database for one test site or one bench run, with the DATABASE_* variables
 * the example reads and a way to drop it afterwards. Shared by the tests and the bench.
 */

const { randomBytes } = require('node:crypto');
const fs = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');

/** @typedef {'sqlite' | 'postgres' | 'mariadb'} Client */

/** @type {Client[]} */
const CLIENTS = ['sqlite', 'postgres', 'mariadb'];

/**
 * @param {string} name
 * @returns {name is Client}
 */
const isClient = (name) => /** @type {string[]} */ (CLIENTS).includes(name);

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

/**
 * The drivers are installed in the example's workspace, next to Strapi. Untyped (`any`): pg ships
 * no declarations, and each caller uses a few calls of its driver.
 * @param {'pg' | 'mysql2/promise'} name
 * @returns {any}
 */
const driver = (name) =>
  require(require.resolve(name, { paths: [path.resolve(__dirname, '../../example')] }));

/**
 * The variables the example's config/database.js reads for a database server.
 * @param {string} databaseClient
 * @param {{ host: string; port: number; user: string }} server
 * @param {string} name
 */
const serverEnv = (databaseClient, server, name) => ({
  DATABASE_CLIENT: databaseClient,
  DATABASE_HOST: server.host,
  DATABASE_PORT: String(server.port),
  DATABASE_NAME: name,
  DATABASE_USERNAME: server.user,
  DATABASE_PASSWORD: '',
});

/**
 * One statement on a connection of its own, closed whatever happens.
 * @param {() => Promise<{ query(sql: string): Promise<unknown>; end(): Promise<void> }>} connect
 * @param {string} sql
 */
async function runOnServer(connect, sql) {
  const connection = await connect();
  try {
    await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/**
 * MariaDB has no CREATE DATABASE … TEMPLATE: each table is made from the template's own
 * definition (its indexes and foreign keys included) and filled from the template's rows.
 * @param {import('mysql2/promise').Connection} connection
 * @param {string} template
 * @param {string} name
 */
async function copyMariadbTables(connection, template, name) {
  await connection.query('SET FOREIGN_KEY_CHECKS = 0');
  await connection.query(`USE \`${name}\``);
  /** @type {[import('mysql2/promise').RowDataPacket[], unknown]} */
  const [tables] = await connection.query(
    "SELECT TABLE_NAME AS name FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'",
    [template]
  );
  for (const { name: table } of tables) {
    /** @type {[import('mysql2/promise').RowDataPacket[], unknown]} */
    const [[definition]] = await connection.query(`SHOW CREATE TABLE \`${template}\`.\`${table}\``);
    await connection.query(definition['Create Table']);
    await connection.query(`INSERT INTO \`${table}\` SELECT * FROM \`${template}\`.\`${table}\``);
  }
}

/**
 * @param {Client} client
 * @param {string} prefix the start of the database's name, e.g. pb_test
 * @param {string} [template] a database of the same client to start as a copy of (its name, or
 *   for SQLite its file), instead of empty
 * @returns {Promise<{ client: Client, label: string, env: Record<string, string>, drop(): Promise<void> }>}
 */
async function createDatabase(client, prefix, template) {
  if (!isClient(client)) throw new Error(`The database must be ${CLIENTS.join(', ')}, not "${client}".`);
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  if (client === 'postgres') {
    const { Client } = driver('pg');
    const onServer = (/** @type {string} */ sql) =>
      runOnServer(async () => {
        const admin = new Client({ ...PG, database: 'postgres' });
        await admin.connect();
        return admin;
      }, sql);
    await onServer(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
    return {
      client,
      label: `PostgreSQL (${PG.host}:${PG.port})`,
      env: serverEnv('postgres', PG, name),
      drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    };
  }
  if (client === 'mariadb') {
    const mysql = driver('mysql2/promise');
    const connect = () => mysql.createConnection({ ...MARIADB, password: '' });
    const onServer = (/** @type {string} */ sql) => runOnServer(connect, sql);
    await onServer(`CREATE DATABASE ${name} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
    if (template) {
      const connection = await connect();
      try {
        await copyMariadbTables(connection, template, name);
      } finally {
        await connection.end();
      }
    }
    return {
      client,
      label: `MariaDB (${MARIADB.host}:${MARIADB.port})`,
      env: serverEnv('mysql', MARIADB, name),
      drop: () => onServer(`DROP DATABASE IF EXISTS ${name}`),
    };
  }
  // Strapi resolves the filename to a path, so ':memory:' would become a shared file: use a temporary one.
  const filename = path.join(os.tmpdir(), `${name}.db`);
  if (template) await fs.copyFile(template, filename);
  return {
    client,
    label: 'SQLite (temporary file)',
    env: { DATABASE_CLIENT: 'sqlite', DATABASE_FILENAME: filename },
    async drop() {
      await Promise.all(
        ['', '-wal', '-shm', '-journal'].map((suffix) => fs.rm(`${filename}${suffix}`, { force: true }))
      );
    },
  };
}

module.exports = { CLIENTS, PG, MARIADB, createDatabase, driver, isClient };
