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

const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const util = require('node:util');

const ROOT = path.resolve(__dirname, '..');
const EXAMPLE_DIR = path.join(ROOT, 'example');
const PLUGIN_BUILD_LOCK = '/tmp/pb-build.lock';
const ADMIN_BUILD_LOCK = '/tmp/pb-admin-build.lock';
/** Beside the build, so `strapi build` (which empties build/ first) drops it along with a stale build. */
const ADMIN_HASH_FILE = '.publish-bridge-build-hash';
const HEALTH_POLL_MS = 250;
const BUILD_ADMIN_FLAG = '--build-admin-panel';

class DemoError extends Error {}

/** Every file under `dir`, in a stable order (hashes depend on it); none when `dir` is missing. */
function listFiles(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((entry) => {
      const file = path.join(dir, entry.name);
      return entry.isDirectory() ? listFiles(file) : [file];
    });
}

const mtimeOf = (file) => fs.statSync(file).mtimeMs;

/**
 * The build empties dist/server and dist/admin before writing, so their oldest file tells when
 * the last complete build started; any source edited after that is missing from it.
 */
function isPluginBuildFresh(root) {
  const entries = ['dist/server/index.js', 'dist/admin/index.mjs'].map((file) => path.join(root, file));
  if (!entries.every((file) => fs.existsSync(file))) return false;
  const built = [...listFiles(path.join(root, 'dist/server')), ...listFiles(path.join(root, 'dist/admin'))];
  const sources = [
    ...listFiles(path.join(root, 'server/src')),
    ...listFiles(path.join(root, 'admin/src')),
    path.join(root, 'package.json'),
  ];
  return Math.min(...built.map(mtimeOf)) > Math.max(...sources.map(mtimeOf));
}

/** Secrets as create-strapi-app generates them: fresh random values, four app keys. */
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

/** Creates the file with fresh secrets unless it exists; returns whether it did. */
function ensureEnvFile(file, randomBytes) {
  try {
    // 'wx' fails when the file exists, so a user's own .env is never replaced, even in a race.
    fs.writeFileSync(file, secretsEnvFile(randomBytes), { flag: 'wx', mode: 0o600 });
    return true;
  } catch (error) {
    if (error.code === 'EEXIST') return false;
    throw error;
  }
}

function readEnvFile(file) {
  if (!fs.existsSync(file)) return {};
  if (typeof util.parseEnv !== 'function') throw new DemoError('The demo needs Node.js 20.12 or later.');
  return util.parseEnv(fs.readFileSync(file, 'utf8'));
}

/** The environment Strapi will see: it loads example/.env without overriding variables already set. */
const strapiEnvironment = (envFile) => ({ ...readEnvFile(envFile), ...process.env });

/** The installed @strapi/* versions: the admin bundle compiles their front-end code in. */
function strapiVersions(lockFile) {
  const { packages = {} } = JSON.parse(fs.readFileSync(lockFile, 'utf8'));
  return Object.entries(packages)
    .filter(([location]) => location.includes('node_modules/@strapi/'))
    .map(([location, { version }]) => `${location}@${version}`)
    .sort();
}

/**
 * Values `strapi build` writes into the bundle: the server URL and every STRAPI_ADMIN_* variable.
 * Empty ones count as unset (the example's default PUBLIC_URL is empty), so a caller that sets
 * PUBLIC_URL='' shares the build with one that leaves it out.
 */
function bakedEnvironment(env) {
  return Object.keys(env)
    .filter((name) => name === 'PUBLIC_URL' || name.toUpperCase().startsWith('STRAPI_ADMIN_'))
    .filter((name) => env[name] !== '')
    .sort()
    .map((name) => `${name}=${env[name]}`);
}

