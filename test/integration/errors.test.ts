import http from 'node:http';
import net from 'node:net';
import { signedHeaders } from '../helpers/signing';
import { PREFIX, type Reply, useSite } from '../helpers/site';
import { documentsOf, UIDS } from '../helpers/inspect';

const MEGABYTE = 1024 * 1024;
const DEFAULT_LIMIT = 10 * MEGABYTE;

/** The contract's error body and nothing else: no Strapi envelope, no stack trace. */
function expectErrorBody(reply: Reply, status: number, fragment?: RegExp) {
  expect(reply.status).toBe(status);
  expect(reply.body).toEqual({ error: expect.any(String) });
  expect(reply.body.error.length).toBeGreaterThan(0);
  expect(reply.body.error).not.toMatch(/\n\s+at |node_modules|\.js:\d+/);
  if (fragment) expect(reply.body.error).toMatch(fragment);
}

/** Sends a request over a raw socket and resolves with the status line as soon as it arrives. */
function rawRequest(
  baseUrl: string,
  head: string,
  bodyPart: Buffer
): Promise<{ statusLine: string; text: string }> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(head);
      socket.write(bodyPart);
      // Deliberately never sends the rest of the declared body.
    });
    let received = '';
    socket.on('data', (chunk) => {
      received += chunk.toString('utf8');
      const headerEnd = received.indexOf('\r\n\r\n');
      if (headerEnd === -1) return;
      const length = Number(/content-length: (\d+)/i.exec(received)?.[1] ?? 0);
      if (Buffer.byteLength(received.slice(headerEnd + 4)) < length) return;
      socket.destroy();
      resolve({ statusLine: received.split('\r\n')[0], text: received.slice(headerEnd + 4) });
    });
    socket.on('error', reject);
  });
}

