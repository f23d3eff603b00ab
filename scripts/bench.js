#!/usr/bin/env node
/**
 * `npm run bench`: the plugin side by side with Strapi's own REST API, on the example site.
 *
 *   node scripts/bench.js                      SQLite (a fresh temporary file)
 *   node scripts/bench.js --db postgres        a fresh database on 127.0.0.1:5432 (PGHOST, PGPORT, PGUSER)
 *   node scripts/bench.js --db mariadb         a fresh database on 127.0.0.1:3306 (MARIADB_HOST, ...)
 *   --connections 8 --rounds 8 --seconds 3     load shape (fixed concurrency; seconds per side per round)
 *   --items 100000                             published posts, categories and products (mixed) added for D
 *                                              and H (paging), with the server stopped; A runs again after
 *                                              them, for how a create's cost grows with the site
 *   --fill-first                               add them before anything else, so A to C also run on a big site
 *   --only A,C                                 run some scenarios only (F is the slowest; G alone takes ~30 s)
 *   --cpu-prof DIR                             start the server with node --cpu-prof, profile written to DIR
 *   --heap-prof DIR                            V8's sampling heap profile of the server's requests and its
 *                                              garbage collections, written to DIR (bench/heap-profile.js)
 *   --heap-prof-kind allocated|survivors       every byte allocated (the default), or only what outlived a
 *                                              young-generation collection
 *   --side plugin|native                       run one side of A, B and C only (no ratios): a CPU profile of
 *                                              it is then that side's alone, to set beside the other's
 *   --site-connections 20                      the site has that many connections (config `connections`); the
 *                                              plugin's requests go to `default`, which sets an option of its own,
 *                                              so every request finds its connection and merges its options
 *   --check                                    exit 1 when a target is missed
 *   --keep-database                            leave the bench database in place, to inspect it afterwards
 *
 * The example stores posts in its own `api::article.article`, so both sides write the same
 * type: the plugin through signed contract requests (HTML converted to Blocks by the plugin),
 * the native side through `/api/articles` with a full-access API token (the same Blocks JSON).
 * Sides alternate round by round, so drift of the machine cancels out. Progress goes to
 * stderr; stdout gets the table and, as its last line, one JSON line with the ratios.
 * The plugin is loaded from dist/: build it first after changing server/.
 */
'use strict';

const { spawnSync } = require('node:child_process');
const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { createDatabase, isClient } = require('./lib/databases');
const { ensureBuilds } = require('./lib/example-site');
const { alternate, pairedRatio, run } = require('./bench/measure');
const { runNode, startServer } = require('./bench/server');
const { allRefused, unauthenticatedBodies } = require('./bench/unauthenticated-bodies');
const { startImageHost } = require('./bench/image-host');
const { walkErrors, walkPages } = require('./bench/walk');
const {
  BenchError,
  PREFIX,
  benchEnv,
  clients,
  expectStatus,
  nativeRelated,
  probe,
  send,
} = require('./bench/requests');
const {
  HTML,
  createBody,
  fullCreateBody,
  nativeCreateData,
  nativeFullData,
  revisionBlock,
  revisionHtml,
} = require('./bench/workload');

/** @typedef {import('./bench/measure').Request} Request */
/** @typedef {import('./bench/measure').Side} Side */
/** @typedef {ReturnType<typeof import('./bench/measure').summarise>} Stats */
/**
 * A figure's target: at most `max` (or `orTimes.factor` times another figure), or at least `min`,
 * on every database or on those listed.
 * @typedef {{ max?: number; min?: number; orTimes?: { of: string; factor: number }; databases?: string[] }} Target
 */
/** @typedef {Record<string, number | null>} Ratios */
/** @typedef {{ rss: number; rssWithFreePages: number; heap: number; heapTotal: number; external: number }} MemoryUsage */
/** @typedef {{ after500: MemoryUsage; after5000: MemoryUsage; seconds: number }} Memory */
/**
 * @typedef {{
 *   alone: import('./bench/walk').Walk;
 *   during: import('./bench/walk').Walk;
 *   published: number;
 *   missed: string[];
 *   repeated: string[];
 * }} Walked
 */
