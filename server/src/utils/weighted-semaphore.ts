/**
 * Runs work that each weighs something (pixels being decoded) so that the work running at once
 * weighs at most `capacity()`, read at every turn so a changed config takes effect. Waiters start
 * in the order they came: a heavy one is never overtaken forever by light ones. Work heavier than
 * the whole capacity runs alone once nothing else runs, so no weight waits forever. A waiter whose
 * `signal` aborts first leaves the line without running, and is told so by a `WaitAborted`.
 */
export class WaitAborted extends Error {
  constructor() {
    super('the wait for the semaphore was aborted');
    this.name = 'WaitAborted';
  }
}

// Over 50 lines: acquire, release and run, each short, share the running weight and the waiting line.
export function createWeightedSemaphore(capacity: () => number) {
  let running = 0;
  let runningWeight = 0;
  type Waiter = { weight: number; start: () => void };
  const waiting: Waiter[] = [];

  const fits = (weight: number) => running === 0 || runningWeight + weight <= capacity();

  function startWaiters() {
    while (waiting.length > 0 && fits(waiting[0].weight)) waiting.shift()!.start();
  }

  function acquire(weight: number, signal?: AbortSignal): Promise<void> {
    const start = () => {
      running += 1;
      runningWeight += weight;
    };
    if (waiting.length === 0 && fits(weight)) {
      start();
      return Promise.resolve();
    }
    return new Promise((resolve, reject) => {
      const leave = () => {
        waiting.splice(waiting.indexOf(waiter), 1);
        // Those behind it may fit now.
        startWaiters();
        reject(new WaitAborted());
      };
      const waiter: Waiter = {
        weight,
        start: () => {
          signal?.removeEventListener('abort', leave);
          start();
          resolve();
        },
      };
      if (signal?.aborted) return reject(new WaitAborted());
      signal?.addEventListener('abort', leave, { once: true });
      waiting.push(waiter);
    });
  }

  function release(weight: number) {
    running -= 1;
    runningWeight -= weight;
    startWaiters();
  }

  return {
    /** Runs `work` once its weight fits; rejects with a WaitAborted if `signal` aborts before. */
    async run<T>(weight: number, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      await acquire(weight, signal);
      try {
        return await work();
      } finally {
        release(weight);
      }
    },
  };
}
