import net from 'node:net';
import { createTestDatabase, type TestDatabase } from '../helpers/databases';
import { startInstance, type Instance } from '../helpers/instances';
import { signedHeaders } from '../helpers/signing';
import { PREFIX } from '../helpers/site';

/**
 * Requests anyone can send before any key is checked, with request targets and headers that
 * Node's parser lets through but URL parsers refuse. The site runs in a process of its own, so
 * a request that ends the process is seen as a site that no longer answers.
 */
type Exchange = { finalStatus?: number; body: string; closedWithoutAnswer: boolean };

const ANSWER_WITHIN_MS = 5_000;

/** Sends the bytes as written and reads until the server closes (every request says `Connection: close`). */
function exchange(baseUrl: string, bytes: string): Promise<Exchange> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: hostname, port: Number(port) }, () => socket.write(bytes));
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms to ${JSON.stringify(bytes.slice(0, 80))}`));
    }, ANSWER_WITHIN_MS);
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => {
      // A connection reset after the answer is the server closing: 'close' follows.
    });
    socket.on('close', () => {
      clearTimeout(timer);
      // Interim 1xx answers (100 Continue) come before the final one.
      const statuses = [...received.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
      const finalStatus = statuses.filter((status) => status >= 200).pop();
      const body = received.slice(received.lastIndexOf('\r\n\r\n') + 4);
      resolve({ finalStatus, body, closedWithoutAnswer: finalStatus === undefined });
    });
  });
}

const BODY = JSON.stringify({ title: 'Through a crack', content: '<p>x</p>', status: 'publish' });

function head(method: string, target: string, headers: Record<string, string>, body: string) {
  const lines = Object.entries({
    Host: '127.0.0.1',
    Connection: 'close',
    ...(body
      ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)) }
      : {}),
    ...headers,
  })
    .filter(([, value]) => value !== '')
    .map(([name, value]) => `${name}: ${value}`);
  return [`${method} ${target} HTTP/1.1`, ...lines, '', ''].join('\r\n') + body;
}

/** Request targets Node accepts as they are; several make `new URL()` or `url.parse()` throw. */
const TARGETS: Array<[string, string, string]> = [
  ['absolute-form, port out of range', 'POST', 'http://x:99999/'],
  ['absolute-form, port out of range, plugin path', 'POST', `http://x:99999${PREFIX}/posts`],
  ['absolute-form, unclosed IPv6 bracket', 'POST', `http://[${PREFIX}/posts`],
  ['absolute-form, empty host', 'POST', `http://${PREFIX}/posts`],
  ['scheme-relative, port out of range', 'POST', `//x:99999${PREFIX}/posts`],
  ['asterisk-form', 'OPTIONS', '*'],
  ['asterisk-form with a write method', 'POST', '*'],
  ['authority-form with a plain method', 'GET', '127.0.0.1:1337'],
  ['a lone percent sign', 'POST', `${PREFIX}/posts/%`],
  ['a malformed escape', 'DELETE', `${PREFIX}/posts/%zz`],
  ['a NUL escape', 'DELETE', `${PREFIX}/%00`],
];

const HEADER_VARIANTS: Array<[string, Record<string, string>]> = [
  ['plain', {}],
  ['Expect: 100-continue', { Expect: '100-continue' }],
  ['an unknown expectation', { Expect: 'teapot' }],
];

const HOSTS: Array<[string, string]> = [
  ['an unclosed bracket', '['],
  ['a port out of range', 'x:99999'],
  ['a path in it', 'x/y'],
  ['spaces', 'a b'],
  ['none', ''],
];

