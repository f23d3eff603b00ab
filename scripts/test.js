#!/usr/bin/env node
/**
 * The runner behind `npm test`, `npm run test:postgres` and `npm run test:mariadb`.
 *
 *   node scripts/test.js                  build, then unit + integration tests on SQLite (or TEST_DB)
 *   node scripts/test.js --db postgres    build, then the integration tests on PostgreSQL
 *   node scripts/test.js --db mariadb     build, then the integration tests on MariaDB
 *   --no-build (or PB_SKIP_BUILD=1)       use the existing dist/ as it is
 *   anything else is passed to jest, e.g. `npm test -- test/integration/concurrency.test.ts`
 *
 * Integration tests load the plugin from dist/, so the build comes first. Everything this
 * script prints comes before jest starts: CI reads jest's summary as the last line.
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { driver } = require('./lib/databases');

const ROOT = path.resolve(__dirname, '..');
/** @type {readonly string[]} */
const DATABASES = ['sqlite', 'postgres', 'mariadb'];
const BUILD_LOCK = '/tmp/pb-build.lock';

/** @type {Record<string, { label: string; where(): string; start: string; probe(): Promise<void> } | undefined>} */
const SERVERS = {
  postgres: {
    label: 'PostgreSQL',
    where: () => `${process.env.PGHOST ?? '127.0.0.1'}:${process.env.PGPORT ?? 5432}`,
    start: 'pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start',
    async probe() {
      // Through the example's driver loader: pg ships no type declarations (its Client is `any` here).
      const { Client } = driver('pg');
      const client = new Client({
        host: process.env.PGHOST ?? '127.0.0.1',
        port: Number(process.env.PGPORT ?? 5432),
        user: process.env.PGUSER ?? 'postgres',
        database: 'postgres',
        connectionTimeoutMillis: 5000,
      });
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
    },
  },
  mariadb: {
    label: 'MariaDB',
    where: () => `${process.env.MARIADB_HOST ?? '127.0.0.1'}:${process.env.MARIADB_PORT ?? 3306}`,
    start: 'start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd',
    async probe() {
      const mysql = require('mysql2/promise');
      const connection = await mysql.createConnection({
        host: process.env.MARIADB_HOST ?? '127.0.0.1',
        port: Number(process.env.MARIADB_PORT ?? 3306),
        user: process.env.MARIADB_USER ?? 'root',
        password: '',
        connectTimeout: 5000,
      });
      await connection.query('SELECT 1');
      await connection.end();
    },
  },
};

/** @param {string[]} argv */
function parseArguments(argv) {
  /** @type {{ db: string | undefined; build: boolean; jestArgs: string[] }} */
  const options = { db: undefined, build: process.env.PB_SKIP_BUILD !== '1', jestArgs: [] };
  for (let index = 0; index < argv.length; index += 1) {
    const argument = argv[index];
    if (argument === '--db') options.db = argv[(index += 1)];
    else if (argument.startsWith('--db=')) options.db = argument.slice('--db='.length);
    else if (argument === '--no-build') options.build = false;
    else options.jestArgs.push(argument);
  }
  if (options.db !== undefined && !DATABASES.includes(options.db)) {
    fail(`--db must be one of ${DATABASES.join(', ')}, not "${options.db ?? ''}".`);
  }
  return options;
}

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  console.error(`\n${message}\n`);
  process.exit(2);
}

/**
 * @param {string} command
 * @param {string[]} args
 */
function run(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  if (result.error) fail(`Could not run ${command}: ${result.error.message}`);
  return result.status ?? 1;
}

function hasFlock() {
  return spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;
}

function build() {
  const cli = path.join(ROOT, 'node_modules', '.bin', 'strapi-plugin');
  if (!fs.existsSync(cli)) fail('node_modules is missing or incomplete: run `npm ci` first.');
  console.log('Building the plugin (integration tests load it from dist/; --no-build skips this)...');
  // Several builds at once would rewrite dist/ under each other's feet.
  const status = hasFlock() ? run('flock', [BUILD_LOCK, cli, 'build']) : run(cli, ['build']);
  if (status !== 0) fail(`The plugin build failed (exit ${status}); tests were not run.`);
}

/**
 * A driver's error as one line: its message, else its code (an AggregateError of refused
 * connections has an empty message), else the value thrown.
 * @param {unknown} error
 */
function describe(error) {
  const { message, code } = /** @type {{ message?: string; code?: string }} */ (Object(error));
  return message || code || String(error);
}

/** @param {string} db */
async function ensureReachable(db) {
  const server = SERVERS[db];
  if (!server) return;
  try {
    await server.probe();
  } catch (error) {
    fail(
      [
        `${server.label} is not reachable at ${server.where()}: ${describe(error)}`,
        `Start it (on this machine: \`${server.start}\`), or point the tests at another server with`,
        db === 'postgres'
          ? 'PGHOST, PGPORT and PGUSER (the user must be allowed to create databases).'
          : 'MARIADB_HOST, MARIADB_PORT and MARIADB_USER (root-like, empty password, allowed to create databases).',
      ].join('\n')
    );
  }
}

/** @param {string} db */
function explainSkipped(db) {
  const skipped = DATABASES.filter((name) => name !== db);
  console.log(
    [
      '',
      `Integration tests run on ${db}. Skipped databases: ${skipped.join(', ')}.`,
      'Run them with:',
      '  npm run test:postgres     (PostgreSQL at 127.0.0.1:5432, user postgres)',
      '  npm run test:mariadb      (MariaDB at 127.0.0.1:3306, user root)',
      '  TEST_DB=postgres npm test (TEST_DB=sqlite|postgres|mariadb; unit tests included)',
      '  .ci/run                   (all three, then the browser test)',
      '',
    ].join('\n')
  );
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const db = options.db ?? process.env.TEST_DB ?? 'sqlite';
  if (!DATABASES.includes(db)) fail(`TEST_DB must be one of ${DATABASES.join(', ')}, not "${db}".`);

  await ensureReachable(db);
  if (options.build) build();
  if (options.db === undefined) explainSkipped(db);
  else console.log(`\nIntegration tests on ${db}.\n`);

  const jest = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
  // --selectProjects takes every following word as a project name, so it goes last.
  const projects = options.db === undefined ? [] : ['--selectProjects', 'integration'];
  // The results by test name, so CI can count distinct tests apart from their runs per database.
  const artifacts = path.join(ROOT, 'test', 'artifacts');
  fs.mkdirSync(artifacts, { recursive: true });
  const results = ['--json', `--outputFile=${path.join(artifacts, `jest-${db}.json`)}`];
  const jestArgs = ['--maxWorkers=2', ...results, ...options.jestArgs, ...projects];
  const status = run(process.execPath, [jest, ...jestArgs], { ...process.env, TEST_DB: db });
  process.exit(status);
}

main().catch((error) => fail(error.stack ?? String(error)));