const KEY = `pb_bench_${randomBytes(16).toString('hex')}`;
const SCENARIOS = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'];
const UPDATE_POOL = 200;
const MEMORY_FIRST = 500;
const MEMORY_TOTAL = 5_000;
/** H: the page size the publisher's full sync asks for (the contract's largest). */
const WALK_PER_PAGE = 250;
/** I: how long the image host takes to answer each image, and the images of the bigger post. */
const IMAGE_DELAY_MS = 200;
const IMAGES_PER_POST = 10;

/** @type {Record<string, Target | undefined>} */
const TARGETS = {
  create_ratio: { max: 1.05 },
  full_create_ratio: { max: 1.25 },
  update_ratio: { max: 1.1 },
  // A create on the filled site over one on the site before the fill; where Strapi's own create
  // grows more than 10 %, the plugin's may grow as much as it does, and 5 % more.
  growth_ratio: { max: 1.15, orTimes: { of: 'native_growth_ratio', factor: 1.05 } },
  // Page 1000 walked from the page before over page 1: every page of a walk at the cost of the first.
  paging_ratio: { max: 1.1 },
  // Server CPU is the whole cost only where the database runs inside the server process.
  pages_cpu_ms: { max: 5, databases: ['sqlite'] },
  reject_speedup: { min: 5 },
  // H: items present before a walk that a walk during publishing missed or saw twice.
  walk_errors: { max: 0 },
  // H: the walk's time while two clients publish over its time alone.
  walk_during_publishing_ratio: { max: 2.0 },
  // I: a post with IMAGES_PER_POST slow images over the same post with one (downloads in parallel).
  images_ratio: { max: 2.0 },
  rss_growth_mb: { max: 50 },
  unauthenticated_peak_rss_growth_mb: { max: 50 },
};

/** Figures the JSON line and the table report beside the targets' own. */
const FIGURES = [
  ...Object.keys(TARGETS),
  'full_native_ratio',
  'native_growth_ratio',
  'walk_s',
  'out_of_turn_page_cpu_ms',
];

/**
 * A target names the databases it holds on when it does not hold on every one.
 * @param {Target} target
 * @param {string} db
 */
const checkedOn = (target, db) => !target.databases || target.databases.includes(db);

/**
 * Whether a figure meets its target: true, false, or null when it has none here or was not measured.
 * @param {string} name
 * @param {Ratios} ratios
 * @param {string} db
 */
function verdict(name, ratios, db) {
  const target = TARGETS[name];
  const value = ratios[name];
  if (!target || value === null || !checkedOn(target, db)) return null;
  if (target.min !== undefined) return value >= target.min;
  const other = target.orTimes ? ratios[target.orTimes.of] : null;
  return (
    value <= (target.max ?? Infinity) ||
    (target.orTimes !== undefined &&
      other !== null &&
      Number.isFinite(other) &&
      value <= target.orTimes.factor * other)
  );
}

/** @param {Target | undefined} target */
function targetText(target) {
  if (!target) return '';
  if (target.min !== undefined) return `>= ${target.min}`;
  const alternative = target.orTimes ? ` or <= ${target.orTimes.factor} x ${target.orTimes.of}` : '';
  return `<= ${target.max}${alternative}`;
}

