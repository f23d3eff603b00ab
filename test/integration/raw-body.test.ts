import { signMessage } from '../../server/src/contract/signature';
import { TEST_KEY } from '../helpers/signing';
import { useSite } from '../helpers/site';
import { documentsOf, UIDS } from '../helpers/inspect';

const POST = UIDS.post;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/**
 * A body as a publisher written in another language might send it: a BOM, `\u` escapes,
 * odd whitespace (tabs, CRLF, spaces around colons) and keys out of alphabetical order.
 * Any re-serialisation of the parsed JSON changes these bytes.
 */
const ODD_TEXT =
  '{ "status" :\t"publish" ,\r\n' +
  '  "title":"Caf\\u00e9 cr\\u00e8me \\u2014 \\ud83d\\ude00",\n' +
  '\t"content" : "<p>\\u00c9t\\u00e9 \\/ \\"quoted\\"</p>"  ,\n' +
  '  "source_id":"raw-body-1", "tags" : [ "Th\\u00e9" ,"b" ] }\r\n';
const ODD_BODY = Buffer.concat([BOM, Buffer.from(ODD_TEXT, 'utf8')]);

function signedWith(body: Buffer | string, timestamp = String(Date.now())) {
  return {
    'X-API-Key': TEST_KEY,
    'X-Publisher-Timestamp': timestamp,
    'X-Publisher-Signature': signMessage(TEST_KEY, timestamp, body),
  };
}

describe('the signature covers the exact raw bytes of the body', () => {
  const site = useSite();
  beforeAll(async () => {
    // The decoded body is compared with the HTML sent: stored as HTML, not as Markdown.
    site.strapi.config.set('plugin::publish-bridge.richtextFormat', 'html');
  });

  const read = (documentId: string) =>
    documentsOf(site.strapi, POST).findOne({ documentId, populate: ['tags'] }) as Promise<any>;

  it('uses a body that any re-serialisation would change', () => {
    const reserialised = JSON.stringify(JSON.parse(ODD_BODY.subarray(3).toString('utf8')));
    expect(reserialised).not.toBe(ODD_BODY.toString('utf8'));
    expect(reserialised).not.toBe(ODD_TEXT);
  });

  it('verifies the body as sent and stores the decoded values', async () => {
    const reply = await site.send('POST', '/posts', ODD_BODY);
    expect(reply.status).toBe(200);
    const post = await read(reply.body.id);
    expect(post.title).toBe('Café crème — 😀');
    expect(post.content).toBe('<p>Été / "quoted"</p>');
    expect(post.sourceId).toBe('raw-body-1');
    expect(post.tags.map((tag: { name: string }) => tag.name)).toEqual(['Thé', 'b']);
  });

  it('refuses the same signature over the re-serialised body', async () => {
    const headers = signedWith(ODD_BODY);
    const reserialised = JSON.stringify(JSON.parse(ODD_BODY.subarray(3).toString('utf8')));
    const reply = await site.send('POST', '/posts', reserialised, { unsigned: true, headers });
    expect(reply.status).toBe(401);
    expect(reply.body.error).toMatch(/signature does not match/);
  });

  it('refuses a signature made over the body without its BOM', async () => {
    const headers = signedWith(ODD_BODY.subarray(3));
    const reply = await site.send('POST', '/posts', ODD_BODY, { unsigned: true, headers });
    expect(reply.status).toBe(401);
  });

  it('refuses a signature made over the same JSON with its keys sorted', async () => {
    const parsed = JSON.parse(ODD_BODY.subarray(3).toString('utf8'));
    const sorted = JSON.stringify(Object.fromEntries(Object.entries(parsed).sort()));
    const reply = await site.send('POST', '/posts', ODD_BODY, {
      unsigned: true,
      headers: signedWith(sorted),
    });
    expect(reply.status).toBe(401);
  });

  it('refuses a body changed by one byte after signing', async () => {
    const tampered = Buffer.from(ODD_BODY);
    tampered[tampered.length - 3] = 0x20;
    const reply = await site.send('POST', '/posts', tampered, {
      unsigned: true,
      headers: signedWith(ODD_BODY),
    });
    expect(reply.status).toBe(401);
  });

  it('verifies raw UTF-8 (not escaped) byte for byte', async () => {
    const body = Buffer.from('{"title":"Ünïcödé ✓","content":"<p>naïve café</p>","status":"draft"}', 'utf8');
    const reply = await site.send('POST', '/posts', body);
    expect(reply.status).toBe(200);
    expect((await read(reply.body.id)).title).toBe('Ünïcödé ✓');
  });

  it('ignores the Content-Type charset: the bytes are what was signed', async () => {
    const body = '{"title":"Charset","content":"é","status":"draft"}';
    const reply = await site.send('POST', '/posts', body, {
      headers: { 'Content-Type': 'application/json; charset=latin1' },
    });
    expect(reply.status).toBe(200);
    expect((await read(reply.body.id)).content).toBe('é');
  });

  it('accepts a signed body larger than Strapi’s own 1 MB JSON limit', async () => {
    const content = `<p>${'x'.repeat(3 * 1024 * 1024)}</p>`;
    const reply = await site.send('POST', '/posts', { title: 'Big', content, status: 'draft' });
    expect(reply.status).toBe(200);
    expect((await read(reply.body.id)).content).toHaveLength(content.length);
  });

  it('lets Strapi parse bodies of its own routes as before', async () => {
    // The gate only touches its prefix; a JSON body elsewhere still reaches strapi::body.
    const response = await fetch(`${site.baseUrl}/api/auth/local`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identifier: 'nobody@example.com', password: 'wrong-password' }),
    });
    const body = (await response.json()) as { error?: { message?: string } };
    expect(response.status).toBe(400);
    expect(body.error?.message).toBe('Invalid identifier or password');
  });
});
