import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { timeBoxedWorker } from '../../server/src/utils/time-boxed-worker';

/** A worker that echoes, spins, fills its heap or exits, as each message asks. */
const SCRIPT = `
const { parentPort, threadId } = require('node:worker_threads');
parentPort.on('message', (task) => {
  if (task.spin) for (;;);
  if (task.busyFor) for (const end = Date.now() + task.busyFor; Date.now() < end; );
  if (task.fill) { const kept = []; for (;;) kept.push(new Array(100000).fill(kept.length)); }
  if (task.exit) process.exit(3);
  parentPort.postMessage({ echo: task.echo, threadId });
});`;

let directory: string;
let filename: string;
beforeAll(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'time-boxed-worker-'));
  filename = path.join(directory, 'worker.js');
  fs.writeFileSync(filename, SCRIPT);
});
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

type Task = { echo?: number; spin?: true; busyFor?: number; fill?: true; exit?: true };
type Answer = { echo: number; threadId: number };
const workerWith = (timeoutMs: number, maxWaitMs = 60_000) =>
  timeBoxedWorker<Task, Answer>({
    filename,
    timeoutMs: () => timeoutMs,
    maxWaitMs: () => maxWaitMs,
    resourceLimits: { maxOldGenerationSizeMb: 32 },
  });

test('answers tasks in the order they were given, on one thread', async () => {
  const worker = workerWith(10_000);
  const outcomes = await Promise.all([1, 2, 3].map((echo) => worker.run({ echo })));
  await worker.stop();
  expect(outcomes.map((outcome) => outcome.ok && outcome.value.echo)).toEqual([1, 2, 3]);
  const threads = new Set(outcomes.map((outcome) => outcome.ok && outcome.value.threadId));
  expect(threads.size).toBe(1);
});

// Filling 32 MB, with the collector working ever harder, takes well over a second on a busy
// machine (CI runs this beside integration tests): that task's time box is wide enough that
// only its memory can end it.
test.each([
  ['runs past its time', { spin: true }, 'timeout', 1_000],
  ['fills the heap', { fill: true }, 'memory', 60_000],
  ['ends its thread', { exit: true }, 'crash', 1_000],
] as const)(
  'a task that %s fails, and the tasks after it are answered by a new thread',
  async (_, task, failure, timeoutMs) => {
    const worker = workerWith(timeoutMs);
    const before = await worker.run({ echo: 1 });
    const [failed, after] = await Promise.all([worker.run(task), worker.run({ echo: 2 })]);
    await worker.stop();
    expect(failed).toEqual({ ok: false, failure });
    expect(after).toMatchObject({ ok: true, value: { echo: 2 } });
    expect(before.ok && after.ok && after.value.threadId).not.toBe(before.ok && before.value.threadId);
  }
);

test('tasks sharing a budget get its time between them: once it is spent, the next fails without running', async () => {
  const worker = workerWith(10_000);
  const budget = { remainingMs: 1_000 };
  const first = await worker.run({ busyFor: 300, echo: 1 }, budget);
  const spent = 1_000 - budget.remainingMs;
  const [second, third] = await Promise.all([
    worker.run({ spin: true }, budget),
    worker.run({ echo: 3 }, budget),
  ]);
  const other = await worker.run({ echo: 4 });
  await worker.stop();
  expect(first).toMatchObject({ ok: true, value: { echo: 1 } });
  expect(spent).toBeGreaterThanOrEqual(300);
  expect(second).toEqual({ ok: false, failure: 'timeout' });
  expect(third).toEqual({ ok: false, failure: 'timeout' });
  expect(budget.remainingMs).toBeLessThanOrEqual(0);
  expect(other).toMatchObject({ ok: true, value: { echo: 4 } });
});

test('a task that waited longer than maxWaitMs for the ones before it fails as busy, and later tasks run', async () => {
  const worker = workerWith(1_000, 200);
  const [slow, waiting] = await Promise.all([worker.run({ spin: true }), worker.run({ echo: 1 })]);
  const later = await worker.run({ echo: 2 });
  await worker.stop();
  expect(slow).toEqual({ ok: false, failure: 'timeout' });
  expect(waiting).toEqual({ ok: false, failure: 'busy' });
  expect(later).toMatchObject({ ok: true, value: { echo: 2 } });
});

test('stop fails the running task and the waiting ones, and every later task', async () => {
  const worker = workerWith(60_000);
  const running = worker.run({ spin: true });
  const waiting = worker.run({ echo: 1 });
  await new Promise((resolve) => setTimeout(resolve, 50));
  await worker.stop();
  expect(await running).toEqual({ ok: false, failure: 'crash' });
  expect(await waiting).toEqual({ ok: false, failure: 'crash' });
  expect(await worker.run({ echo: 2 })).toEqual({ ok: false, failure: 'crash' });
});