/** @param {string[]} argv */
function parseArguments(argv) {
  const options = {
    db: /** @type {import('./lib/databases').Client} */ ('sqlite'),
    connections: 8,
    rounds: 8,
    seconds: 3,
    warmup: 2,
    items: 100_000,
    only: SCENARIOS,
    cpuProf: /** @type {string | undefined} */ (undefined),
    heapProf: /** @type {string | undefined} */ (undefined),
    heapProfKind: /** @type {'allocated' | 'survivors'} */ ('allocated'),
    check: false,
    fillFirst: false,
    keepDatabase: false,
    siteConnections: 1,
    side: /** @type {'plugin' | 'native' | undefined} */ (undefined),
  };
  const numbers = /** @type {const} */ (['connections', 'rounds', 'seconds', 'warmup', 'items']);
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    const value = () => inline ?? argv[(i += 1)];
    const name = flag.replace(/^--/, '');
    const number = numbers.find((known) => known === name);
    if (name === 'db') {
      const db = value();
      if (!isClient(db)) throw new BenchError(`--db must be sqlite, postgres or mariadb, not "${db}".`);
      options.db = db;
    } else if (number) options[number] = Number(value());
    else if (name === 'only') options.only = value().toUpperCase().split(',').filter(Boolean);
    else if (name === 'cpu-prof') options.cpuProf = path.resolve(value());
    else if (name === 'heap-prof') options.heapProf = path.resolve(value());
    else if (name === 'heap-prof-kind') {
      const kind = value();
      if (kind !== 'allocated' && kind !== 'survivors')
        throw new BenchError(`--heap-prof-kind must be allocated or survivors, not "${kind}".`);
      options.heapProfKind = kind;
    } else if (name === 'check') options.check = true;
    else if (name === 'fill-first') options.fillFirst = true;
    else if (name === 'keep-database') options.keepDatabase = true;
    else if (name === 'site-connections') options.siteConnections = Number(value());
    else if (name === 'side') {
      const side = value();
      if (side !== 'plugin' && side !== 'native')
        throw new BenchError(`--side must be plugin or native, not "${side}".`);
      options.side = side;
    } else
      throw new BenchError(`Unknown option ${argv[i]} (see the comment at the top of scripts/bench.js).`);
  }
  for (const name of numbers) {
    if (!Number.isInteger(options[name]) || options[name] < 0)
      throw new BenchError(`--${name} must be a whole number.`);
  }
  if (!Number.isInteger(options.siteConnections) || options.siteConnections < 1)
    throw new BenchError('--site-connections must be a whole number of at least 1.');
  const unknown = options.only.filter((s) => !SCENARIOS.includes(s));
  if (unknown.length)
    throw new BenchError(`--only takes ${SCENARIOS.join(', ')}; not ${unknown.join(', ')}.`);
  const twoSided = ['A', 'B', 'C'];
  if (options.side && options.only.some((scenario) => !twoSided.includes(scenario)))
    throw new BenchError(
      `--side needs --only with ${twoSided.join(', ')} only: the other scenarios have no native side.`
    );
  return options;
}

const progress = (/** @type {string} */ message) => process.stderr.write(`[bench] ${message}\n`);

/**
 * Runs a build to completion, its output on stderr: stdout carries only the bench's results.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string; env: NodeJS.ProcessEnv }} options
 */
function runBuild(command, args, { cwd, env }) {
  const { status } = spawnSync(command, args, { cwd, env, stdio: ['ignore', 2, 2] });
  if (status !== 0) throw new BenchError(`${[command, ...args].join(' ')} failed (exit ${status}).`);
}

/**
 * Runs `work(n)` for n = 0..count-1, `concurrency` at a time.
 * @template T
 * @param {number} count
 * @param {number} concurrency
 * @param {(n: number) => Promise<T>} work
 * @returns {Promise<T[]>}
 */
async function inParallel(count, concurrency, work) {
  const results = new Array(count);
  let nextIndex = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (nextIndex < count) {
        const n = nextIndex++;
        results[n] = await work(n);
      }
    })
  );
  return results;
}

/**
 * @param {(string | number)[]} cells
 * @param {number[]} widths
 */
function formatRow(cells, widths) {
  return cells
    .map((cell, i) => (i < 2 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i])))
    .join('  ');
}

/**
 * @param {number} value
 * @param {number} digits
 */
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');

/**
 * @param {{
 *   options: ReturnType<typeof parseArguments>;
 *   database: string;
 *   sides: { scenario: string; label: string; stats: Stats }[];
 *   memory: Memory | undefined;
 *   strangers: Awaited<ReturnType<typeof unauthenticatedBodies>> | undefined;
 *   walk: Walked | undefined;
 *   ratios: Ratios;
 *   fill: { items: number; seconds: number };
 *   machine: string;
 * }} results
 */