describe('requests nobody can route, sent before any key is checked', () => {
  let database: TestDatabase;
  let site: Instance;
  let before: unknown;

  beforeAll(async () => {
    database = await createTestDatabase();
    site = await startInstance({ ...database.env, PUBLISH_BRIDGE_CONTENT_TYPES: 'plugin' });
    expect(
      (await site.send('POST', '/posts', { title: 'Kept', content: '<p>k</p>', status: 'publish' })).status
    ).toBe(200);
    before = await site.call('contentSnapshot');
  });
  afterAll(async () => {
    await site?.stop();
    await database?.drop();
  });

  /** Strapi's health route: the process is alive and serving. */
  async function expectSiteStillAnswers() {
    const health = await fetch(`${site.baseUrl}/_health`);
    expect(health.status).toBe(204);
  }

  /** A 4xx, or for a target nobody could route, a closed connection; never a 5xx or a hang. */
  function expectRefusedWithout5xx(answer: Exchange, label: string) {
    if (answer.closedWithoutAnswer) return;
    expect({ label, status: answer.finalStatus }).toEqual({ label, status: expect.any(Number) });
    expect({ label, status: answer.finalStatus! < 500 }).toEqual({ label, status: true });
  }

  describe.each(HEADER_VARIANTS)('with %s', (_variant, headers) => {
    it.each(TARGETS)('%s: answered below 500, the site still answers', async (label, method, target) => {
      for (const body of ['', BODY]) {
        const answer = await exchange(site.baseUrl, head(method, target, headers, body));
        expectRefusedWithout5xx(answer, `${label} ${body ? 'with' : 'without'} a body`);
        await expectSiteStillAnswers();
      }
    });
  });

  it.each(HOSTS)(
    'a Host header with %s: the plugin path gets { error } below 500, the site still answers',
    async (_label, host) => {
      for (const expect100 of [false, true]) {
        const headers = { Host: host, ...(expect100 ? { Expect: '100-continue' } : {}) };
        const answer = await exchange(site.baseUrl, head('POST', `${PREFIX}/posts`, headers, BODY));
        expectRefusedWithout5xx(answer, `Host ${JSON.stringify(host)}`);
        await expectSiteStillAnswers();
      }
    }
  );

  it('CONNECT: the connection is closed or refused, and the site still answers', async () => {
    for (const target of ['127.0.0.1:1337', `http://x:99999${PREFIX}/posts`, '[']) {
      const answer = await exchange(site.baseUrl, head('CONNECT', target, { Expect: '100-continue' }, ''));
      expectRefusedWithout5xx(answer, `CONNECT ${target}`);
      await expectSiteStillAnswers();
    }
  });

  it('an unreadable target under the plugin answers { error } naming what is wrong', async () => {
    const answer = await exchange(site.baseUrl, head('POST', `http://[${PREFIX}/posts`, {}, BODY));
    expect(answer.finalStatus).toBe(400);
    expect(JSON.parse(answer.body)).toEqual({ error: expect.stringMatching(/request target/i) });
  });

  it("the site's other paths still invite a body at once when asked Expect: 100-continue", async () => {
    const { hostname, port } = new URL(site.baseUrl);
    const socket = net.connect({ host: hostname, port: Number(port) });
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.write(head('POST', '/api/elsewhere', { Expect: '100-continue', 'Content-Length': '2' }, ''));
    for (let waited = 0; !received.includes('\r\n\r\n') && waited < ANSWER_WITHIN_MS; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    socket.destroy();
    expect(received).toMatch(/^HTTP\/1\.1 100 Continue\r\n/);
  });

  // After every unauthenticated request above, before the signed one below.
  it('nothing was written by any of them', async () => {
    expect(await site.call('contentSnapshot')).toEqual(before);
  });

  it('a correctly signed request in absolute form is served', async () => {
    const body = JSON.stringify({ title: 'Absolute form', content: '<p>a</p>', status: 'draft' });
    const signed = signedHeaders(body);
    const answer = await exchange(
      site.baseUrl,
      head('POST', `http://127.0.0.1${PREFIX}/posts`, { ...signed, Expect: '100-continue' }, body)
    );
    expect(answer.finalStatus).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ id: expect.any(String) });
  });
});
