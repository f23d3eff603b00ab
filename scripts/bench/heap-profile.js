/**
 * Preloaded into the bench's server with `npm run bench -- --heap-prof DIR`: from the first request
 * on, V8's sampling heap profiler and a count of garbage collections, both written to DIR when the
 * server stops (SIGTERM), as `<pid>.heapprofile` and `<pid>.gc.json` (the profile's kind and the counts).
 *
 * Node's own `--heap-prof` reports what is still alive when the process ends, which says nothing of a
 * request's cost. The profiler keeps, here, the samples of objects the collections freed:
 * PB_BENCH_HEAP_PROFILE_KIND `allocated` keeps them all (every byte a request allocates), `survivors`
 * only those a young-generation collection did not free (what a scavenge copies and promotes, the
 * part of the garbage collector's time that grows with what a request keeps alive across its awaits).
 */
'use strict';

const diagnosticsChannel = require('node:diagnostics_channel');
const fs = require('node:fs');
const { Session } = require('node:inspector');
const path = require('node:path');
const { PerformanceObserver, constants } = require('node:perf_hooks');

const directory = process.env.PB_BENCH_HEAP_PROFILE_DIR;
const kind = process.env.PB_BENCH_HEAP_PROFILE_KIND === 'survivors' ? 'survivors' : 'allocated';

/** Bytes between two samples: V8's default, a few per cent of CPU at the bench's load. */
const SAMPLING_INTERVAL = 8 * 1024;

const GC_KINDS = new Map([
  [constants.NODE_PERFORMANCE_GC_MINOR, 'young generation (scavenge)'],
  [constants.NODE_PERFORMANCE_GC_MAJOR, 'full (mark-compact)'],
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL, 'incremental marking'],
  [constants.NODE_PERFORMANCE_GC_WEAKCB, 'weak callbacks'],
]);

if (directory) {
  const session = new Session();
  session.connect();
  /** @type {Record<string, { count: number; ms: number }>} */
  const collections = {};
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const collection =
        GC_KINDS.get(/** @type {{ detail?: { kind?: number } }} */ (entry).detail?.kind ?? -1) ?? 'other';
      const total = (collections[collection] ??= { count: 0, ms: 0 });
      total.count += 1;
      total.ms += entry.duration;
    }
  });
  let started = false;
  /** Boot allocates more than a whole run of requests: the profile starts with the first one. */
  const start = () => {
    if (started) return;
    started = true;
    diagnosticsChannel.unsubscribe('http.server.request.start', start);
    session.post('HeapProfiler.startSampling', {
      samplingInterval: SAMPLING_INTERVAL,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: kind === 'allocated',
    });
    observer.observe({ entryTypes: ['gc'] });
  };
  diagnosticsChannel.subscribe('http.server.request.start', start);
  // Before Strapi's own listener, which ends the process. An in-process session answers at once.
  process.prependListener('SIGTERM', () => {
    if (!started) return;
    started = false;
    observer.disconnect();
    session.post('HeapProfiler.stopSampling', (error, result) => {
      if (error) return;
      const file = path.join(directory, String(process.pid));
      fs.writeFileSync(`${file}.heapprofile`, JSON.stringify(result.profile));
      fs.writeFileSync(`${file}.gc.json`, JSON.stringify({ kind, collections }));
    });
  });
}
