'use strict';

const autocannon = require('autocannon');

/**
 * A request as the load generator sends it: the bench's clients build them (workload.js).
 * @typedef {{ method?: string; path?: string; headers?: Record<string, string>; body?: string }} Request
 */
/**
 * One side of a comparison: `next()` builds each request, or `fixed` is sent over and over;
 * `expect` lists the statuses that count as success; `before()`, when given, runs before each
 * of the side's runs, outside its time.
 * @typedef {{
 *   name: string;
 *   scenario: string;
 *   label: string;
 *   before?: () => Promise<unknown>;
 *   next?: () => Request;
 *   fixed?: Request;
 *   expect: number[];
 * }} Side
 */
/**
 * @typedef {{
 *   latencies: number[];
 *   count: number;
 *   seconds: number;
 *   cpuSeconds: number;
 *   sent: number;
 *   errors: number;
 *   unexpected: string | undefined;
 * }} RunResult
 */

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));
const QUIET_POLL_MS = 200;
/** Server CPU per poll below which it counts as idle: the activity log still writes a batch. */
const QUIET_CPU_SECONDS = 0.02;
const QUIET_MAX_MS = 10_000;

/**
 * Requests still in flight when a run stops go on in the server: wait until it is idle, so
 * their work is not counted against the next run.
 * @param {() => number} serverCpu
 */
async function settle(serverCpu) {
  let before = serverCpu();
  for (let waited = 0; waited < QUIET_MAX_MS; waited += QUIET_POLL_MS) {
    await sleep(QUIET_POLL_MS);
    const now = serverCpu();
    if (!(now - before > QUIET_CPU_SECONDS)) return;
    before = now;
  }
}

/**
 * One load run with autocannon at a fixed concurrency. `next()` builds each request
 * ({ method, path, headers, body }); `fixed` is one request sent over and over (no per-request
 * work in the load generator, for the fastest endpoints). Either `seconds` or `amount`.
 *
 * Throughput is the rate of completions in steady state: the first `connections` responses
 * (all connections starting at once) are left out, and requests cut off by the end of the run
 * do not count against it. Server CPU is divided by every request sent, since the server
 * finishes the cut-off ones too.
 * @param {{
 *   baseUrl: string;
 *   connections: number;
 *   seconds?: number;
 *   amount?: number;
 *   next?: () => Request;
 *   fixed?: Request;
 *   expect: number[];
 *   before?: () => Promise<unknown>;
 *   serverCpu?: () => number;
 * }} options
 * @returns {Promise<RunResult>}
 */
async function run({
  baseUrl,
  connections,
  seconds,
  amount,
  next,
  fixed,
  expect,
  before,
  serverCpu = () => NaN,
}) {
  if (before) {
    await before();
    await settle(serverCpu);
  }
  /** @type {{ at: number; latency: number }[]} */
  const completions = [];
  /** @type {Map<number, number>} */
  const statuses = new Map();
  /** @type {string | undefined} */
  let unexpected;
  // Our Request's method is any string; autocannon's names the HTTP methods (each side sends one).
  const request = /** @type {autocannon.Request} */ ({
    ...(fixed ?? {}),
    ...(next
      ? {
          setupRequest(request) {
            return Object.assign(request, next());
          },
        }
      : {}),
    onResponse(status, body) {
      if (!expect.includes(status) && unexpected === undefined)
        unexpected = `${status} ${String(body).slice(0, 500)}`;
    },
  });
  // Without a callback, autocannon returns its event emitter made thenable (lib/init.js);
  // @types/autocannon types that call as a plain Promise, without the events read here.
  const instance = /** @type {autocannon.Instance & PromiseLike<autocannon.Result>} */ (
    /** @type {unknown} */ (
      autocannon({
        url: baseUrl,
        connections,
        ...(amount ? { amount } : { duration: seconds }),
        timeout: 60,
        requests: [request],
      })
    )
  );
  instance.on('response', (_client, statusCode, _bytes, responseTime) => {
    completions.push({ at: performance.now(), latency: responseTime });
    statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
  });
  const cpuBefore = serverCpu();
  const result = await instance;
  await settle(serverCpu);
  const cpuSeconds = serverCpu() - cpuBefore;
  const errors = [...statuses]
    .filter(([status]) => !expect.includes(status))
    .reduce((sum, [, n]) => sum + n, 0);
  const steady = completions.length > 2 * connections ? completions.slice(connections - 1) : completions;
  const steadySeconds = (steady[steady.length - 1]?.at - steady[0]?.at) / 1000;
  const useSteady = steady !== completions && steadySeconds > 0;
  return {
    latencies: (useSteady ? steady.slice(1) : completions).map((c) => c.latency),
    count: useSteady ? steady.length - 1 : completions.length,
    seconds: useSteady ? steadySeconds : result.duration,
    cpuSeconds,
    sent: result.requests.sent ?? completions.length,
    errors: errors + result.errors,
    unexpected:
      unexpected ??
      (result.errors > 0
        ? `${result.errors} socket errors (${result.timeouts} of them timeouts)`
        : undefined),
  };
}