/** A digest of everything the example's admin bundle is built from. */
function adminBuildHash({ root, exampleDir, env }) {
  const hash = crypto.createHash('sha256');
  const add = (label, content) => hash.update(`${label}\0`).update(content).update('\0');
  const files = [
    ...listFiles(path.join(root, 'dist/admin')),
    ...listFiles(path.join(exampleDir, 'src/admin')),
    path.join(exampleDir, 'config/admin.js'),
    path.join(exampleDir, 'config/server.js'),
    path.join(exampleDir, 'package.json'),
  ].filter((file) => fs.existsSync(file));
  for (const file of files) add(path.relative(root, file), fs.readFileSync(file));
  add('@strapi versions', strapiVersions(path.join(root, 'package-lock.json')).join('\n'));
  add('baked environment', bakedEnvironment(env).join('\n'));
  return hash.digest('hex');
}

/** 'missing', 'outdated' or 'current': whether build/ holds an admin panel built from `hash`. */
function adminBuildState(buildDir, hash) {
  if (!fs.existsSync(path.join(buildDir, 'index.html'))) return 'missing';
  const hashFile = path.join(buildDir, ADMIN_HASH_FILE);
  const stored = fs.existsSync(hashFile) ? fs.readFileSync(hashFile, 'utf8').trim() : '';
  return stored === hash ? 'current' : 'outdated';
}

/** The child that a signal to this process must reach (a build or Strapi), if any. */
let runningChild = null;

function forwardSignals() {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (runningChild) runningChild.kill(signal);
      else process.exit(128 + os.constants.signals[signal]);
    });
  }
}

/** Starts a command with inherited output; resolves to its exit status, never rejects. */
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
      resolve(code ?? 128 + os.constants.signals[signal]);
    });
  });
}

async function run(command, args, options) {
  const status = await start(command, args, options);
  if (status !== 0) throw new DemoError(`${[command, ...args].join(' ')} failed (exit ${status}).`);
}

const hasFlock = () => spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;

/** Other builds of the same output may run at once (tests, other checkouts' tools): take turns. */
const runLocked = (lock, command, args, options) =>
  hasFlock() ? run('flock', [lock, command, ...args], options) : run(command, args, options);

function binary(name) {
  const file = path.join(ROOT, 'node_modules', '.bin', name);
  if (!fs.existsSync(file))
    throw new DemoError(`${file} is missing: run \`npm install\` at the repository root.`);
  return file;
}

async function buildPlugin() {
  if (isPluginBuildFresh(ROOT)) {
    console.log('[demo] Plugin build skipped: dist/ is newer than server/src, admin/src and package.json.');
    return;
  }
  console.log('[demo] Building the plugin (strapi-plugin build)...');
  await runLocked(PLUGIN_BUILD_LOCK, binary('strapi-plugin'), ['build']);
}

async function buildAdminPanel(env) {
  const buildDir = path.join(EXAMPLE_DIR, 'build');
  const hash = adminBuildHash({ root: ROOT, exampleDir: EXAMPLE_DIR, env });
  const state = adminBuildState(buildDir, hash);
  if (state === 'current') {
    console.log('[demo] Admin panel build skipped: example/build was built from the same inputs.');
    return;
  }
  console.log(`[demo] Admin panel build is ${state}: building it in example/ (about 30 s)...`);
  // Its own process: the build holds about 2 GB and sets the global `strapi`.
  await runLocked(ADMIN_BUILD_LOCK, process.execPath, [__filename, BUILD_ADMIN_FLAG], {
    cwd: EXAMPLE_DIR,
    env,
  });
  fs.writeFileSync(path.join(buildDir, ADMIN_HASH_FILE), `${hash}\n`);
}

/**
 * What `strapi build` does for a JavaScript app, run in the current directory. The command
 * itself looks for a tsconfig.json from example/ upwards, finds the repository's own (it types
 * the plugin's tests) and fails trying to compile the example as TypeScript.
 */
async function buildAdminPanelHere() {
  const strapiDist = path.join(path.dirname(require.resolve('@strapi/strapi/package.json')), 'dist', 'src');
  const { build } = require(path.join(strapiDist, 'node', 'build.js'));
  const { createLogger } = require(path.join(strapiDist, 'cli', 'utils', 'logger.js'));
  await build({
    cwd: process.cwd(),
    logger: createLogger({ timestamp: false }),
    bundler: 'vite',
    minify: true,
  });
}

