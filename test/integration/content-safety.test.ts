import { type Site, useSite } from '../helpers/site';
import { live, markdownRenderer } from '../helpers/live-content';
import { documentsOf, UIDS } from '../helpers/inspect';

/**
 * A signed publish whose content carries the attacks of the content-safety policy is stored with
 * none of them live, in each form a site stores HTML in: HTML and Markdown in the plugin's post
 * (a `richtext` attribute), Blocks in the example's own Article.
 */
const ATTACKS = [
  '<h2>Brewing</h2><p>Visible <a href="https://example.com/ok">text</a> stays.</p>',
  '<script>alert(1)</script><ScRiPt>alert(2)</sCrIpT>',
  '<iframe src="https://evil.example/x"></iframe><object data="https://evil.example/x.swf"></object><embed src="x.swf">',
  '<p onclick="alert(1)">handler</p><img src="https://example.com/a.png" onerror="alert(1)" alt="a">',
  '<p><a href="JaVaScRiPt:alert(1)">mixed</a> <a href="&#106;avascript&#58;alert(1)">entities</a> <a href="java\tscript:alert(1)">tab</a></p>',
  '<p><a href="vbscript:msgbox(1)">vb</a> <a href="data:text/html,<script>alert(1)</script>">data</a></p>',
  '<svg onload="alert(1)"><script>alert(1)</script></svg><form action="https://evil.example"><input></form>',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><style>body{display:none}</style>',
  '<table><tr><td onclick="alert(1)"><a href="javascript:alert(1)">cell</a></td></tr></table>',
].join('');

async function publish(site: Site, title: string): Promise<string> {
  const reply = await site.send('POST', '/posts', { title, content: ATTACKS, status: 'publish' });
  expect(reply.status).toBe(200);
  return reply.body.id;
}

describe("the plugin's post, a richtext attribute", () => {
  const FORMAT = 'plugin::publish-bridge.richtextFormat';
  const site = useSite();
  afterEach(() => site.strapi.config.set(FORMAT, undefined));

  const storedContent = async (title: string) => {
    const documentId = await publish(site, title);
    const post = await documentsOf(site.strapi, UIDS.post).findOne({
      documentId,
      status: 'published',
    });
    return post.content as string;
  };

  it.each(['html', 'markdown'] as const)('stored as %s keeps nothing live, and the text', async (format) => {
    site.strapi.config.set(FORMAT, format);
    const content = await storedContent(`Attacks as ${format}`);
    expect(live(format, content)).toEqual([]);
    expect(content).toContain('Visible');
    expect(content).toContain('cell');
  });
});

describe("the example's Article, a blocks attribute", () => {
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'site' });

  it('stored as Blocks keeps nothing live, and the text', async () => {
    const documentId = await publish(site, 'Attacks as Blocks');
    const article = await documentsOf(site.strapi, 'api::article.article').findOne({
      documentId,
      status: 'published',
    });
    expect(live('blocks', article.content)).toEqual([]);
    // Code blocks hold the markup Blocks cannot: as text, and without what the policy drops.
    expect(JSON.stringify(article.content)).not.toMatch(/script|onclick|onerror|iframe|javascript/i);
    expect(JSON.stringify(article.content)).toContain('Visible');
  });
});

describe('a text field stored in a richtext attribute (the excerpt in the plugin’s post’s content)', () => {
  const FORMAT = 'plugin::publish-bridge.richtextFormat';
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'rich-excerpt' });
  afterEach(() => site.strapi.config.set(FORMAT, undefined));

  it.each(['html', 'markdown'] as const)(
    'goes through the same policy as the body (%s site)',
    async (format) => {
      site.strapi.config.set(FORMAT, format);
      const reply = await site.send('POST', '/posts', {
        title: `Excerpt attacks as ${format}`,
        content: '<p>Body.</p>',
        excerpt: ATTACKS,
        status: 'publish',
      });
      expect(reply.status).toBe(200);
      const post = await documentsOf(site.strapi, UIDS.post).findOne({
        documentId: reply.body.id,
        status: 'published',
      });
      expect(live(format, post.content)).toEqual([]);
      expect(post.content).toContain('Visible');
      expect(post.content).toContain('cell');
      expect(post.content).not.toContain('evil.example');
    }
  );

  // Text is not HTML: on a Markdown site its brackets and angle brackets would make links.
  it('keeps Markdown link syntax in the text as text (markdown site)', async () => {
    site.strapi.config.set(FORMAT, 'markdown');
    const excerpt = [
      'Read [this](javascript:alert(1)) and <javascript:alert(2)>',
      '![pixel](data:text/html;base64,PHNjcmlwdD5hbGVydCgzKTwvc2NyaXB0Pg==)',
      '[ref] and [ref]: javascript:alert(4)',
    ].join(' ');
    const reply = await site.send('POST', '/posts', {
      title: 'Markdown links in the excerpt',
      content: '<p>Body.</p>',
      excerpt,
      status: 'publish',
    });
    expect(reply.status).toBe(200);
    const post = await documentsOf(site.strapi, UIDS.post).findOne({
      documentId: reply.body.id,
      status: 'published',
    });
    expect(live('markdown', post.content)).toEqual([]);
    expect(markdownRenderer.render(post.content)).toContain('Read [this](javascript:alert(1))');
  });
});
