/**
 * Preloaded into the bench's server (node --expose-gc --require ...): SIGUSR2 runs full garbage
 * collections and writes process.memoryUsage() to PB_BENCH_MEMORY_FILE, so the memory scenario
 * reads what the server retains, not garbage V8 has not collected yet.
 */
'use strict';

const fs = require('node:fs');

process.on('SIGUSR2', () => {
  // A second pass frees what the first one only finalised.
  global.gc?.();
  global.gc?.();
  const { rss: rssWithFreePages } = process.memoryUsage();
  // A plain collection leaves mapped the pages it emptied: V8 keeps them for the heap to grow into
  // again, so the RSS above holds the heap's highest point since the last such collection, which
  // differs from run to run by hundreds of MB (docs/performance.md, "Memory outside the heap").
  // The collection V8 runs when the system is short of memory gives them back: the RSS after it
  // is what the server holds.
  global.gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  if (process.env.PB_BENCH_MEMORY_FILE) {
    fs.writeFileSync(
      process.env.PB_BENCH_MEMORY_FILE,
      JSON.stringify({ ...process.memoryUsage(), rssWithFreePages })
    );
  }
});
