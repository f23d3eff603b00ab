#!/usr/bin/env node
/**
 * `npm run demo`: serves the example site with this plugin, the way a user would run it.
 *
 *   1. builds the plugin (skipped when dist/ is newer than its sources),
 *   2. writes example/.env with fresh secrets on the first start (never overwrites it),
 *   3. builds the example's admin panel, only when its inputs changed since the last build,
 *   4. runs `strapi start` in example/ (no file watcher) and prints where to go once it answers.
 *
 * PORT (1337), HOST (0.0.0.0), PUBLISH_BRIDGE_API_KEY and Strapi's DATABASE_* variables pass
 * through to Strapi, from the environment or example/.env. Ctrl-C stops Strapi cleanly.
 */
'use strict';

const { spawn } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const util = require('node:util');
const { ROOT, EXAMPLE_DIR, ScriptError, binary, ensureBuilds, waitForHealth } = require('./lib/example-site');

/**
 * Secrets as create-strapi-app generates them: fresh random values, four app keys.
 * @param {(size: number) => Buffer} [randomBytes]
 */
function secretsEnvFile(randomBytes = crypto.randomBytes) {
  const secret = () => randomBytes(16).toString('base64');
  const values = {
    APP_KEYS: [secret(), secret(), secret(), secret()].join(','),
    API_TOKEN_SALT: secret(),
    ADMIN_JWT_SECRET: secret(),
    TRANSFER_TOKEN_SALT: secret(),
    JWT_SECRET: secret(),
    // admin::encryption derives its AES-256 key from this; 32 bytes match the key size.
    ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  };
  const lines = Object.entries(values).map(([name, value]) => `${name}=${value}`);
  return `# Written by \`npm run demo\` on its first start. Keep it private; see .env.example.\n${lines.join('\n')}\n`;
}

/**
 * Creates the file with fresh secrets unless it exists; returns whether it did.
 * @param {string} file
 * @param {(size: number) => Buffer} [randomBytes]
 */
function ensureEnvFile(file, randomBytes) {
  try {
    // 'wx' fails when the file exists, so a user's own .env is never replaced, even in a race.
    fs.writeFileSync(file, secretsEnvFile(randomBytes), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code === 'EEXIST') return false;
    throw error;
  }
}

/**
 * @param {string} file
 * @returns {NodeJS.Dict<string>}
 */
function readEnvFile(file) {
  if (!fs.existsSync(file)) return {};
  if (typeof util.parseEnv !== 'function') throw new ScriptError('The demo needs Node.js 20.12 or later.');
  return util.parseEnv(fs.readFileSync(file, 'utf8'));
}

/** The environment Strapi will see: it loads example/.env without overriding variables already set. */
const strapiEnvironment = (/** @type {string} */ envFile) => ({ ...readEnvFile(envFile), ...process.env });

/** The child that a signal to this process must reach (a build or Strapi), if any. */
/** @type {import('node:child_process').ChildProcess | null} */
let runningChild = null;

function forwardSignals() {
  for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP'])) {
    process.on(signal, () => {
      if (runningChild) runningChild.kill(signal);
      else process.exit(128 + os.constants.signals[signal]);
    });
  }
}

/**
 * Starts a command with inherited output; resolves to its exit status, never rejects.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string; env?: NodeJS.ProcessEnv }} [options]
 * @returns {Promise<number>}
 */
function start(command, args, { cwd = ROOT, env = process.env } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: 'inherit' });
  runningChild = child;
  return new Promise((resolve) => {
    child.on('error', (error) => {
      console.error(`[demo] Could not run ${command}: ${error.message}`);
      runningChild = null;
      resolve(127);
    });
    child.on('exit', (code, signal) => {
      runningChild = null;
      // Node gives the signal exactly when there is no exit code.
      resolve(code ?? 128 + os.constants.signals[/** @type {NodeJS.Signals} */ (signal)]);
    });
  });
}

/**
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string; env?: NodeJS.ProcessEnv }} [options]
 */
async function run(command, args, options) {
  const status = await start(command, args, options);
  if (status !== 0) throw new ScriptError(`${[command, ...args].join(' ')} failed (exit ${status}).`);
}

/**
 * A wildcard bind answers on the loopback; other hosts are reached as given.
 * @param {string} host
 */
function reachableHost(host) {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return net.isIPv6(host) ? `[${host}]` : host;
}

/**
 * People open localhost whatever local address the server binds to.
 * @param {string} host
 */
function displayHost(host) {
  return ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost'].includes(host)
    ? 'localhost'
    : reachableHost(host);
}

/**
 * Strapi would fail on a taken port anyway, but only after the health check may have found
 * whatever else listens there and announced it as the demo.
 * @param {string} host
 * @param {number} port
 * @returns {Promise<void>}
 */
