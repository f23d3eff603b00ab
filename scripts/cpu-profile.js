#!/usr/bin/env node
/**
 * Where a server's CPU went, by package: self time from the .cpuprofile files `npm run bench --
 * --cpu-prof DIR` writes, in ms per request, side by side.
 *
 *   node scripts/cpu-profile.js DIR_OR_FILE:REQUESTS [DIR_OR_FILE:REQUESTS]
 *   --functions PATTERN   also list the functions whose script URL matches PATTERN (a regular
 *                         expression, e.g. dist/server for the plugin's own), by self time
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
  if (!Number.isInteger(options.top) || options.top < 1) fail('--top must be a whole number.');
  return options;
}

/** A .cpuprofile file, or the only one in a directory. @param {string} where */
function profileFile(where) {
  if (!fs.statSync(where).isDirectory()) return where;
  const files = fs.readdirSync(where).filter((name) => name.endsWith('.cpuprofile'));
  if (files.length !== 1) fail(`${where} holds ${files.length} .cpuprofile files; name one.`);
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
 * Self time in ms, by package and, for `functions`, by function.
 * @param {string} file
 * @param {RegExp | undefined} functions
 */
function selfTimes(file, functions) {
  /** @type {{ nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[]; samples: number[]; timeDeltas: number[] }} */
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const frames = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const byPackage = new Map();
  const byFunction = new Map();
  const add = (/** @type {Map<string, number>} */ map, /** @type {string} */ key, /** @type {number} */ ms) =>
    map.set(key, (map.get(key) ?? 0) + ms);
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const frame = frames.get(id);
    if (!frame) return;
    add(byPackage, V8_ENTRIES.has(frame.functionName) ? frame.functionName : packageOf(frame.url), ms);
    if (functions?.test(frame.url)) {
      const where = `${path.basename(frame.url)}:${frame.lineNumber + 1}`;
      add(byFunction, `${frame.functionName || '(anonymous)'} ${where}`, ms);
    }
  });
  return { byPackage, byFunction };
}

/**
 * Rows of ms per request, the largest first (by difference when there are two runs).
 * @param {Map<string, number>[]} maps
 * @param {number[]} requests
 * @param {number} top
 */
function table(maps, requests, top) {
  const keys = [...new Set(maps.flatMap((map) => [...map.keys()]))];
  const rows = keys.map((key) => ({ key, values: maps.map((map, i) => (map.get(key) ?? 0) / requests[i]) }));
  const weight = (/** @type {number[]} */ values) =>
    values.length === 2 ? Math.abs(values[0] - values[1]) : values[0];
  rows.sort((a, b) => weight(b.values) - weight(a.values));
  const cell = (/** @type {number} */ value) => value.toFixed(3).padStart(9);
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
  const times = options.runs.map((run) => selfTimes(run.file, options.functions));
  const requests = options.runs.map((run) => run.requests);
  const busy = times.map(({ byPackage }) =>
    [...byPackage].reduce((sum, [key, ms]) => (key === '(idle)' ? sum : sum + ms), 0)
  );
  const header = `${options.runs.map((_, i) => `      run ${i + 1}`).join('')}${options.runs.length === 2 ? '  1 minus 2' : ''}`;
  const lines = [
    options.runs.map((run, i) => `run ${i + 1}: ${run.file}, ${run.requests} requests`).join('\n'),
    '',
    `ms per request, self time by package${header}`,
    `${busy.map((ms, i) => (ms / requests[i]).toFixed(3).padStart(9)).join('')}${busy.length === 2 ? (busy[0] / requests[0] - busy[1] / requests[1]).toFixed(3).padStart(9) : ''}  (busy: all but idle)`,
    table(
      times.map((time) => time.byPackage),
      requests,
      options.top
    ),
  ];
  if (options.functions)
    lines.push(
      '',
      `functions in ${options.functions}`,
      table(
        times.map((time) => time.byFunction),
        requests,
        options.top
      )
    );
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
