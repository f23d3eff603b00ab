#!/usr/bin/env node
/**
 * `npm run test:durations`: writes test/durations.json, how long each test file took, from the
 * results the last runs left in test/artifacts (`npm test`, `npm run test:postgres`,
 * `npm run test:mariadb`): for each file the longest of its databases, in seconds. Jest runs
 * the longest files first by it (test/helpers/sequencer.js). A file no run measured keeps its
 * figure while it exists.
 */
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.resolve(__dirname, '..');
const TEST_DIR = path.join(ROOT, 'test');
const DURATIONS = path.join(TEST_DIR, 'durations.json');
const RUNS = ['sqlite', 'postgres', 'mariadb', 'unit-node22'].map((name) =>
  path.join(TEST_DIR, 'artifacts', `jest-${name}.json`)
);

/** @type {Record<string, number>} */
const durations = fs.existsSync(DURATIONS) ? JSON.parse(fs.readFileSync(DURATIONS, 'utf8')) : {};
/** @type {Record<string, number>} */
const measured = {};
for (const file of RUNS.filter((run) => fs.existsSync(run))) {
  /** @type {{ testResults: Array<{ name: string; status: string; startTime: number; endTime: number }> }} */
  const { testResults } = JSON.parse(fs.readFileSync(file, 'utf8'));
  // A file skipped on this database (faults.test on SQLite) is not measured by it: 0 s would
  // replace the figure of the databases that run it.
  for (const { name, startTime, endTime } of testResults.filter(({ status }) => status !== 'skipped')) {
    const key = path.relative(TEST_DIR, name).split(path.sep).join('/');
    measured[key] = Math.max(measured[key] ?? 0, Math.round((endTime - startTime) / 100) / 10);
  }
}
if (Object.keys(measured).length === 0) {
  process.stderr.write(
    'No results in test/artifacts: run npm test (and test:postgres, test:mariadb) first.\n'
  );
  process.exit(1);
}
const merged = Object.fromEntries(
  Object.entries({ ...durations, ...measured })
    .filter(([key]) => fs.existsSync(path.join(TEST_DIR, key)))
    .sort(([a], [b]) => (a < b ? -1 : 1))
);
fs.writeFileSync(DURATIONS, `${JSON.stringify(merged, null, 2)}\n`);
process.stdout.write(`test/durations.json: ${Object.keys(merged).length} files\n`);
