import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { PREFIX, useSite } from '../helpers/site';
import { testDatabaseClient } from '../helpers/databases';
import { connectionsInUse, rowsOf, storageOf } from '../helpers/inspect';
import { openRaw, requestHead, type RawConnection } from '../helpers/raw-http';
import { signedHeaders } from '../helpers/signing';
import { recordTally, serverErrorsIn } from '../helpers/tally';

/**
 * Clients that send slowly, stop halfway or lie about the body's size are cut off with an
 * `{ error }` answer, and none of them holds a database connection while the site waits.
 */
const db = testDatabaseClient();
const BODY_TIMEOUT_MS = 2500;
/** A small pool, so that slow clients holding connections would starve everyone else. */
const POOL_MAX = 2;
const SLOW_CLIENTS = 6;

const opened: RawConnection[] = [];

const site = useSite({
  PUBLISH_BRIDGE_BODY_TIMEOUT_MS: String(BODY_TIMEOUT_MS),
  DATABASE_POOL_MIN: '1',
  DATABASE_POOL_MAX: String(POOL_MAX),
});
afterEach(() => {
  for (const connection of opened.splice(0)) connection.destroy();
});

const unique = () => randomBytes(4).toString('hex');

/** A valid signed publish, as the bytes of its head and body. */
function signedPublish(overrides: { contentLength?: number; sourceId?: string } = {}) {
  const body = Buffer.from(
    JSON.stringify({
      title: `Slow ${unique()}`,
      content: `<p>${'slow body '.repeat(30)}</p>`,
      status: 'publish',
      source_id: overrides.sourceId ?? `slow-${unique()}`,
    })
  );
  const head = requestHead('POST', `${PREFIX}/posts`, {
    'Content-Type': 'application/json',
    'Content-Length': overrides.contentLength ?? body.length,
    ...signedHeaders(body),
  });
  return { head, body };
}

async function connect() {
  const connection = await openRaw(site.baseUrl);
  opened.push(connection);
  return connection;
}

/**
 * The fewest connections in use seen over `ms`: slow clients holding connections would hold them
 * throughout, while a background write (the activity log's batch) holds one for a moment.
 */
async function fewestConnectionsInUse(ms: number) {
  let fewest = connectionsInUse(site.strapi);
  for (const deadline = Date.now() + ms; Date.now() < deadline; ) {
    await sleep(20);
    fewest = Math.min(fewest, connectionsInUse(site.strapi));
  }
  return fewest;
}

async function postsWithSourceId(sourceId: string) {
  const post = storageOf(site.strapi, 'post');
  return (await rowsOf(site.strapi, post.uid)).filter((row) => row[post.attribute('source_id')] === sourceId);
}

