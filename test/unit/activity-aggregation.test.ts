import {
  createRefusalTally,
  MINUTE_MS,
  type Refusal,
  type RefusalAggregate,
} from '../../server/src/services/delivery/activity-aggregation';

const MINUTE = Date.UTC(2026, 0, 1, 14, 2) / MINUTE_MS;
const at = (minute: number, second: number) => new Date(minute * MINUTE_MS + second * 1000);

const refusal = (overrides: Partial<Refusal> = {}): Refusal => ({
  at: at(MINUTE, 5),
  reason: 'wrong_key',
  sourceAddress: '203.0.113.7',
  method: 'POST',
  path: '/api/publish-bridge/posts',
  status: 401,
  message: 'The X-API-Key does not match.',
  ...overrides,
});

const total = (aggregates: RefusalAggregate[]) => aggregates.reduce((sum, { count }) => sum + count, 0);
const summary = (aggregates: RefusalAggregate[]) =>
  aggregates
    .map(({ minute, reason, sourceAddress, count }) => [minute - MINUTE, reason, sourceAddress, count])
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

describe('refusal tally', () => {
  test('counts refusals per minute, reason and source address, keeping the first as a sample', () => {
    const tally = createRefusalTally();
    tally.add(refusal({ at: at(MINUTE, 5), method: 'GET', path: '/api/publish-bridge/pages' }));
    tally.add(refusal({ at: at(MINUTE, 50), method: 'DELETE', path: '/api/publish-bridge/posts/x' }));
    tally.add(refusal({ at: at(MINUTE, 20), reason: 'missing_header' }));
    tally.add(refusal({ at: at(MINUTE, 30), sourceAddress: '198.51.100.1' }));
    tally.add(refusal({ at: at(MINUTE + 1, 0) }));

    const taken = tally.take();
    expect(summary(taken)).toEqual([
      [0, 'missing_header', '203.0.113.7', 1],
      [0, 'wrong_key', '198.51.100.1', 1],
      [0, 'wrong_key', '203.0.113.7', 2],
      [1, 'wrong_key', '203.0.113.7', 1],
    ]);
    const twice = taken.find((aggregate) => aggregate.count === 2)!;
    expect(twice).toMatchObject({
      firstAt: at(MINUTE, 5),
      lastAt: at(MINUTE, 50),
      method: 'GET',
      path: '/api/publish-bridge/pages',
      status: 401,
      message: 'The X-API-Key does not match.',
    });
  });

  test('hands out only the minutes that have ended, unless forced', () => {
    const tally = createRefusalTally();
    tally.add(refusal({ at: at(MINUTE, 59) }));
    tally.add(refusal({ at: at(MINUTE + 1, 1) }));
    expect(tally.nextMinuteEnd()).toEqual(at(MINUTE + 1, 0));

    expect(tally.take(at(MINUTE, 59.9))).toEqual([]);
    expect(summary(tally.take(at(MINUTE + 1, 30)))).toEqual([[0, 'wrong_key', '203.0.113.7', 1]]);
    expect(tally.nextMinuteEnd()).toEqual(at(MINUTE + 2, 0));
    expect(summary(tally.take())).toEqual([[1, 'wrong_key', '203.0.113.7', 1]]);
    expect(tally.nextMinuteEnd()).toBeUndefined();
  });

  test('a forced take in mid-minute loses no count: later refusals of that minute start a new aggregate', () => {
    const tally = createRefusalTally();
    for (let i = 0; i < 3; i += 1) tally.add(refusal());
    const early = tally.take();
    for (let i = 0; i < 4; i += 1) tally.add(refusal({ at: at(MINUTE, 40) }));
    const late = tally.take(at(MINUTE + 1, 1));
    expect([early.map((a) => a.count), late.map((a) => a.count)]).toEqual([[3], [4]]);
  });

  test('past the cap of addresses in a minute, further addresses fold into one aggregate per reason', () => {
    const tally = createRefusalTally({ maxAddressesPerMinute: 3 });
    const addresses = Array.from({ length: 50 }, (_, i) => `10.0.${i >> 8}.${i & 255}`);
    for (const sourceAddress of addresses) {
      tally.add(refusal({ sourceAddress }));
      tally.add(refusal({ sourceAddress, reason: 'stale_timestamp' }));
    }
    // An address that has its own aggregate keeps counting there after the cap.
    tally.add(refusal({ sourceAddress: addresses[0] }));
    // The next minute opens addresses afresh.
    tally.add(refusal({ sourceAddress: addresses[49], at: at(MINUTE + 1, 0) }));

    const taken = tally.take();
    expect(summary(taken)).toEqual([
      [0, 'stale_timestamp', '10.0.0.0', 1],
      [0, 'stale_timestamp', null, 49],
      [0, 'wrong_key', '10.0.0.0', 2],
      [0, 'wrong_key', '10.0.0.1', 1],
      [0, 'wrong_key', null, 48],
      [1, 'wrong_key', '10.0.0.49', 1],
    ]);
    expect(total(taken)).toBe(102);
  });

  test('random addresses cannot make more aggregates per minute than the cap plus one per reason', () => {
    const tally = createRefusalTally();
    const reasons = ['missing_header', 'wrong_key', 'stale_timestamp', 'signature_mismatch'];
    for (let i = 0; i < 20_000; i += 1) {
      const sourceAddress = `${i % 223}.${(i * 7) % 256}.${(i * 13) % 256}.${i % 256}`;
      tally.add(refusal({ sourceAddress, reason: reasons[i % reasons.length], at: at(MINUTE, i % 60) }));
    }
    const taken = tally.take();
    expect(taken.length).toBeLessThanOrEqual(100 + reasons.length);
    expect(total(taken)).toBe(20_000);
    for (const reason of reasons) {
      expect(total(taken.filter((aggregate) => aggregate.reason === reason))).toBe(5_000);
    }
  });

  test('keeps minutes apart by the time of the refusal, not by when it is added', () => {
    const tally = createRefusalTally();
    tally.add(refusal({ at: at(MINUTE + 1, 0) }));
    tally.add(refusal({ at: at(MINUTE, 59.999) }));
    expect(summary(tally.take())).toEqual([
      [0, 'wrong_key', '203.0.113.7', 1],
      [1, 'wrong_key', '203.0.113.7', 1],
    ]);
  });
});
