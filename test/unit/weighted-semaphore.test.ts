import { createWeightedSemaphore, WaitAborted } from '../../server/src/utils/weighted-semaphore';

/** Work that runs until the test finishes it, recording when it started. */
function controllable(log: string[], name: string) {
  let finish!: (failure?: Error) => void;
  const work = () =>
    new Promise<string>((resolve, reject) => {
      log.push(`start ${name}`);
      finish = (failure) => (failure ? reject(failure) : resolve(name));
    });
  return { work, finish: (failure?: Error) => finish(failure) };
}

/** A semaphore of capacity 10, and controllable work of each name, all logging to one list. */
function scenario(...names: string[]) {
  const log: string[] = [];
  const works = names.map((name) => controllable(log, name));
  return { semaphore: createWeightedSemaphore(() => 10), log, works };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createWeightedSemaphore', () => {
  it('runs work together while the weights fit the capacity and holds the rest until some finishes', async () => {
    const { semaphore, log, works } = scenario('a', 'b', 'c');
    const [a, b, c] = works;

    const results = [semaphore.run(4, a.work), semaphore.run(6, b.work), semaphore.run(1, c.work)];
    await settle();
    expect(log).toEqual(['start a', 'start b']);

    a.finish();
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    b.finish();
    c.finish();
    await expect(Promise.all(results)).resolves.toEqual(['a', 'b', 'c']);
  });

  it('starts waiters in the order they came: a light one does not overtake a heavy one', async () => {
    const { semaphore, log, works } = scenario('first', 'heavy', 'light');
    const [first, heavy, light] = works;

    const results = [
      semaphore.run(5, first.work),
      semaphore.run(8, heavy.work),
      semaphore.run(1, light.work),
    ];
    await settle();
    // The light one would fit beside the first, but the heavy one came before it.
    expect(log).toEqual(['start first']);

    first.finish();
    await settle();
    expect(log).toEqual(['start first', 'start heavy', 'start light']);
    heavy.finish();
    light.finish();
    await Promise.all(results);
  });

  it('gives the weight back when the work fails', async () => {
    const { semaphore, log, works } = scenario('failing', 'next');
    const [failing, next] = works;

    const failed = semaphore.run(10, failing.work);
    const after = semaphore.run(10, next.work);
    await settle();
    failing.finish(new Error('decoder crashed'));
    await expect(failed).rejects.toThrow('decoder crashed');
    await settle();

    expect(log).toEqual(['start failing', 'start next']);
    next.finish();
    await expect(after).resolves.toBe('next');
  });

  it('runs work heavier than the whole capacity alone, once nothing else runs', async () => {
    const { semaphore, log, works } = scenario('small', 'huge', 'later');
    const [small, huge, later] = works;

    const results = [
      semaphore.run(2, small.work),
      semaphore.run(50, huge.work),
      semaphore.run(1, later.work),
    ];
    await settle();
    expect(log).toEqual(['start small']);

    small.finish();
    await settle();
    expect(log).toEqual(['start small', 'start huge']);

    huge.finish();
    await settle();
    expect(log).toEqual(['start small', 'start huge', 'start later']);
    later.finish();
    await expect(Promise.all(results)).resolves.toEqual(['small', 'huge', 'later']);
  });
  it('lets a waiter whose signal aborts leave the line without running, and starts those behind it that now fit', async () => {
    const { semaphore, log, works } = scenario('first', 'heavy', 'behind');
    const [first, heavy, behind] = works;
    const controller = new AbortController();

    const running = semaphore.run(6, first.work);
    const waiting = semaphore.run(8, heavy.work, controller.signal);
    const queued = semaphore.run(2, behind.work);
    await settle();
    expect(log).toEqual(['start first']);

    controller.abort();
    await expect(waiting).rejects.toBeInstanceOf(WaitAborted);
    await settle();
    expect(log).toEqual(['start first', 'start behind']);
    first.finish();
    behind.finish();
    await expect(Promise.all([running, queued])).resolves.toEqual(['first', 'behind']);
  });
});
