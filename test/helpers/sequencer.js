'use strict';

/**
 * Jest's order of the test files: the longest first, so that no worker still runs a long file
 * when the others have run out. Jest orders by the durations it cached in an earlier run in the
 * same directory, and by file size without them, as in every fresh clone (CI): then a short
 * file of real restarts (disable.test.ts, 40 s alone, 168 to 199 s beside CI's other steps)
 * started last, while the other worker sat idle. Without a cached duration, a file is placed by
 * the one in test/durations.json (`npm run test:durations` writes it from a run's results).
 */
const path = require('node:path');
const TestSequencer = require('@jest/test-sequencer').default;
const DURATIONS = require('../durations.json');

const TEST_DIR = path.resolve(__dirname, '..');

class LongestFirst extends TestSequencer {
  /** @param {import('@jest/test-result').Test} test */
  time(test) {
    const measured = DURATIONS[path.relative(TEST_DIR, test.path).split(path.sep).join('/')];
    return super.time(test) ?? (measured === undefined ? undefined : measured * 1_000);
  }
}

module.exports = LongestFirst;
