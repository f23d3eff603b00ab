'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { onFreePort, waitForHealth } = require('../lib/example-site');

const EXAMPLE_DIR = path.resolve(__dirname, '../../example');
const STRAPI_CLI = path.join(
  path.dirname(require.resolve('@strapi/strapi/package.json', { paths: [EXAMPLE_DIR] })),
  'bin',
  'strapi.js'
);
const BOOT_TIMEOUT_MS = 180_000;
const CLOCK_TICKS = 100;

/**
 * The resident set size of a process (VmRSS, from the kernel), in megabytes.
 * @param {number} pid
 */
function rssMb(pid) {
  const vmRss = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!vmRss) throw new Error(`/proc/${pid}/status has no VmRSS line`);
  return Number(vmRss[1]) / 1024;
}

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a node script to completion with the bench environment; its output is shown only if it fails.
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<void>}
 */
function runNode(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: EXAMPLE_DIR, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`node ${path.basename(args[0])} failed (exit ${code}):\n${output}`))
    );
  });
}

/**
 * `strapi start` of the example in a child process, the way a site runs in production,
 * listening on a free loopback port. `cpuProfileDir` adds `--cpu-prof` (written when it stops);
 * `heapProfile` preloads heap-profile.js, written to its directory when it stops; `statementsFile`
 * has every SQL statement it runs written there (count-statements.js).
 * @param {NodeJS.ProcessEnv} env
 * @param {ServerOptions} [options]
 */
async function startServer(env, options = {}) {
  return onFreePort((port) => startServerOn(env, options, port));
}

/**
 * @typedef {{ directory: string; kind: 'allocated' | 'survivors' }} HeapProfile
 * @typedef {{ cpuProfileDir?: string; heapProfile?: HeapProfile; statementsFile?: string }} ServerOptions
 */

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {ServerOptions} options
 * @param {number} port
 */
async function startServerOn(env, { cpuProfileDir, heapProfile, statementsFile }, port) {
  const nodeArgs = [
    '--expose-gc',
    '--require',
    path.join(__dirname, 'collect-garbage.js'),
    ...(cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${cpuProfileDir}`] : []),
    ...(heapProfile ? ['--require', path.join(__dirname, 'heap-profile.js')] : []),
    ...(statementsFile ? ['--require', path.join(__dirname, 'count-statements.js')] : []),
  ];
  const memoryFile = path.join(os.tmpdir(), `pb-bench-memory-${process.pid}-${port}.json`);
  const child = spawn(process.execPath, [...nodeArgs, STRAPI_CLI, 'start'], {
    cwd: EXAMPLE_DIR,
    env: {
      ...env,
      HOST: '127.0.0.1',
      PORT: String(port),
      PB_BENCH_MEMORY_FILE: memoryFile,
      ...(heapProfile
        ? { PB_BENCH_HEAP_PROFILE_DIR: heapProfile.directory, PB_BENCH_HEAP_PROFILE_KIND: heapProfile.kind }
        : {}),
      ...(statementsFile ? { PB_BENCH_STATEMENTS_FILE: statementsFile } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (/** @type {Buffer} */ chunk) => {
    log = (log + chunk).slice(-20_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  /** @type {number | NodeJS.Signals | null | undefined} */
  let exitCode;
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      exitCode = code ?? signal;
      resolve(exitCode);
    })
  );

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(baseUrl, exited, { timeoutMs: BOOT_TIMEOUT_MS, pid: child.pid });
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${/** @type {Error} */ (error).message}\n${log}`);
  }

  // It answered, so its process was spawned and has a pid.
  const pid = /** @type {number} */ (child.pid);
  return {
    baseUrl,
    pid,
    log: () => log,
    /**
     * After V8's most thorough garbage collection: the resident set size of the server process
     * (VmRSS, from the kernel) and the V8 heap in use, in megabytes.
     */
    async memoryMb() {
      fs.rmSync(memoryFile, { force: true });
      child.kill('SIGUSR2');
      for (let waited = 0; !fs.existsSync(memoryFile) && waited < 10_000; waited += 100) await sleep(100);
      // Let the kernel see the pages the collection gave back.
      await sleep(1_000);
      const { heapUsed, heapTotal, external, rssWithFreePages } = JSON.parse(
        fs.readFileSync(memoryFile, 'utf8')
      );
      // heapTotal: what V8 keeps for its heap, used or not; external: what V8 objects hold
      // outside its heap, Buffers' bytes among them; rssWithFreePages: the RSS before V8 gave
      // back the pages its collections emptied (collect-garbage.js).
      return {
        rss: rssMb(pid),
        rssWithFreePages: rssWithFreePages / 2 ** 20,
        heap: heapUsed / 2 ** 20,
        heapTotal: heapTotal / 2 ** 20,
        external: external / 2 ** 20,
      };
    },
    /** CPU time the server process has used so far (user + system), in seconds. */
    cpuSeconds() {
      const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      // utime and stime are fields 14 and 15 of /proc/PID/stat, in clock ticks (100 per second on Linux).
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    },
    /** SIGTERM lets Strapi close cleanly (and node write a CPU profile); SIGKILL if it hangs. */
    async stop() {
      if (exitCode !== undefined) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
      fs.rmSync(memoryFile, { force: true });
    },
  };
}

/** @typedef {Awaited<ReturnType<typeof startServer>>} Server */

module.exports = { startServer, runNode, rssMb };
