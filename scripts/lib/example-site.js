/**
 * What `npm run demo`, `npm run test:e2e` and the other scripts that start a site share: building
 * the plugin and the example's admin panel only when their inputs changed, a free port, and
 * waiting for a started site to answer.
 */
'use strict';

const { spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..', '..');
const EXAMPLE_DIR = path.join(ROOT, 'example');
const PLUGIN_BUILD_LOCK = '/tmp/pb-build.lock';
const ADMIN_BUILD_LOCK = '/tmp/pb-admin-build.lock';
/** Beside the build, so `strapi build` (which empties build/ first) drops it along with a stale build. */
const ADMIN_HASH_FILE = '.publish-bridge-build-hash';
const HEALTH_POLL_MS = 250;

/** A failure the scripts report as its message alone: the user can act on it. */
class ScriptError extends Error {}

/**
 * Every file under `dir`, in a stable order (hashes depend on it); none when `dir` is missing.
 * @param {string} dir
 * @returns {string[]}
 */
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

const mtimeOf = (/** @type {string} */ file) => fs.statSync(file).mtimeMs;

/**
 * The build empties dist/server and dist/admin before writing, so their oldest file tells when
 * the last complete build started; any source edited after that is missing from it.
 * @param {string} root
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

/**
 * The installed @strapi/* versions: the admin bundle compiles their front-end code in.
 * @param {string} lockFile
 */
function strapiVersions(lockFile) {
  /** @type {{ packages?: Record<string, { version?: string }> }} */
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
 * @param {NodeJS.ProcessEnv} env
 */
function bakedEnvironment(env) {
  return Object.keys(env)
    .filter((name) => name === 'PUBLIC_URL' || name.toUpperCase().startsWith('STRAPI_ADMIN_'))
    .filter((name) => env[name] !== '')
    .sort()
    .map((name) => `${name}=${env[name]}`);
}

/**
 * A digest of everything `strapi build` makes example/dist from: the admin bundle, and the
 * example's compiled config and code, which `strapi start` runs (the example is a TypeScript
 * project, so a changed config/plugins.js counts only once it is compiled again).
 * @param {{ root: string; exampleDir: string; env: NodeJS.ProcessEnv }} inputs
 */
function adminBuildHash({ root, exampleDir, env }) {
  const hash = crypto.createHash('sha256');
  const add = (/** @type {string} */ label, /** @type {string | Buffer} */ content) =>
    hash.update(`${label}\0`).update(content).update('\0');
  const files = [
    ...listFiles(path.join(root, 'dist/admin')),
    ...listFiles(path.join(exampleDir, 'config')),
    ...listFiles(path.join(exampleDir, 'src')),
    path.join(exampleDir, 'package.json'),
    path.join(exampleDir, 'tsconfig.json'),
  ].filter((file) => fs.existsSync(file));
  for (const file of files) add(path.relative(root, file), fs.readFileSync(file));
  add('@strapi versions', strapiVersions(path.join(root, 'package-lock.json')).join('\n'));
  add('baked environment', bakedEnvironment(env).join('\n'));
  return hash.digest('hex');
}

/**
 * 'missing', 'outdated' or 'current': whether build/ holds an admin panel built from `hash`.
 * @param {string} buildDir
 * @param {string} hash
 * @returns {'missing' | 'outdated' | 'current'}
 */
function adminBuildState(buildDir, hash) {
  if (!fs.existsSync(path.join(buildDir, 'index.html'))) return 'missing';
  const hashFile = path.join(buildDir, ADMIN_HASH_FILE);
  const stored = fs.existsSync(hashFile) ? fs.readFileSync(hashFile, 'utf8').trim() : '';
  return stored === hash ? 'current' : 'outdated';
}

/** @param {string} name */
function binary(name) {
  const file = path.join(ROOT, 'node_modules', '.bin', name);
  if (!fs.existsSync(file))
    throw new ScriptError(`${file} is missing: run \`npm install\` at the repository root.`);
  return file;
}

const hasFlock = () => spawnSync('flock', ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * Other builds of the same output may run at once (tests, another script): they take turns.
 * @param {string} lock
 * @param {string} command
 * @param {string[]} args
 * @returns {[string, string[]]}
 */
const locked = (lock, command, args) => (hasFlock() ? ['flock', [lock, command, ...args]] : [command, args]);

/**
 * Builds what is out of date. `run(command, args, options)` runs a command to completion and
 * throws on failure; `log` reports what was decided.
 * @param {{
 *   env: NodeJS.ProcessEnv;
 *   run: (command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) => Promise<unknown> | void;
 *   log: (message: string) => void;
 * }} steps
 */
async function ensureBuilds({ env, run, log }) {
  if (isPluginBuildFresh(ROOT)) {
    log('Plugin build skipped: dist/ is newer than server/src, admin/src and package.json.');
  } else {
    log('Building the plugin (strapi-plugin build)...');
    await run(...locked(PLUGIN_BUILD_LOCK, binary('strapi-plugin'), ['build']), { cwd: ROOT, env });
  }

  // A TypeScript project's admin panel is built into its outDir.
  const buildDir = path.join(EXAMPLE_DIR, 'dist', 'build');
  const hash = adminBuildHash({ root: ROOT, exampleDir: EXAMPLE_DIR, env });
  const state = adminBuildState(buildDir, hash);
  if (state === 'current') {
    log('Example build skipped: example/dist was built from the same inputs.');
    return;
  }
  log(`Example build is ${state}: building it in example/ (strapi build, about 30 s)...`);
  await run(...locked(ADMIN_BUILD_LOCK, binary('strapi'), ['build']), { cwd: EXAMPLE_DIR, env });
  fs.writeFileSync(path.join(buildDir, ADMIN_HASH_FILE), `${hash}\n`);
}

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The inodes of the sockets listening on `port` of any local address (Linux's /proc); undefined
 * where the system has no /proc/net.
 * @param {number} port
 * @returns {string[] | undefined}
 */
function listeningSocketsOn(port) {
  if (!fs.existsSync('/proc/net/tcp')) return undefined;
  const localPort = `:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  /** @type {string[]} */
  const inodes = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    if (!fs.existsSync(table)) continue; // no IPv6
    for (const line of fs.readFileSync(table, 'utf8').split('\n').slice(1)) {
      // sl local_address rem_address st ... inode: state 0A is LISTEN, the inode is the tenth field.
      const fields = line.trim().split(/\s+/);
      if (fields[1]?.endsWith(localPort) && fields[3] === '0A') inodes.push(fields[9]);
    }
  }
  return inodes;
}

/**
 * Whether process `pid` is the one listening on `port`. A port freePort() found free may be
 * taken by another process before Strapi opens it (another site booting beside it, under CI):
 * that process's health check must not pass for this Strapi's. Assumed where /proc is missing.
 * @param {number} pid
 * @param {number} port
 */
function listensOn(pid, port) {
  const inodes = listeningSocketsOn(port);
  if (!inodes) return true;
  const sockets = new Set(inodes.map((inode) => `socket:[${inode}]`));
  const fdDir = `/proc/${pid}/fd`;
  return fs.readdirSync(fdDir).some((fd) => {
    try {
      return sockets.has(fs.readlinkSync(path.join(fdDir, fd)));
    } catch {
      return false; // closed meanwhile
    }
  });
}

/**
 * Resolves once Strapi answers its health check; rejects when it exits first or the deadline
 * passes. Strapi opens its port only once it has fully booted. With its process's `pid`, only
 * an answer from that process counts (see listensOn).
 * @param {string} baseUrl
 * @param {Promise<number | string | null>} exited resolves with the exit code (or signal) of Strapi's process
 * @param {{ timeoutMs?: number, pid?: number }} [options]
 */
async function waitForHealth(baseUrl, exited, { timeoutMs = Infinity, pid } = {}) {
  /** @type {number | string | null | undefined} */
  let exitStatus;
  exited.then((status) => (exitStatus = status));
  const deadline = Date.now() + timeoutMs;
  const port = Number(new URL(baseUrl).port);
  while (Date.now() < deadline) {
    if (exitStatus !== undefined)
      throw new ScriptError(`Strapi stopped before it was ready (exit ${exitStatus}).`);
    try {
      const response = await fetch(`${baseUrl}/_health`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 204 && (pid === undefined || listensOn(pid, port))) return;
    } catch {
      // Not listening yet.
    }
    await sleep(HEALTH_POLL_MS);
  }
  throw new ScriptError(`Strapi did not answer on ${baseUrl}/_health within ${timeoutMs / 1000} s.`);
}

/**
 * A TCP port nothing listens on right now, on loopback.
 * @returns {Promise<number>}
 */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      // Listening on an IP address and port: the address is an AddressInfo, not a pipe's name.
      const { port } = /** @type {import('node:net').AddressInfo} */ (probe.address());
      probe.close(() => resolve(port));
    });
  });
}

/** Strapi's words when its port was taken (`strapi start` exits with them). */
const PORT_TAKEN = /port \d+ is already used/i;

/**
 * `start(port)` on a free port; on another one when the port was taken before Strapi opened it
 * (start's error, which carries Strapi's log, says so), up to three ports.
 * @template T
 * @param {(port: number) => Promise<T>} start
 * @returns {Promise<T>}
 */
async function onFreePort(start) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await freePort());
    } catch (error) {
      if (attempt === 3 || !PORT_TAKEN.test(String(/** @type {Error} */ (error).message))) throw error;
    }
  }
}

module.exports = {
  ScriptError,
  freePort,
  onFreePort,
  ROOT,
  EXAMPLE_DIR,
  ADMIN_HASH_FILE,
  adminBuildHash,
  adminBuildState,
  binary,
  ensureBuilds,
  isPluginBuildFresh,
  waitForHealth,
};
