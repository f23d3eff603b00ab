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
  if (process.env.PB_BENCH_MEMORY_FILE) {
    fs.writeFileSync(process.env.PB_BENCH_MEMORY_FILE, JSON.stringify(process.memoryUsage()));
  }
});