/** A wildcard bind answers on the loopback; other hosts are reached as given. */
function reachableHost(host) {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return net.isIPv6(host) ? `[${host}]` : host;
}

/** People open localhost whatever local address the server binds to. */
function displayHost(host) {
  return ['0.0.0.0', '::', '127.0.0.1', '::1', 'localhost'].includes(host)
    ? 'localhost'
    : reachableHost(host);
}

/**
 * Strapi would fail on a taken port anyway, but only after the health check may have found
 * whatever else listens there and announced it as the demo.
 */
function assertPortFree(host, port) {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', (error) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new DemoError(
              `Port ${port} is already in use (another demo?). Stop it or pick another: PORT=1338 npm run demo`
            )
          : error
      )
    );
    probe.listen(port, host, () => probe.close(resolve));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitForHealth(baseUrl, strapiExited) {
  let exitStatus;
  strapiExited.then((status) => (exitStatus = status));
  for (;;) {
    if (exitStatus !== undefined)
      throw new DemoError(`Strapi stopped before it was ready (exit ${exitStatus}).`);
    try {
      const response = await fetch(`${baseUrl}/_health`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 204) return;
    } catch {
      // Not listening yet: Strapi opens the port only once it has fully booted.
    }
    await sleep(HEALTH_POLL_MS);
  }
}

/** Whether the admin panel still offers to create the first account; undefined when unknown. */
async function hasAdmin(baseUrl) {
  try {
    const response = await fetch(`${baseUrl}/admin/init`, { signal: AbortSignal.timeout(2_000) });
    return (await response.json()).data.hasAdmin;
  } catch {
    return undefined;
  }
}

/** The contract's base path as the built plugin defines it (the example keeps the default). */
function contractPrefix() {
  const plugin = require(path.join(ROOT, 'dist', 'server'));
  return (plugin.default ?? plugin).config.default.prefix;
}

function describeKey(envFileValues) {
  if (process.env.PUBLISH_BRIDGE_API_KEY) return 'from PUBLISH_BRIDGE_API_KEY in the environment';
  if (envFileValues.PUBLISH_BRIDGE_API_KEY) return 'from PUBLISH_BRIDGE_API_KEY in example/.env';
  return "not set: paste the publisher's connection key in Settings > Publish Bridge";
}

function describeDatabase(env) {
  const client = env.DATABASE_CLIENT || 'sqlite';
  if (client !== 'sqlite')
    return `${client}, database "${env.DATABASE_NAME || 'strapi'}" on ${env.DATABASE_HOST || '127.0.0.1'}`;
  const file = path.resolve(EXAMPLE_DIR, env.DATABASE_FILENAME || '.tmp/data.db');
  return `SQLite, ${path.relative(ROOT, file)} (DATABASE_* variables choose another)`;
}

function adminHint(adminExists) {
  if (adminExists === true) return 'Log in with your admin account.';
  if (adminExists === false) return 'Create the first admin account there.';
  return 'Create the first admin account there, unless you already have one.';
}

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
  await buildPlugin();

  const envFile = path.join(EXAMPLE_DIR, '.env');
  if (ensureEnvFile(envFile)) console.log('[demo] Wrote example/.env with fresh random secrets.');
  const env = strapiEnvironment(envFile);
  const port = Number(env.PORT || 1337);
  const host = env.HOST || '0.0.0.0';
  await assertPortFree(host, port);
  await buildAdminPanel(env);

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
  const entry = process.argv[2] === BUILD_ADMIN_FLAG ? buildAdminPanelHere : main;
  entry().catch((error) => {
    console.error(`\n[demo] ${error instanceof DemoError ? error.message : error.stack}\n`);
    runningChild?.kill('SIGTERM');
    process.exitCode = 1;
  });
}

module.exports = {
  isPluginBuildFresh,
  secretsEnvFile,
  ensureEnvFile,
  adminBuildHash,
  adminBuildState,
  ADMIN_HASH_FILE,
};
