import { randomBytes } from 'node:crypto';
import { createTestDatabase, testDatabaseClient, type TestDatabase } from '../helpers/databases';
import { startInstance, type Instance } from '../helpers/instances';
import { signedHeaders, TEST_KEY } from '../helpers/signing';
import { PREFIX } from '../helpers/site';

/**
 * The server's own log, read as an operator reads it: the site runs in a process of its own at
 * the most talkative level, and everything it prints is searched for the key, the signatures it
 * was sent and the bodies' content.
 */
describe(`the server log on ${testDatabaseClient()}`, () => {
  const marker = `body-marker-${randomBytes(8).toString('hex')}`;
  const signatures: string[] = [];
  let database: TestDatabase;
  let instance: Instance;
  let log: string;

  /** Sends `body` with the publisher's headers, keeping the signature it carried. */
  async function send(
    method: string,
    route: string,
    body: string,
    options?: Parameters<typeof signedHeaders>[1]
  ) {
    const headers = signedHeaders(body, options);
    signatures.push(headers['X-Publisher-Signature']);
    const response = await fetch(`${instance.baseUrl}${PREFIX}${route}`, {
      method,
      headers: { ...headers, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body || undefined,
    });
    return { status: response.status, body: await response.json() };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    instance = await startInstance({
      ...database.env,
      PUBLISH_BRIDGE_CONTENT_TYPES: 'plugin',
      STRAPI_LOG_LEVEL: 'debug',
    });
    const post = JSON.stringify({
      title: marker,
      content: `<p>${marker}</p>`,
      status: 'publish',
      tags: [marker],
    });
    const replies = [
      await send('POST', '/handshake', '{}'),
      await send('POST', '/posts', post),
      await send('POST', '/posts', post, { timestamp: Date.now() - 1 }),
      await send('GET', '/pages?per_page=5', ''),
      await send('POST', '/posts', post, { key: `${TEST_KEY}-wrong` }),
      await send('POST', '/posts', post, { timestamp: Date.now() - 3_600_000 }),
      await send('PUT', '/posts/not-a-post', JSON.stringify({ title: marker, status: 'publish' })),
      await send('POST', '/posts', JSON.stringify({ title: marker, status: 'sideways' })),
    ];
    // A wrong signature with the right key: the HMAC is computed and compared.
    const forged = signedHeaders(post);
    forged['X-Publisher-Signature'] = signedHeaders(`${post} `)['X-Publisher-Signature'];
    signatures.push(forged['X-Publisher-Signature']);
    const refused = await fetch(`${instance.baseUrl}${PREFIX}/posts`, {
      method: 'POST',
      headers: { ...forged, 'Content-Type': 'application/json' },
      body: post,
    });
    expect([...replies.map((reply) => reply.status), refused.status]).toEqual([
      200, 200, 200, 200, 401, 401, 404, 400, 401,
    ]);
    await instance.stop();
    log = instance.output();
  });

  afterAll(async () => {
    await instance?.stop();
    await database?.drop();
  });

  it('was captured at debug level: it shows the requests it served', () => {
    expect(log).toContain(`${PREFIX}/posts`);
  });

  it('never contains the connection key', () => {
    expect(log.includes(TEST_KEY)).toBe(false);
  });

  it('never contains a signature it was sent, valid or not', () => {
    expect(signatures.filter((signature) => log.includes(signature))).toEqual([]);
  });

  it("never contains a body's content", () => {
    expect(log.includes(marker)).toBe(false);
  });
});