describe('error answers under the prefix', () => {
  const site = useSite();

  it('answers 413 { error } for a signed body one byte over the 10 MB limit', async () => {
    const body = Buffer.alloc(DEFAULT_LIMIT + 1, 0x20);
    expectErrorBody(await site.send('POST', '/posts', body), 413, /larger than this site accepts \(10 MB\)/);
  });

  it('accepts a signed body of exactly the limit (it is read, then validated)', async () => {
    const prefix = '{"title":"At the limit","status":"draft","content":"';
    const suffix = '"}';
    const filler = 'x'.repeat(DEFAULT_LIMIT - prefix.length - suffix.length);
    const reply = await site.send('POST', '/posts', `${prefix}${filler}${suffix}`);
    expect(reply.status).toBe(200);
  });

  it('refuses a Content-Length over the limit without waiting for the body', async () => {
    const body = Buffer.from('{"title":"x"');
    const headers = signedHeaders(body);
    const head =
      `POST ${PREFIX}/posts HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
      Object.entries(headers)
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('') +
      `Content-Length: ${DEFAULT_LIMIT * 5}\r\n\r\n`;
    // Only a few bytes of the 50 MB ever arrive: an answer proves the server did not wait for them.
    const { statusLine, text } = await rawRequest(site.baseUrl, head, body);
    expect(statusLine).toBe('HTTP/1.1 413 Payload Too Large');
    expect(Object.keys(JSON.parse(text))).toEqual(['error']);
  });

  it('answers 413 { error } for a chunked body (no Content-Length) that grows over the limit', async () => {
    const { hostname, port } = new URL(site.baseUrl);
    const headers = { ...signedHeaders(Buffer.alloc(0)), 'Content-Type': 'application/json' };
    const reply = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const request = http.request(
        { hostname, port, method: 'POST', path: `${PREFIX}/posts`, headers },
        (response) => {
          let text = '';
          response.on('data', (chunk) => (text += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        }
      );
      // Once the answer is out the server may drop the socket while chunks are still queued.
      request.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
      });
      const chunk = Buffer.alloc(MEGABYTE, 0x20);
      let sent = 0;
      const writeMore = () => {
        while (sent < 12 && !request.destroyed) {
          sent += 1;
          if (!request.write(chunk)) return void request.once('drain', writeMore);
        }
        request.end();
      };
      writeMore();
    });
    expect(reply.status).toBe(413);
    expect(Object.keys(JSON.parse(reply.text))).toEqual(['error']);
  });

  it('answers 400 { error } for malformed JSON, saying so', async () => {
    for (const body of ['{"title": ', '{title: "x"}', "{'a':1}", '{"a":1,}', 'nul']) {
      expectErrorBody(await site.send('POST', '/posts', body), 400, /not valid JSON/);
    }
  });

  it('answers 400 { error } for a body that is not valid UTF-8', async () => {
    expectErrorBody(await site.send('POST', '/posts', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])), 400, /UTF-8/);
  });

  it('answers 400 { error } for a JSON body that is not an object', async () => {
    for (const body of ['[]', '[{"title":"t","content":"c","status":"draft"}]', '"a string"', '42', 'true']) {
      expectErrorBody(await site.send('POST', '/posts', body), 400, /must be a JSON object/);
    }
    expectErrorBody(await site.send('PUT', '/posts/some-id', '["status"]'), 400, /must be a JSON object/);
  });

  it('answers 400 { error } saying the body must be an object for a JSON null body', async () => {
    expectErrorBody(await site.send('POST', '/posts', 'null'), 400, /must be a JSON object/);
  });

  it('answers 400 { error } naming the field for a wrong type', async () => {
    expectErrorBody(
      await site.send('POST', '/posts', { title: 'x', content: 1, status: 'draft' }),
      400,
      /content/
    );
  });

  it('answers validation failures in plain words: the field, then what it takes (issue 40)', async () => {
    const missing = await site.send('POST', '/posts', { content: '<p>x</p>', status: 'draft' });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ error: 'Invalid request: title is required (a string).' });
    const several = await site.send('POST', '/posts', {
      title: 'x',
      content: 'y',
      status: 'published',
      categories: 'news',
      seo: { title: 3 },
    });
    expect(several.status).toBe(400);
    expect(several.body).toEqual({
      error:
        'Invalid request: status must be one of publish, draft; categories must be a list of strings, not a string; seo.title must be a string, not a number.',
    });
  });

  it('answers 415 { error } for a compressed body, which the signature cannot cover as sent', async () => {
    const reply = await site.send('POST', '/posts', '{}', { headers: { 'Content-Encoding': 'gzip' } });
    expectErrorBody(reply, 415, /uncompressed/);
  });

  it('answers 404 { error } for an unknown path under the prefix', async () => {
    for (const path of ['/nope', '/posts/abc/extra', '/', '']) {
      expectErrorBody(await site.send('POST', path, '{}'), 404, /No endpoint/);
    }
  });

  it('answers 404 { error } for a GET of an unknown path under the prefix', async () => {
    for (const path of ['/handshake', '/posts', '/nope']) {
      expectErrorBody(await site.send('GET', path), 404, /No endpoint GET/);
    }
  });

  it('answers a method the contract does not define on a known path with an actionable { error }', async () => {
    for (const [method, path] of [
      ['PATCH', '/posts/abc'],
      ['DELETE', '/handshake'],
    ]) {
      const reply = await site.send(method, path, '{}');
      expect([404, 405]).toContain(reply.status);
      expect(reply.body).toEqual({ error: expect.stringContaining(`${method} `) });
    }
  });

  it('answers every success as JSON and never leaks the key', async () => {
    const reply = await site.send('POST', '/handshake', '');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/application\/json/);
    expect(JSON.stringify(reply.body)).not.toContain(process.env.PUBLISH_BRIDGE_API_KEY);
  });

  it('answers 50 parallel signed creates with 200 each, no 5xx', async () => {
    const replies = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        site.send('POST', '/posts', {
          title: `Parallel ${index}`,
          content: `<p>${index}</p>`,
          status: index % 2 ? 'publish' : 'draft',
          categories: ['Shared Category', `Own ${index % 5}`],
          tags: ['shared-tag'],
          author: 'Shared Author',
        })
      )
    );
    expect(replies.map((reply) => reply.status)).toEqual(Array(50).fill(200));
    expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(50);
    const documents = (uid: string) => documentsOf(site.strapi, uid);
    expect(
      await documents(UIDS.blogCategory).count({
        filters: { name: { $eqi: 'shared category' } },
      })
    ).toBe(1);
    expect(await documents(UIDS.tag).count({ filters: { name: 'shared-tag' } })).toBe(1);
  });
});