describe(`slow and hostile clients on ${db}`, () => {
  test('the example site takes its body timeout from PUBLISH_BRIDGE_BODY_TIMEOUT_MS', () => {
    // Without it these tests would wait for the default 30 s; example/config/plugins.js must read the variable.
    expect(site.strapi.config.get('plugin::publish-bridge.bodyTimeoutMs')).toBe(BODY_TIMEOUT_MS);
  });

  test('a body trickled slower than the timeout is cut off with 408 and the connection closed', async () => {
    const sourceId = `trickle-${unique()}`;
    const { head, body } = signedPublish({ sourceId });
    const connection = await connect();
    await connection.write(head);
    // 300 bytes at one every 50 ms would take 15 s; the site stops waiting after BODY_TIMEOUT_MS.
    const trickling = connection.trickle(body, 50);

    const reply = await connection.reply;
    await trickling;
    expect(reply.status).toBe(408);
    expect(reply.body).toEqual({ error: expect.stringMatching(/did not arrive within/) });
    expect(await connection.closedWithin(5000)).toBe(true);
    expect(await postsWithSourceId(sourceId)).toEqual([]);
    recordTally({ test: 'slow client: trickled body', requests: 1, serverErrors: serverErrorsIn([reply]) });
  });

  test('a Content-Length larger than the body is refused: 408 while the client waits, 400 if it hangs up', async () => {
    const sourceId = `short-${unique()}`;
    const { head, body } = signedPublish({ sourceId, contentLength: 5000 });

    const waiting = await connect();
    await waiting.write(Buffer.concat([Buffer.from(head), body]));
    const timedOut = await waiting.reply;
    expect(timedOut.status).toBe(408);
    expect(timedOut.body).toEqual({ error: expect.any(String) });

    const hangingUp = await connect();
    await hangingUp.write(Buffer.concat([Buffer.from(head), body]));
    hangingUp.socket.end();
    // Node's HTTP parser answers a body cut short by end of stream itself, before the app can.
    const cutShort = await hangingUp.reply;
    expect(cutShort.status).toBe(400);

    expect(await postsWithSourceId(sourceId)).toEqual([]);
    recordTally({
      test: 'Content-Length larger than the body',
      requests: 2,
      serverErrors: serverErrorsIn([timedOut, cutShort]),
    });
  });

  test('a Content-Length smaller than the body is refused: the signature covers the whole body', async () => {
    const sourceId = `long-${unique()}`;
    const declared = 40;
    const { head, body } = signedPublish({ sourceId, contentLength: declared });
    const connection = await connect();
    await connection.write(Buffer.concat([Buffer.from(head), body.subarray(0, declared)]));
    const reply = await connection.reply;
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ error: expect.stringMatching(/signature/i) });
    // The rest of the body then arrives as garbage where the next request should start.
    await connection.write(body.subarray(declared));
    expect(await connection.closedWithin(5000)).toBe(true);
    expect(await postsWithSourceId(sourceId)).toEqual([]);
    recordTally({
      test: 'Content-Length smaller than the body',
      requests: 1,
      serverErrors: serverErrorsIn([reply]),
    });
  });

  test('a Content-Length over the body limit is refused with 413 before any of the body is sent', async () => {
    const { head } = signedPublish({ contentLength: 11 * 1024 * 1024 });
    const connection = await connect();
    await connection.write(head);
    const reply = await connection.reply;
    expect(reply.status).toBe(413);
    expect(reply.body).toEqual({ error: expect.stringMatching(/larger than this site accepts/) });
    recordTally({
      test: 'Content-Length over the limit',
      requests: 1,
      serverErrors: serverErrorsIn([reply]),
    });
  });

  test(`${SLOW_CLIENTS} slow clients hold no database connection: a publish goes through while they wait`, async () => {
    // The site's first publish loads what publishing needs, which on a busy machine can outlast
    // the slow clients' timeout: the publish measured below is the second.
    const first = await site.send('POST', '/posts', {
      title: 'Published before slow clients come',
      content: '<p>x</p>',
      status: 'publish',
      source_id: `before-${unique()}`,
    });
    expect(first.status).toBe(200);
    // Settle whatever earlier requests left running (the activity log writes in batches).
    for (let tries = 0; connectionsInUse(site.strapi) > 0 && tries < 100; tries += 1) await sleep(50);

    const slow = await Promise.all(
      Array.from({ length: SLOW_CLIENTS }, async () => {
        const { head, body } = signedPublish();
        const connection = await connect();
        await connection.write(head);
        await connection.write(body.subarray(0, 10));
        return connection;
      })
    );
    const inUseWhileWaiting = await fewestConnectionsInUse(200);

    const sourceId = `meanwhile-${unique()}`;
    const reply = await site.send('POST', '/posts', {
      title: 'Published while slow clients wait',
      content: '<p>x</p>',
      status: 'publish',
      source_id: sourceId,
    });
    const slowAnsweredFirst = slow.filter((connection) => connection.answered()).length;

    expect(reply.status).toBe(200);
    expect(await postsWithSourceId(sourceId)).not.toEqual([]);
    // Had each slow client held one of the pool's POOL_MAX connections, the publish would have
    // waited for them to time out first.
    expect({ inUseWhileWaiting, slowAnsweredFirst }).toEqual({ inUseWhileWaiting: 0, slowAnsweredFirst: 0 });

    const replies = await Promise.all(slow.map((connection) => connection.reply));
    expect(replies.map((answer) => answer.status)).toEqual(Array(SLOW_CLIENTS).fill(408));
    recordTally({
      test: 'slow clients vs a small pool',
      requests: SLOW_CLIENTS + 2,
      serverErrors: serverErrorsIn([first, reply, ...replies]),
    });
  });
});