/**
 * @param {number[]} sorted
 * @param {number} p
 */
const percentile = (sorted, p) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/**
 * One side's runs summed: throughput over all its time, latency percentiles over all its requests.
 * @param {RunResult[]} runs
 */
function summarise(runs) {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  const counted = runs.reduce((sum, r) => sum + r.count, 0);
  return {
    requests: runs.reduce((sum, r) => sum + r.sent, 0),
    rps: counted / seconds,
    /** Seconds per request in each round, in round order (pairedRatio). */
    roundSeconds: runs.map((r) => r.seconds / r.count),
    median: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    /** The server process's own CPU time (user + system) per request: what load on the machine barely changes. */
    cpuMs: (1000 * runs.reduce((sum, r) => sum + r.cpuSeconds, 0)) / runs.reduce((sum, r) => sum + r.sent, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    unexpected: runs.find((r) => r.unexpected)?.unexpected,
  };
}

/**
 * Runs every side once per round, rotating which goes first, so a machine that speeds up or
 * slows down during the bench affects every side alike.
 * @param {{
 *   sides: Side[];
 *   rounds: number;
 *   seconds: number;
 *   baseUrl: string;
 *   connections: number;
 *   serverCpu: () => number;
 *   onRun?: (side: Side, round: number, result: RunResult) => void;
 * }} options
 */
async function alternate({ sides, rounds, seconds, baseUrl, connections, serverCpu, onRun }) {
  /** @type {Record<string, RunResult[]>} */
  const runs = Object.fromEntries(sides.map((side) => [side.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    for (const side of order) {
      const result = await run({ baseUrl, connections, seconds, serverCpu, ...side });
      runs[side.name].push(result);
      onRun?.(side, round, result);
    }
  }
  return Object.fromEntries(sides.map((side) => [side.name, summarise(runs[side.name])]));
}

/**
 * One side's time per request over another's, as the median of the rounds' ratios: `alternate`
 * ran the two back to back in each round, so a round in which the machine stalled (a shared
 * machine's neighbours) is one ratio of eight, where pooled over all rounds it weighs on the
 * side it hit. NaN when a side did not run.
 * @param {ReturnType<typeof summarise> | undefined} top
 * @param {ReturnType<typeof summarise> | undefined} bottom
 */
function pairedRatio(top, bottom) {
  if (!top || !bottom) return NaN;
  const ratios = top.roundSeconds
    .map((seconds, round) => seconds / bottom.roundSeconds[round])
    .sort((a, b) => a - b);
  const middle = Math.floor(ratios.length / 2);
  return ratios.length % 2 === 1 ? ratios[middle] : (ratios[middle - 1] + ratios[middle]) / 2;
}

module.exports = { run, alternate, summarise, pairedRatio };
