#!/usr/bin/env node
/**
 * Where a server's CPU or memory went, by package, in figures per request, side by side: self time
 * from the .cpuprofile files `npm run bench -- --cpu-prof DIR` writes (ms), or bytes allocated from
 * the .heapprofile files of `--heap-prof DIR` (KB), with the garbage collections of that run.
 *
 *   node scripts/cpu-profile.js DIR_OR_FILE:REQUESTS [DIR_OR_FILE:REQUESTS]
 *   --functions PATTERN   also list the functions whose script URL matches PATTERN (a regular
 *                         expression, e.g. dist/server for the plugin's own), by self time or size
 *   --top 25              rows per table
 *
 * REQUESTS is what the bench's table counted for the run (its warm-up is not counted, so figures
 * run a few per cent high, alike for both). With `--side plugin` and `--side native` runs, the two
 * columns and their difference say what a plugin request costs beyond Strapi's own. Time in the
 * plugin's bundle is `(plugin)`; `(garbage collector)` and `(idle)` are V8's.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

/** @param {string} message */
function fail(message) {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

/** @param {string[]} argv */
function parseArguments(argv) {
  /** @type {{ runs: { file: string; requests: number }[]; functions: RegExp | undefined; top: number }} */
  const options = { runs: [], functions: undefined, top: 25 };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--functions') options.functions = new RegExp(argv[(i += 1)]);
    else if (argv[i] === '--top') options.top = Number(argv[(i += 1)]);
    else {
      const [where, requests] = argv[i].split(/:(?=\d+$)/);
      options.runs.push({ file: profileFile(where), requests: Number(requests ?? 1) });
    }
  }
  if (options.runs.length < 1 || options.runs.length > 2)
    fail('Give one or two profiles (see the top of this file).');
  if (new Set(options.runs.map((run) => isHeapProfile(run.file))).size > 1)
    fail('Give two CPU profiles or two heap profiles, not one of each.');
  if (!Number.isInteger(options.top) || options.top < 1) fail('--top must be a whole number.');
  return options;
}

const isHeapProfile = (/** @type {string} */ file) => file.endsWith('.heapprofile');

/** A .cpuprofile or .heapprofile file, or the only one in a directory. @param {string} where */
function profileFile(where) {
  if (!fs.statSync(where).isDirectory()) return where;
  const files = fs.readdirSync(where).filter((name) => name.endsWith('.cpuprofile') || isHeapProfile(name));
  if (files.length !== 1) fail(`${where} holds ${files.length} profiles; name one.`);
  return path.join(where, files[0]);
}

/** The package a script belongs to: the innermost node_modules folder's, the plugin's bundle, Node's own. */
function packageOf(/** @type {string} */ url) {
  if (!url) return '(native code)';
  const packages = url.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/g);
  if (packages) return packages[packages.length - 1].slice('node_modules/'.length);
  if (url.includes('/dist/server/')) return '(plugin)';
  if (url.startsWith('node:')) return '(node)';
  return url;
}

const V8_ENTRIES = new Set(['(garbage collector)', '(idle)', '(program)']);

/**
 * @param {Map<string, number>} map
 * @param {string} key
 * @param {number} amount
 */
const add = (map, key, amount) => map.set(key, (map.get(key) ?? 0) + amount);

/** @typedef {{ functionName: string; url: string; lineNumber: number }} CallFrame */

/** `name file:line` of a function, as the tables list it. @param {CallFrame} frame */
const functionOf = (frame) =>
  `${frame.functionName || '(anonymous)'} ${path.basename(frame.url)}:${frame.lineNumber + 1}`;

/**
 * Self time in ms, by package and, for `functions`, by function.
 * @param {string} file
 * @param {RegExp | undefined} functions
 */
function selfTimes(file, functions) {
  /** @type {{ nodes: { id: number; callFrame: CallFrame }[]; samples: number[]; timeDeltas: number[] }} */
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byPackage = new Map();
  const byFunction = new Map();
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = frames.get(id);
    if (!frame) return;
    add(byPackage, V8_ENTRIES.has(frame.functionName) ? frame.functionName : packageOf(frame.url), ms);
    if (functions?.test(frame.url)) add(byFunction, functionOf(frame), ms);
  });
  return { byPackage, byFunction };
}

/** @typedef {{ callFrame: CallFrame; selfSize: number; children: HeapNode[] }} HeapNode */

/**
 * KB allocated, by package and, for `functions`, by function: the allocating frame's, as V8's
 * sampling profiler scaled its samples.
 * @param {string} file
 * @param {RegExp | undefined} functions
 */
