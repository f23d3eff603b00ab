import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Why a task gave no answer: it ran past its time (or its request's), past the worker's memory,
 * the worker died, or the task waited too long for the worker.
 */
export type WorkerFailure = 'timeout' | 'memory' | 'crash' | 'busy';

export type WorkerOutcome<R> = { ok: true; value: R } | { ok: false; failure: WorkerFailure };

/** Worker time that several tasks share, e.g. the conversions of one request. */
export type TimeBudget = { remainingMs: number };

export type TimeBoxedWorkerOptions = {
  /** The worker's script: it answers each message it gets with one message. */
  filename: string;
  /** How long one task may run; read for each task, so a change of configuration applies to the next. */
  timeoutMs: () => number;
  /** How long a task may wait for the tasks before it; past that it fails as 'busy' without running. */
  maxWaitMs: () => number;
  resourceLimits?: ResourceLimits;
};

type Task<T, R> = {
  message: T;
  budget?: TimeBudget;
  queuedAt: number;
  settle: (outcome: WorkerOutcome<R>) => void;
};

/**
 * Runs CPU-bound tasks one at a time on a worker thread, each within a time limit. A task that
 * runs past it, or past the worker's memory, ends the worker (a thread's JavaScript cannot be
 * interrupted any other way) and gets a failure instead of an answer; the next task starts a new
 * worker. The event loop of the process stays free however long a task would have taken, and the
 * wait bound keeps one caller's slow tasks from holding up everyone else's for longer than that.
 */
// Over 50 lines: its steps, each short, share the queue, the worker and the running task.
export function timeBoxedWorker<T, R>({
  filename,
  timeoutMs,
  maxWaitMs,
  resourceLimits,
}: TimeBoxedWorkerOptions) {
  const queue: Task<T, R>[] = [];
  let worker: Worker | undefined;
  let running: (Task<T, R> & { timer: NodeJS.Timeout; startedAt: number }) | undefined;
  let stopped = false;

  function finish(outcome: WorkerOutcome<R>) {
    if (!running) return;
    clearTimeout(running.timer);
    const { settle, budget, startedAt } = running;
    running = undefined;
    if (budget) budget.remainingMs -= Date.now() - startedAt;
    settle(outcome);
    next();
  }

  function abandon(failure: WorkerFailure) {
    const failed = worker;
    worker = undefined;
    void failed?.terminate();
    finish({ ok: false, failure });
  }

  function started(): Worker {
    if (worker) return worker;
    const fresh = new Worker(filename, { resourceLimits });
    // An idle worker never keeps Strapi from exiting.
    fresh.unref();
    fresh.on('message', (value: R) => {
      if (worker === fresh) finish({ ok: true, value });
    });
    fresh.on('error', (error: NodeJS.ErrnoException) => {
      if (worker === fresh) abandon(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'memory' : 'crash');
    });
    fresh.on('exit', () => {
      if (worker === fresh) abandon('crash');
    });
    return (worker = fresh);
  }

  /** Starts the first task that may still run; those that waited too long or have no time left fail. */
  function next() {
    for (let task = queue.shift(); task; task = queue.shift()) {
      const allowedMs = Math.min(timeoutMs(), task.budget?.remainingMs ?? Infinity);
      if (Date.now() - task.queuedAt > maxWaitMs()) task.settle({ ok: false, failure: 'busy' });
      else if (allowedMs <= 0) task.settle({ ok: false, failure: 'timeout' });
      else {
        const timer = setTimeout(() => abandon('timeout'), allowedMs);
        running = { ...task, timer, startedAt: Date.now() };
        started().postMessage(task.message);
        return;
      }
    }
  }

  return {
    /** Runs `message` on the worker, charging its time to `budget` when given. */
    run(message: T, budget?: TimeBudget): Promise<WorkerOutcome<R>> {
      if (stopped) return Promise.resolve({ ok: false, failure: 'crash' });
      return new Promise((settle) => {
        queue.push({ message, budget, queuedAt: Date.now(), settle });
        if (!running) next();
      });
    },

    /** Ends the worker for good; the running task and those still waiting fail as if it had crashed. */
    async stop() {
      stopped = true;
      const stopping = worker;
      worker = undefined;
      for (const task of queue.splice(0)) task.settle({ ok: false, failure: 'crash' });
      finish({ ok: false, failure: 'crash' });
      await stopping?.terminate();
    },
  };
}
