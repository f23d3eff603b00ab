import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startSite, type Site } from '../helpers/site';

/**
 * A transaction holds one pooled connection for its whole run, so nothing it does may wait for
 * a second one: when a burst of requests holds every connection, that wait lasts until the
 * pool's acquire timeout. A pool of one connection makes any such wait certain. The first
 * publish after boot is where MariaDB's isolation check ran on the pool: with two instances,
 * the first burst of 50 publishes answered 500 after 60 s.
 */
const POOL_SIZE = 1;

describe('publishes on a pool of one connection, from the first request after boot', () => {
  let site: Site;
  beforeAll(async () => {
    site = await startSite({
      DATABASE_POOL_MIN: '0',
      DATABASE_POOL_MAX: String(POOL_SIZE),
      // Short, so that a transaction waiting for a second connection fails the test quickly.
      DATABASE_CONNECTION_TIMEOUT: '10000',
    });
  });
  afterAll(async () => {
    // Kept answers, the activity log and Strapi's document events are written after the
    // replies, one at a time on this pool; stopping first would abort those still waiting.
    const pool = (site?.strapi.db.connection as any)?.client.pool;
    while (pool && pool.numUsed() + pool.numPendingAcquires() > 0) await sleep(50);
    await site?.stop();
  });

  test(`${POOL_SIZE * 4} parallel publishes all succeed`, async () => {
    const run = randomBytes(4).toString('hex');
    const replies = await Promise.all(
      Array.from({ length: POOL_SIZE * 4 }, (_, index) =>
        site.send('POST', '/posts', {
          title: `Small pool ${run} ${index}`,
          content: '<p>x</p>',
          status: 'publish',
          source_id: `small-pool-${run}-${index}`,
        })
      )
    );
    expect(replies.map((reply) => [reply.status, reply.status === 200 ? 'ok' : reply.body])).toEqual(
      replies.map(() => [200, 'ok'])
    );
  });
});
