'use strict';

const autocannon = require('autocannon');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** Requests still in flight when a run stops finish on the server before the next run starts. */
const SETTLE_MS = 500;

/**
 * One load run with autocannon at a fixed concurrency. `next()` builds each request
 * ({ method, path, headers, body }); `fixed` is one request sent over and over (no per-request
 * work in the load generator, for the fastest endpoints). Either `seconds` or `amount`.
 */
async function run({ baseUrl, connections, seconds, amount, next, fixed, expect, serverCpu = () => NaN }) {
  const latencies = [];
  const statuses = new Map();
  let unexpected;
  const request = {
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
  };
  const instance = autocannon({
    url: baseUrl,
    connections,
    ...(amount ? { amount } : { duration: seconds }),
    timeout: 60,
    requests: [request],
  });
  instance.on('response', (client, statusCode, bytes, responseTime) => {
    latencies.push(responseTime);
    statuses.set(statusCode, (statuses.get(statusCode) ?? 0) + 1);
  });
  const cpuBefore = serverCpu();
  const result = await instance;
  await sleep(SETTLE_MS);
  const cpuSeconds = serverCpu() - cpuBefore;
  const errors = [...statuses]
    .filter(([status]) => !expect.includes(status))
    .reduce((sum, [, n]) => sum + n, 0);
  return {
    latencies,
    count: latencies.length,
    seconds: result.duration,
    cpuSeconds,
    errors: errors + result.errors,
    unexpected:
      unexpected ??
      (result.errors > 0
        ? `${result.errors} socket errors (${result.timeouts} of them timeouts)`
        : undefined),
  };
}

const percentile = (sorted, p) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** One side's runs summed: throughput over all its time, latency percentiles over all its requests. */
function summarise(runs) {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((sum, r) => sum + r.seconds, 0);
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    median: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    /** The server process's own CPU time (user + system) per request: what load on the machine barely changes. */
    cpuMs: (1000 * runs.reduce((sum, r) => sum + r.cpuSeconds, 0)) / latencies.length,
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    unexpected: runs.find((r) => r.unexpected)?.unexpected,
  };
}

/**
 * Runs every side once per round, rotating which goes first, so a machine that speeds up or
 * slows down during the bench affects every side alike.
 */
async function alternate({ sides, rounds, seconds, baseUrl, connections, serverCpu, onRun }) {
  const runs = new Map(sides.map((side) => [side.name, []]));
  for (let round = 0; round < rounds; round += 1) {
    const order = sides.map((_, i) => sides[(i + round) % sides.length]);
    for (const side of order) {
      const result = await run({ baseUrl, connections, seconds, serverCpu, ...side });
      runs.get(side.name).push(result);
      onRun?.(side, round, result);
    }
  }
  return Object.fromEntries(sides.map((side) => [side.name, summarise(runs.get(side.name))]));
}

module.exports = { run, alternate, summarise };