function assertPortFree(host, port) {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (/** @type {NodeJS.ErrnoException} */ error) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new ScriptError(
              `Port ${port} is already in use (another demo?). Stop it or pick another: PORT=1338 npm run demo`
            )
          : error
      )
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}

/**
 * Whether the admin panel still offers to create the first account; undefined when unknown.
 * @param {string} baseUrl
 * @returns {Promise<boolean | undefined>}
 */
async function hasAdmin(baseUrl) {
  try {
    const response = await fetch(`${baseUrl}/admin/init`, { signal: AbortSignal.timeout(2_000) });
    const body = /** @type {{ data: { hasAdmin: boolean } }} */ (await response.json());
    return body.data.hasAdmin;
  } catch {
    return undefined;
  }
}

/**
 * The contract's base path as the built plugin defines it (the example keeps the default).
 * @returns {string}
 */
function contractPrefix() {
  const plugin = require(path.join(ROOT, 'dist', 'server'));
  return (plugin.default ?? plugin).config.default.prefix;
}

/** @param {NodeJS.Dict<string>} envFileValues */
function describeKey(envFileValues) {
  if (process.env.PUBLISH_BRIDGE_API_KEY) return 'from PUBLISH_BRIDGE_API_KEY in the environment';
  if (envFileValues.PUBLISH_BRIDGE_API_KEY) return 'from PUBLISH_BRIDGE_API_KEY in example/.env';
  return "not set: paste the publisher's connection key in Settings > Publish Bridge";
}

/** @param {NodeJS.Dict<string>} env */
function describeDatabase(env) {
  const client = env.DATABASE_CLIENT || 'sqlite';
  if (client !== 'sqlite')
    return `${client}, database "${env.DATABASE_NAME || 'strapi'}" on ${env.DATABASE_HOST || '127.0.0.1'}`;
  const file = path.resolve(EXAMPLE_DIR, env.DATABASE_FILENAME || '.tmp/data.db');
  return `SQLite, ${path.relative(ROOT, file)} (DATABASE_* variables choose another)`;
}

/** @param {boolean | undefined} adminExists */
function adminHint(adminExists) {
  if (adminExists === true) return 'Log in with your admin account.';
  if (adminExists === false) return 'Create the first admin account there.';
  return 'Create the first admin account there, unless you already have one.';
}

/**
 * @param {{ siteUrl: string; prefix: string; adminExists: boolean | undefined; key: string; database: string; seconds: number }} facts
 */
function banner({ siteUrl, prefix, adminExists, key, database, seconds }) {
  const rule = '─'.repeat(78);
  return [
    '',
    rule,
    `  Publish Bridge demo is ready (${seconds.toFixed(1)} s).`,
    '',
    `  Admin panel  ${siteUrl}/admin`,
    `               ${adminHint(adminExists)}`,
    `  Base URL     ${siteUrl}${prefix}`,
    '               Register this with the publisher (it must be able to reach this address).',
    `  API key      ${key}`,
    `  Database     ${database}`,
    '  Stop         Ctrl-C',
    rule,
    '',
  ].join('\n');
}

async function main() {
  const startedAt = Date.now();
  forwardSignals();

  const envFile = path.join(EXAMPLE_DIR, '.env');
  if (ensureEnvFile(envFile)) console.log('[demo] Wrote example/.env with fresh random secrets.');
  const env = strapiEnvironment(envFile);
  const port = Number(env.PORT || 1337);
  const host = env.HOST || '0.0.0.0';
  await assertPortFree(host, port);
  await ensureBuilds({ env, run, log: (message) => console.log(`[demo] ${message}`) });

  console.log('[demo] Starting Strapi (strapi start in example/)...');
  const strapiExited = start(binary('strapi'), ['start'], { cwd: EXAMPLE_DIR, env });
  const localUrl = `http://${reachableHost(host)}:${port}`;
  await waitForHealth(localUrl, strapiExited);
  console.log(
    banner({
      siteUrl: `http://${displayHost(host)}:${port}`,
      prefix: contractPrefix(),
      adminExists: await hasAdmin(localUrl),
      key: describeKey(readEnvFile(envFile)),
      database: describeDatabase(env),
      seconds: (Date.now() - startedAt) / 1000,
    })
  );
  process.exitCode = await strapiExited;
  console.log(`[demo] Strapi stopped (exit ${process.exitCode}).`);
}

if (require.main === module) {
  main().catch((error) => {
    console.error(`\n[demo] ${error instanceof ScriptError ? error.message : error.stack}\n`);
    runningChild?.kill('SIGTERM');
    process.exitCode = 1;
  });
}

module.exports = { secretsEnvFile, ensureEnvFile };