function selfSizes(file, functions) {
  /** @type {{ head: HeapNode }} */
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byPackage = new Map();
  const byFunction = new Map();
  /** @type {HeapNode[]} */
  const nodes = [profile.head];
  for (let node = nodes.pop(); node; node = nodes.pop()) {
    const kb = node.selfSize / 1024;
    add(byPackage, packageOf(node.callFrame.url), kb);
    if (functions?.test(node.callFrame.url)) add(byFunction, functionOf(node.callFrame), kb);
    nodes.push(...node.children);
  }
  return { byPackage, byFunction };
}

/**
 * What heap-profile.js wrote beside a heap profile: whether it counts every byte allocated or only
 * what outlived a young-generation collection, and the garbage collections of the run, per
 * request, with the ms each took.
 * @param {string} file
 * @param {number} requests
 */
function heapRunOf(file, requests) {
  const beside = file.replace(/\.heapprofile$/, '.gc.json');
  if (!fs.existsSync(beside)) return { kind: 'allocated', collections: [] };
  /** @type {{ kind: 'allocated' | 'survivors'; collections: Record<string, { count: number; ms: number }> }} */
  const { kind, collections } = JSON.parse(fs.readFileSync(beside, 'utf8'));
  return {
    kind,
    collections: Object.entries(collections).map(
      ([collection, { count, ms }]) =>
        `${(count / requests).toFixed(3).padStart(10)} a request, ${(ms / count).toFixed(3)} ms each: ${collection}`
    ),
  };
}

/** A figure in its column: ms to the µs, KB to a tenth. @param {number} value @param {boolean} heap */
const cellOf = (value, heap) => value.toFixed(heap ? 1 : 3).padStart(10);

/**
 * Rows of figures per request, the largest first (by difference when there are two runs).
 * @param {Map<string, number>[]} maps
 * @param {number[]} requests
 * @param {number} top
 * @param {boolean} heap
 */
function table(maps, requests, top, heap) {
  const keys = [...new Set(maps.flatMap((map) => [...map.keys()]))];
  const rows = keys.map((key) => ({ key, values: maps.map((map, i) => (map.get(key) ?? 0) / requests[i]) }));
  const weight = (/** @type {number[]} */ values) =>
    values.length === 2 ? Math.abs(values[0] - values[1]) : values[0];
  rows.sort((a, b) => weight(b.values) - weight(a.values));
  const cell = (/** @type {number} */ value) => cellOf(value, heap);
  return rows
    .slice(0, top)
    .map(({ key, values }) => {
      const difference = values.length === 2 ? cell(values[0] - values[1]) : '';
      return `${values.map(cell).join('')}${difference}  ${key}`;
    })
    .join('\n');
}

function main() {
  const options = parseArguments(process.argv.slice(2));
  const heap = isHeapProfile(options.runs[0].file);
  const figures = options.runs.map((run) => (heap ? selfSizes : selfTimes)(run.file, options.functions));
  const requests = options.runs.map((run) => run.requests);
  const totals = figures.map(({ byPackage }) =>
    [...byPackage].reduce((sum, [key, amount]) => (key === '(idle)' ? sum : sum + amount), 0)
  );
  const header = `${options.runs.map((_, i) => `       run ${i + 1}`).join('')}${options.runs.length === 2 ? '   1 minus 2' : ''}`;
  const perRequest = totals.map((total, i) => total / requests[i]);
  const heapRuns = heap ? options.runs.map((run) => heapRunOf(run.file, run.requests)) : [];
  const kinds = new Set(heapRuns.map((run) => run.kind));
  if (kinds.size > 1)
    fail('One heap profile counts every allocation, the other survivors only: give two of a kind.');
  const unit = kinds.has('survivors')
    ? 'KB per request surviving a scavenge, by package'
    : 'KB per request, allocated by package';
  const lines = [
    options.runs.map((run, i) => `run ${i + 1}: ${run.file}, ${run.requests} requests`).join('\n'),
    '',
    `${heap ? unit : 'ms per request, self time by package'}${header}`,
    `${perRequest.map((figure) => cellOf(figure, heap)).join('')}${perRequest.length === 2 ? cellOf(perRequest[0] - perRequest[1], heap) : ''}  (${heap ? 'all' : 'busy: all but idle'})`,
    table(
      figures.map((figure) => figure.byPackage),
      requests,
      options.top,
      heap
    ),
  ];
  if (options.functions)
    lines.push(
      '',
      `functions in ${options.functions}`,
      table(
        figures.map((figure) => figure.byFunction),
        requests,
        options.top,
        heap
      )
    );
  heapRuns.forEach(({ collections }, i) => {
    if (collections.length > 0) lines.push('', `garbage collections, run ${i + 1}`, ...collections);
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