function report({ options, database, sides, memory, strangers, walk, ratios, fill, machine }) {
  /** @type {string[]} */
  const lines = [];
  lines.push('');
  lines.push(
    `Publish Bridge bench: ${database}, ${options.connections} connections, ${options.rounds} rounds x ${options.seconds} s per side, ` +
      (options.siteConnections > 1 ? `a site of ${options.siteConnections} connections, ` : '') +
      `${fill.items.toLocaleString('en-US')} published items filled in ${fill.seconds.toFixed(1)} s`
  );
  lines.push(machine);
  lines.push('');
  const widths = [44, 16, 9, 8, 10, 8, 13, 7];
  const header = ['scenario', 'side', 'requests', 'req/s', 'median ms', 'p99 ms', 'server CPU ms', 'errors'];
  lines.push(formatRow(header, widths));
  lines.push('-'.repeat(widths.reduce((sum, w) => sum + w + 2, -2)));
  for (const side of sides) {
    const s = side.stats;
    lines.push(
      formatRow(
        [
          side.scenario,
          side.label,
          s.requests,
          fixed(s.rps, 1),
          fixed(s.median, 1),
          fixed(s.p99, 1),
          fixed(s.cpuMs, 2),
          s.errors,
        ],
        widths
      )
    );
  }
  lines.push(
    'server CPU ms: CPU time of the Strapi process per request (SQLite runs inside it, PostgreSQL and MariaDB do not).'
  );
  if (memory) {
    lines.push(
      `F memory, after a last-resort GC: server RSS ${memory.after500.rss.toFixed(1)} MB after ${MEMORY_FIRST} publishes, ` +
        `${memory.after5000.rss.toFixed(1)} MB after ${MEMORY_TOTAL.toLocaleString('en-US')} ` +
        `(before V8 gave back its emptied pages: ${memory.after500.rssWithFreePages.toFixed(1)} MB, then ${memory.after5000.rssWithFreePages.toFixed(1)} MB); ` +
        `V8 heap ${memory.after500.heap.toFixed(1)} MB, then ${memory.after5000.heap.toFixed(1)} MB ` +
        `(kept: ${memory.after500.heapTotal.toFixed(1)} MB, then ${memory.after5000.heapTotal.toFixed(1)} MB); ` +
        `outside it (Buffers...) ${memory.after500.external.toFixed(1)} MB, then ${memory.after5000.external.toFixed(1)} MB ` +
        `(${memory.seconds.toFixed(0)} s of publishing)`
    );
  }
  if (strangers) {
    lines.push(
      `G strangers: ${strangers.clients} clients with a wrong key, ${strangers.bytes / 2 ** 20} MB body each, refused in ${strangers.seconds.toFixed(1)} s: ` +
        `server RSS ${strangers.beforeMb.toFixed(1)} MB before, peak ${strangers.peakMb.toFixed(1)} MB while they sent (${JSON.stringify(strangers.outcomes)})`
    );
  }
  if (walk) {
    const { alone, during } = walk;
    const added = during.seen.size - [...alone.seen.keys()].filter((key) => during.seen.has(key)).length;
    lines.push(
      `H walk (per_page=${WALK_PER_PAGE}): ${alone.seen.size.toLocaleString('en-US')} items in ${alone.pages} pages, ${alone.seconds.toFixed(1)} s; ` +
        `again while ${walk.published} posts were published: ${during.pages} pages, ${during.seconds.toFixed(1)} s, ` +
        `${added} new items seen, ${walk.missed.length} missed, ${walk.repeated.length} seen twice` +
        (walk.missed.length + walk.repeated.length > 0
          ? ` (e.g. ${[...walk.missed, ...walk.repeated].slice(0, 3).join(', ')})`
          : '')
    );
  }
  lines.push('');
  const figureWidths = [34, 0, 8, 44, 6];
  lines.push(formatRow(['figure', '', 'value', 'target', 'result'], figureWidths));
  for (const name of FIGURES) {
    const met = verdict(name, ratios, options.db);
    const result = met === null ? (TARGETS[name] ? 'n/a' : '') : met ? 'met' : 'MISSED';
    lines.push(formatRow([name, '', ratios[name] ?? 'n/a', targetText(TARGETS[name]), result], figureWidths));
  }
  lines.push('');
  return lines.join('\n');
}

