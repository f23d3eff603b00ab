import { serviceOf, useSite } from '../helpers/site';
import { documentsOf, latestActivityNotes, UIDS } from '../helpers/inspect';

/** The plugin's post keeps `content` in a `richtext` attribute, Strapi's Markdown editor. */
const FORMAT = 'plugin::publish-bridge.richtextFormat';
const HTML = '<h2>Cupping</h2><p>Slurp <strong>loudly</strong>.</p><table><tr><td>Score</td></tr></table>';

const site = useSite();
// Unset, as on a site whose config/plugins leaves richtextFormat out.
afterEach(() => {
  site.strapi.config.set(FORMAT, undefined);
});

async function storedContent(title: string) {
  const reply = await site.send('POST', '/posts', { title, content: HTML, status: 'publish' });
  expect(reply.status).toBe(200);
  const post = await documentsOf(site.strapi, UIDS.post).findOne({
    documentId: reply.body.id,
  });
  return post.content as string;
}

test("by default it is stored as Markdown, which Strapi's richtext editor edits, tables kept as HTML", async () => {
  expect(await storedContent('Cupping by default')).toBe(
    '## Cupping\n\nSlurp **loudly**.\n\n<table><tbody><tr><td>Score</td></tr></tbody></table>'
  );
});

test('with richtextFormat "html" the HTML is stored as sent', async () => {
  site.strapi.config.set(FORMAT, 'html');
  expect(await storedContent('Cupping as HTML')).toBe(HTML);
});

test('with richtextFormat "markdown" it is stored as Markdown, tables kept as HTML', async () => {
  site.strapi.config.set(FORMAT, 'markdown');
  expect(await storedContent('Cupping as Markdown')).toBe(
    '## Cupping\n\nSlurp **loudly**.\n\n<table><tbody><tr><td>Score</td></tr></tbody></table>'
  );
});

test('with richtextFormat "markdown", unclosed formatting elements an HTML5 parser would reopen in every paragraph convert as a flat body does', async () => {
  site.strapi.config.set(FORMAT, 'markdown');
  // 1,200 of them (29 KB) took Turndown's own parser 18 s and 720 MB before it read the counted tree.
  const count = 1_200;
  const content = `${Array.from({ length: count }, (_, index) => `<p><font a="${index}">y</p>`).join('')}<p>x</p>`;
  const reply = await site.send('POST', '/posts', { title: 'Reopened fonts', content, status: 'publish' });
  expect(reply.status).toBe(200);
  const post = await documentsOf(site.strapi, UIDS.post).findOne({
    documentId: reply.body.id,
  });
  expect(post.content.match(/y/g)).toHaveLength(count);
  expect(post.content.endsWith('x')).toBe(true);
  expect(await storedContent('After the reopened fonts')).toBe(
    '## Cupping\n\nSlurp **loudly**.\n\n<table><tbody><tr><td>Score</td></tr></tbody></table>'
  );
});

describe('Markdown conversion runs on a worker thread', () => {
  const TIMEOUT = 'plugin::publish-bridge.content';
  // Turndown's edge-whitespace regular expression takes quadratic time on text of alternating
  // spaces and no-break spaces: these 96 KB took 15 s of CPU, on the event loop every request shares.
  const SLOW_HTML = `<pre><span>x${' \u00a0'.repeat(48_000)}</span>y</pre>`;
  let original: Record<string, unknown>;

  beforeAll(() => {
    original = site.strapi.config.get(TIMEOUT);
  });
  afterEach(() => {
    site.strapi.config.set(TIMEOUT, original);
  });

  test('keeps HTML that does not convert within content.markdownTimeoutMs as it is, notes it, and answers other requests meanwhile', async () => {
    site.strapi.config.set(FORMAT, 'markdown');
    site.strapi.config.set(TIMEOUT, { ...original, markdownTimeoutMs: 2_000 });
    const markdown = serviceOf(site, 'markdown');
    const convert = markdown.convert;
    let conversionStarted!: () => void;
    const started = new Promise<void>((resolve) => (conversionStarted = resolve));
    markdown.convert = (...args: Parameters<typeof convert>) => {
      conversionStarted();
      return convert(...args);
    };
    const answered: string[] = [];
    try {
      const publishing = site
        .send('POST', '/posts', { title: 'Slow to convert', content: SLOW_HTML, status: 'publish' })
        .finally(() => answered.push('publish'));
      await started;
      const handshake = await site.send('POST', '/handshake', {}).finally(() => answered.push('handshake'));
      const reply = await publishing;

      expect(handshake.status).toBe(200);
      expect(answered).toEqual(['handshake', 'publish']);
      expect(reply.status).toBe(200);
      const post = await documentsOf(site.strapi, UIDS.post).findOne({
        documentId: reply.body.id,
      });
      expect(post.content).toBe(`<div>\n${SLOW_HTML}\n</div>`);
      expect((await latestActivityNotes(site.strapi)).join('\n')).toContain(
        "content: the HTML was stored as it is, not as Markdown: the request's conversions took longer than content.markdownTimeoutMs (2000 ms)"
      );
    } finally {
      markdown.convert = convert;
    }
    // The thread that ran out of time was ended; the next conversion gets a new one.
    expect(await storedContent('Converted after a timeout')).toBe(
      '## Cupping\n\nSlurp **loudly**.\n\n<table><tbody><tr><td>Score</td></tr></tbody></table>'
    );
  });
});
