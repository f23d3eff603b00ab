/**
 * How many times `run` costs what `baseline` costs: the fastest of a few runs of each, taken in
 * turn, so that a pause of the machine (another process, a garbage collection) hits both alike
 * and does not count. For bounding how a cost grows with its input (a ratio in one run), never
 * against a constant.
 */
export function costRatio(run: () => unknown, baseline: () => unknown, attempts = 5): number {
  let fastestRun = Infinity;
  let fastestBaseline = Infinity;
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    fastestRun = Math.min(fastestRun, elapsedMs(run));
    fastestBaseline = Math.min(fastestBaseline, elapsedMs(baseline));
  }
  return fastestRun / fastestBaseline;
}

function elapsedMs(run: () => unknown): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** A flat document of about `length` characters, the cost a body of that size should have. */
export const flatDocumentOf = (length: number): string => '<p>y</p>'.repeat(Math.ceil(length / 8));

/** A database operation's lifecycle event, as Strapi hands it to a subscriber. */
export type OperationEvent = { action: string; model: { uid: string } };

/**
 * Makes each database operation of `strapi` take `ms` of its thread first, as a site's own slow
 * lifecycle hooks do, then calls `onEach`; answers the unsubscribe.
 */
export function slowOperations(
  strapi: { db: { lifecycles: { subscribe(subscriber: unknown): () => void } } },
  onEach: (event: OperationEvent) => void = () => {},
  ms = 10
): () => void {
  return strapi.db.lifecycles.subscribe((event: OperationEvent) => {
    if (!event.action.startsWith('before')) return;
    const until = performance.now() + ms;
    while (performance.now() < until);
    onEach(event);
  });
}