const round = (/** @type {number} */ value, digits = 3) =>
  Number.isFinite(value) ? Number(value.toFixed(digits)) : null;

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const wants = (/** @type {string} */ scenario) => options.only.includes(scenario);
  const startedAt = Date.now();
  const database = await createDatabase(options.db, 'pb_bench');
  const env = benchEnv(database.env, KEY, options.siteConnections);
  // Started and restarted by start() below; the cast keeps its type where closures assign it.
  let server = /** @type {import('./bench/server').Server | undefined} */ (undefined);
  /** The server started last: every scenario runs while it does. */
  const running = () => {
    if (!server) throw new BenchError('The bench server is not running.');
    return server;
  };
  const resultFile = path.join(os.tmpdir(), `pb-bench-setup-${process.pid}.json`);
  try {
    /** @type {(items: number, ...flags: string[]) => Promise<{ apiToken: string; filled: { items: number; seconds: number } }>} */
    const setup = async (items, ...flags) => {
      await runNode([path.join(__dirname, 'bench', 'setup.js'), resultFile, String(items), ...flags], env);
      return JSON.parse(fs.readFileSync(resultFile, 'utf8'));
    };
    if (options.heapProf) fs.mkdirSync(options.heapProf, { recursive: true });
    const start = async () => {
      progress('starting the server (strapi start)...');
      server = await startServer(env, {
        cpuProfileDir: options.cpuProf,
        heapProfile: options.heapProf
          ? { directory: options.heapProf, kind: options.heapProfKind }
          : undefined,
      });
      return server.baseUrl;
    };
    // `strapi start` runs the example from example/dist, which a fresh checkout does not have.
    await ensureBuilds({ env, run: runBuild, log: progress });
    const firstFill = options.fillFirst ? options.items : 0;
    progress(`${database.label}: creating the schema, an API token and ${firstFill} published items...`);
    const { apiToken, filled } = await setup(firstFill);
    let fill = filled;
    let baseUrl = await start();
    const client = clients(apiToken, KEY);
    const { blocks, contentBytes } = await probe(baseUrl, client);
    progress(
      `both sides store the same ${contentBytes}-byte post; measuring at ${options.connections} connections`
    );

    const load = { baseUrl, connections: options.connections, serverCpu: () => running().cpuSeconds() };
    const runTag = randomBytes(3).toString('hex');
    let counter = 0;
    const next = () => (counter += 1);
    const pluginCreate = () => client.plugin('POST', '/posts', createBody(runTag, next()));
    const pluginFullCreate = () => client.plugin('POST', '/posts', fullCreateBody(runTag, next()));
    const nativeCreate = () =>
      client.native('POST', '/api/articles', nativeCreateData(runTag, next(), blocks));
    /** @type {{ scenario: string; label: string; stats: Stats }[]} */
    const sides = [];
    /** @type {Ratios} */
    const ratios = Object.fromEntries(FIGURES.map((name) => [name, null]));
    /** @type {Memory | undefined} */
    let memory;
    /** @type {Awaited<ReturnType<typeof unauthenticatedBodies>> | undefined} */
    let strangers;
    /** @type {Walked | undefined} */
    let walk;

    if (wants('G')) {
      progress('G: 50 clients with a wrong key each sending a 10 MB body at once...');
      strangers = await unauthenticatedBodies({ server: running(), path: `${PREFIX}/posts` });
      if (!allRefused(strangers))
        throw new BenchError(
          `G: not every stranger was refused (401 or a closed connection): ${JSON.stringify(strangers.outcomes)}`
        );
      // A closed connection counts as refused only while the server is still there.
      const health = await fetch(`${running().baseUrl}/_health`).catch((error) => ({
        status: error.message,
      }));
      if (health.status !== 204)
        throw new BenchError(`G: the server did not answer afterwards (${health.status})`);
      ratios.unauthenticated_peak_rss_growth_mb = round(strangers.peakMb - strangers.beforeMb, 1);
    }

    if (wants('F')) {
      progress(`F: ${MEMORY_TOTAL} publishes, RSS read after ${MEMORY_FIRST} and after ${MEMORY_TOTAL}...`);
      const began = Date.now();
      const first = await run({ ...load, amount: MEMORY_FIRST, next: pluginCreate, expect: [200] });
      const after500 = await running().memoryMb();
      const rest = await run({
        ...load,
        amount: MEMORY_TOTAL - MEMORY_FIRST,
        next: pluginCreate,
        expect: [200],
      });
      const after5000 = await running().memoryMb();
      if (first.errors + rest.errors > 0)
        throw new BenchError(
          `F: ${first.errors + rest.errors} publishes failed: ${first.unexpected ?? rest.unexpected}`
        );
      memory = { after500, after5000, seconds: (Date.now() - began) / 1000 };
      ratios.rss_growth_mb = round(after5000.rss - after500.rss, 1);
    }

    /**
     * `shape` overrides the load's, e.g. `{ connections: 1 }` for latency alone.
     * @type {(title: string, sideList: Side[], shape?: { connections?: number }) => Promise<Record<string, Stats>>}
     */
    const measure = async (title, allSides, shape = {}) => {
      const sideList = allSides.filter((side) => !options.side || side.label === options.side);
      for (const side of sideList) {
        if (options.warmup > 0) await run({ ...load, ...shape, seconds: options.warmup, ...side });
      }
      progress(`${title}: ${options.rounds} rounds of ${sideList.map((s) => s.name).join(' / ')}...`);
      const stats = await alternate({
        ...load,
        ...shape,
        sides: sideList,
        rounds: options.rounds,
        seconds: options.seconds,
        onRun: (side, i, result) =>
          progress(
            `  round ${i + 1} ${side.name}: ${(result.count / result.seconds).toFixed(1)} req/s${result.errors ? `, ${result.errors} errors` : ''}`
          ),
      });
      for (const side of sideList) {
        sides.push({ scenario: side.scenario, label: side.label, stats: stats[side.name] });
        if (stats[side.name].errors > 0)
          throw new BenchError(
            `${side.name}: ${stats[side.name].errors} requests failed, e.g. ${stats[side.name].unexpected}`
          );
      }
      return stats;
    };

    /** A's two sides; `at` names the site's size in the table when A runs again on the filled site. */
    /** @type {(at?: string) => Side[]} */
    const createSides = (at = '') => [
      {
        name: `A plugin${at}`,
        scenario: `A create: POST /posts${at}`,
        label: 'plugin',
        next: pluginCreate,
        expect: [200],
      },
      {
        name: `A native${at}`,
        scenario: `A create: POST /api/articles${at}`,
        label: 'native',
        next: nativeCreate,
        expect: [201],
      },
    ];
    /** Seconds per create of each side before the fill, for growth_ratio. */
    /** @type {{ plugin: number; native: number } | undefined} */
    let createBeforeFill;

    if (wants('A') || wants('B') || wants('E')) {
      // B and E are compared with A, which runs with them.
      const sideList = createSides();
      if (wants('B')) {
        const related = await nativeRelated(baseUrl, client);
        sideList.push(
          {
            name: 'B plugin',
            scenario: 'B full publish: POST /posts',
            label: 'plugin',
            next: pluginFullCreate,
            expect: [200],
          },
          {
            name: 'B native',
            scenario: 'B full publish: POST /api/articles',
            label: 'native',
            next: () =>
              client.native('POST', '/api/articles', nativeFullData(runTag, next(), { blocks, ...related })),
            expect: [201],
          }
        );
      }
      if (wants('E')) {
        // One body over and over: the load generator must not be what limits the fastest side.
        const forged = client.forged('POST', '/posts', createBody(runTag, 0));
        sideList.push({
          name: 'E forged',
          scenario: 'E bad signature: POST /posts',
          label: 'forged',
          next: () => ({ headers: { ...forged.headers, 'x-publisher-timestamp': String(Date.now()) } }),
          fixed: forged,
          expect: [401],
        });
      }
      const stats = await measure('A/B/E', sideList);
      // NaN (a ratio of null) for a side --side left out.
      const perRequest = (/** @type {string} */ name) => (stats[name] ? 1 / stats[name].rps : NaN);
      const paired = (/** @type {string} */ top, /** @type {string} */ bottom) =>
        round(pairedRatio(stats[top], stats[bottom]));
      if (wants('A')) {
        ratios.create_ratio = paired('A plugin', 'A native');
        if (!options.fillFirst)
          createBeforeFill = { plugin: perRequest('A plugin'), native: perRequest('A native') };
      }
      if (wants('B')) {
        // The target's figure is over a plain native create (A); Strapi's own write of the same
        // full post (its relations sent as ids) is beside it, for what the plugin adds to that.
        ratios.full_create_ratio = paired('B plugin', 'A native');
        ratios.full_native_ratio = paired('B plugin', 'B native');
      }
      if (wants('E')) ratios.reject_speedup = round(stats['E forged'].rps / stats['A plugin'].rps, 1);
    }

    if (wants('C')) {
      progress(`C: creating ${UPDATE_POOL} posts per side to update...`);
      const pluginPool = await inParallel(UPDATE_POOL, options.connections, async (n) => {
        const body = { ...createBody(`${runTag}-pool`, n), source_id: `bench-${runTag}-pool-${n}` };
        const reply = await send(baseUrl, client.plugin('POST', '/posts', body));
        return { id: expectStatus(reply, [200], 'A pool publish').id, sourceId: body.source_id };
      });
      const nativePool = await inParallel(UPDATE_POOL, options.connections, async (n) => {
        const data = {
          title: `Bench ${runTag} pool ${n}`,
          slug: `bench-${runTag}-native-pool-${n}`,
          content: blocks,
        };
        const reply = await send(baseUrl, client.native('POST', '/api/articles', data));
        return expectStatus(reply, [201], 'A native pool create').data.documentId;
      });
      let pluginTurn = 0;
      let nativeTurn = 0;
      const stats = await measure('C', [
        {
          name: 'C plugin',
          scenario: 'C content update: PUT /posts/{id}',
          label: 'plugin',
          next: () => {
            const n = (pluginTurn += 1);
            const { id, sourceId } = pluginPool[n % UPDATE_POOL];
            return client.plugin('PUT', `/posts/${id}`, {
              content: revisionHtml(n) + HTML,
              source_id: sourceId,
            });
          },
          expect: [200],
        },
        {
          name: 'C native',
          scenario: 'C content update: PUT /api/articles/{id}',
          label: 'native',
          next: () => {
            const n = (nativeTurn += 1);
            return client.native('PUT', `/api/articles/${nativePool[n % UPDATE_POOL]}`, {
              content: [revisionBlock(n), ...blocks],
            });
          },
          expect: [200],
        },
      ]);
      ratios.update_ratio = round(pairedRatio(stats['C plugin'], stats['C native']));
    }

    if (wants('I')) {
      const host = await startImageHost({ delayMs: IMAGE_DELAY_MS });
      try {
        // Every image a URL of its own, so each publish downloads all of its images.
        const postWithImages = (/** @type {number} */ count) => () => {
          const n = next();
          const figures = Array.from(
            { length: count },
            (_, i) => `<p><img src="${host.url}/${runTag}/${n}/${i}.png" alt="Figure ${i + 1}"></p>`
          );
          return client.plugin('POST', '/posts', {
            ...createBody(runTag, n),
            content: figures.join('') + HTML,
          });
        };
        const stats = await measure(
          `I (images answered after ${IMAGE_DELAY_MS} ms, one publish at a time)`,
          [
            {
              name: 'I one image',
              scenario: 'I publish with images: POST /posts',
              label: '1 image',
              next: postWithImages(1),
              expect: [200],
            },
            {
              name: 'I many images',
              scenario: 'I publish with images: POST /posts',
              label: `${IMAGES_PER_POST} images`,
              next: postWithImages(IMAGES_PER_POST),
              expect: [200],
            },
          ],
          { connections: 1 }
        );
        ratios.images_ratio = round(stats['I many images'].median / stats['I one image'].median);
      } finally {
        await host.close();
      }
    }

    if ((wants('D') || wants('H')) && !options.fillFirst) {
      // Filled only now, so that A to C ran on the site their own publishes built.
      await running().stop();
      progress(
        `D/H: adding ${options.items} published posts, categories and products with the server stopped...`
      );
      fill = (await setup(options.items, '--no-token')).filled;
      baseUrl = await start();
      load.baseUrl = baseUrl;
    }

    if (wants('D')) {
      // Page 1000 with the default 100,000 items: the last full page of the fill.
      const PAGE_FAR = Math.max(2, Math.floor(options.items / 100));
      const pageRequest = (/** @type {number} */ page) => () =>
        client.plugin('GET', `/pages?per_page=100&page=${page}`);
      for (const page of [1, PAGE_FAR]) {
        const items = expectStatus(
          await send(baseUrl, pageRequest(page)()),
          [200],
          `GET /pages page ${page}`
        );
        if (!Array.isArray(items) || items.length !== 100)
          throw new BenchError(`GET /pages page ${page} returned ${items.length} items, not 100.`);
      }
      const walkSide = `D page ${PAGE_FAR} after ${PAGE_FAR - 1}`;
      // Asked before any walk reached it: its offset counted (a page asked out of turn).
      const alone = await measure('D, out of turn', [
        {
          name: `D page ${PAGE_FAR}`,
          scenario: 'D list: GET /pages?per_page=100',
          label: `page ${PAGE_FAR} alone`,
          next: pageRequest(PAGE_FAR),
          expect: [200],
        },
      ]);
      // Page 1 and the walked page alternate round by round, as A's two sides do, so that a round
      // the shared machine stalled weighs on one ratio of eight, not on one page.
      const stats = await measure('D, page 1 and the next page of a walk', [
        {
          name: 'D page 1',
          scenario: 'D list: GET /pages?per_page=100',
          label: 'page 1',
          next: pageRequest(1),
          expect: [200],
        },
        {
          name: walkSide,
          scenario: 'D list: GET /pages?per_page=100',
          label: `page ${PAGE_FAR} walked`,
          // The publisher's sync asks each page right after the one before (see H): the plugin
          // then reads it from the last key of that page, which it remembers for two minutes,
          // where a page asked out of turn counts its offset.
          before: async () =>
            expectStatus(
              await send(baseUrl, pageRequest(PAGE_FAR - 1)()),
              [200],
              `GET /pages page ${PAGE_FAR - 1}`
            ),
          next: pageRequest(PAGE_FAR),
          expect: [200],
        },
      ]);
      ratios.paging_ratio = round(pairedRatio(stats[walkSide], stats['D page 1']));
      // The dearer of the two pages: a walk pays for every page up to the last.
      ratios.pages_cpu_ms = round(Math.max(stats['D page 1'].cpuMs, stats[walkSide].cpuMs), 2);
      ratios.out_of_turn_page_cpu_ms = round(alone[`D page ${PAGE_FAR}`].cpuMs, 2);
    }

    if (createBeforeFill && fill.items > 0) {
      const at = ` (${fill.items.toLocaleString('en-US')} items)`;
      const stats = await measure(`A again on the filled site`, createSides(at));
      ratios.growth_ratio = round(1 / stats[`A plugin${at}`].rps / createBeforeFill.plugin);
      ratios.native_growth_ratio = round(1 / stats[`A native${at}`].rps / createBeforeFill.native);
    }

    if (wants('H')) {
      const getPage = async (/** @type {number} */ page) =>
        expectStatus(
          await send(baseUrl, client.plugin('GET', `/pages?per_page=${WALK_PER_PAGE}&page=${page}`)),
          [200],
          `GET /pages page ${page}`
        );
      progress(
        `H: the publisher's sync, per_page=${WALK_PER_PAGE}, alone and then while posts are published...`
      );
      const alone = await walkPages(getPage, WALK_PER_PAGE);
      let walking = true;
      let published = 0;
      const publishing = Promise.all(
        Array.from({ length: 2 }, async () => {
          while (walking) {
            expectStatus(await send(baseUrl, pluginCreate()), [200], 'H publish during the walk');
            published += 1;
          }
        })
      );
      const during = await walkPages(getPage, WALK_PER_PAGE).finally(() => (walking = false));
      await publishing;
      const { missed, repeated } = walkErrors(alone, during);
      walk = { alone, during, published, missed, repeated };
      ratios.walk_s = round(alone.seconds, 1);
      ratios.walk_errors = missed.length + repeated.length;
      ratios.walk_during_publishing_ratio = round(during.seconds / alone.seconds);
    }

    const machine = `Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GB; load generator on the same machine; bench took ${((Date.now() - startedAt) / 1000).toFixed(0)} s`;
    process.stdout.write(
      report({ options, database: database.label, sides, memory, strangers, walk, ratios, fill, machine })
    );
    process.stdout.write(`${JSON.stringify(ratios)}\n`);
    const missed = FIGURES.filter((name) => verdict(name, ratios, options.db) === false);
    if (options.check && missed.length > 0) process.exitCode = 1;
  } finally {
    fs.rmSync(resultFile, { force: true });
    if (server) await server.stop();
    if (options.keepDatabase) progress(`kept the database: ${JSON.stringify(database.env)}`);
    else
      await database.drop().catch((error) => progress(`could not drop the bench database: ${error.message}`));
  }
}

main().catch((error) => {
  process.stderr.write(`\n[bench] ${error instanceof BenchError ? error.message : error.stack}\n`);
  process.exitCode = 1;
});
