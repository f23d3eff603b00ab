import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { connectDatabaseFaults, testDatabaseClient } from '../helpers/databases';
import { rowsOf, storageOf } from '../helpers/inspect';
import { exactPathRequest as rawRequest } from '../helpers/raw-http';
import { signedHeaders } from '../helpers/signing';
import { PREFIX, type Site } from '../helpers/site';
import { startSiteWithImages } from '../helpers/site-with-images';
import type { ImageServer } from '../helpers/image-server';

/**
 * A write answered with a 5xx may run again as the same request (same signature, method, path),
 * the moment its answer arrived: the publisher retries failed deliveries as they were signed.
 * Posts with images are the hard case: their imports commit the receipt in transactions of
 * their own, several at once, so the receipt outlives the failed write.
 */
let site: Site;
let images: ImageServer;
let stopSite: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ site, images, stop: stopSite } = await startSiteWithImages({ PUBLISH_BRIDGE_CONTENT_TYPES: 'site' }));
});
afterAll(() => stopSite?.());

/** Sends the signed request while a lifecycle of the site refuses to create posts: a 500. */
async function sendWhileTheSiteRefuses(body: string, headers: Record<string, string>) {
  const unsubscribe = site.strapi.db.lifecycles.subscribe({
    models: [storageOf(site.strapi, 'post').uid],
    beforeCreate: () => {
      throw new Error('refused by a lifecycle of the site');
    },
  });
  try {
    return await rawRequest(site.baseUrl, 'POST', `${PREFIX}/posts`, body, headers);
  } finally {
    (unsubscribe as unknown as () => void)();
  }
}

const postsTitled = async (title: string) =>
  (await rowsOf(site.strapi, storageOf(site.strapi, 'post').uid)).filter((row) => row.title === title);

/** A post with a cover and four inline images, each image new to the site. */
function postWithImages(title: string) {
  const run = randomBytes(4).toString('hex');
  const inline = [0, 1, 2, 3]
    .map(
      (index) => `<p>Part ${index}</p><img src="${images.url(`/images/retried-${run}-${index}.png`)}" alt="">`
    )
    .join('');
  return JSON.stringify({
    title,
    content: inline,
    status: 'draft',
    featured_image: images.url(`/images/retried-${run}-cover.png`),
  });
}

describe.each([
  ['at once', 0],
  ['a moment later', 300],
])('a post with images refused once with a 5xx, sent again %s', (_when, waitMs) => {
  it('runs, and its replay gets that answer', async () => {
    const title = `Retried ${randomBytes(4).toString('hex')}`;
    const body = postWithImages(title);
    const headers = signedHeaders(body);

    const failed = await sendWhileTheSiteRefuses(body, headers);
    expect(failed.status).toBe(500);
    await sleep(waitMs);
    const retried = await rawRequest(site.baseUrl, 'POST', `${PREFIX}/posts`, body, headers);
    expect(retried).toMatchObject({ status: 200, body: { id: expect.any(String) } });
    const spy = jest.spyOn(site.strapi.log, 'error');
    const replayed = await rawRequest(site.baseUrl, 'POST', `${PREFIX}/posts`, body, headers);
    const errorsLogged = spy.mock.calls.map((call) => String(call[0]));
    spy.mockRestore();
    expect(replayed).toMatchObject({ status: 200, body: retried.body });
    // The replay ran nothing, its imports included, and so reported no failed import.
    expect(errorsLogged).toEqual([]);
    expect(await postsTitled(title)).toHaveLength(1);
  });
});

describe('an exact replay sent while the first request is still downloading its images', () => {
  it('downloads nothing: it waits for the first answer and gets it', async () => {
    const title = `Replayed mid-download ${randomBytes(4).toString('hex')}`;
    const slow = `/delayed/replayed-${randomBytes(4).toString('hex')}.png`;
    const body = JSON.stringify({
      title,
      content: `<p>Slow image</p><img src="${images.url(`${slow}?ms=600`)}" alt="">`,
      status: 'draft',
    });
    const headers = signedHeaders(body);
    const first = rawRequest(site.baseUrl, 'POST', `${PREFIX}/posts`, body, headers);
    await sleep(200);
    const replayed = await rawRequest(site.baseUrl, 'POST', `${PREFIX}/posts`, body, headers);
    expect(replayed.status).toBe(200);
    expect(replayed.body).toEqual((await first).body);
    expect(images.hits(slow)).toBe(1);
    expect(await postsTitled(title)).toHaveLength(1);
  });
});

// An in-process site connects as the database's owner; MariaDB refuses connections by locking a
// user of the site's own (see faults.test.ts), which this site does not use.
const onPostgres = testDatabaseClient() === 'postgres' ? describe : describe.skip;

onPostgres(
  'a post with images whose write the database went away under (PostgreSQL only: MariaDB refuses connections per user)',
  () => {
    it('answers 503, and runs when sent again once the database is back', async () => {
      const faults = await connectDatabaseFaults(site.database);
      try {
        const title = `Database away ${randomBytes(4).toString('hex')}`;
        const body = postWithImages(title);
        const headers = signedHeaders(body);
        // The images are imported (their transactions commit the receipt); then, as the post is
        // created, the database goes away and stays away past the write's own retries.
        let armed = true;
        const unsubscribe = site.strapi.db.lifecycles.subscribe({
          models: [storageOf(site.strapi, 'post').uid],
          beforeCreate: async () => {
            if (!armed) return;
            armed = false;
            await faults.refuseConnections();
            await faults.killAll();
          },
        });
        let failed;
        try {
          failed = await rawRequest(site.baseUrl, 'POST', `${PREFIX}/posts`, body, headers);
        } finally {
          (unsubscribe as unknown as () => void)();
          await faults.allowConnections();
        }
        expect(failed.status).toBe(503);

        const retried = await rawRequest(site.baseUrl, 'POST', `${PREFIX}/posts`, body, headers);
        expect(retried).toMatchObject({ status: 200, body: { id: expect.any(String) } });
        expect(await postsTitled(title)).toHaveLength(1);
      } finally {
        await faults.allowConnections();
        await faults.end();
      }
    }, 120_000);
  }
);
