import fs from 'node:fs';
import path from 'node:path';
import { Parser } from 'htmlparser2';
import {
  htmlToSections,
  MAX_STANDALONE_SECTIONS,
  mergeZone,
  type Section,
  type SectionOptions,
} from '../../server/src/mapping/html-to-sections';

const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'html');
const WEB_IMAGES: SectionOptions = { image: (src) => /^https?:\/\//.test(src), quote: {} };

const INLINE_TAGS = new Set([
  'a',
  'b',
  'strong',
  'i',
  'em',
  'u',
  's',
  'span',
  'code',
  'mark',
  'small',
  'sub',
  'sup',
  'q',
  'cite',
  'abbr',
  'time',
]);

/** The words a reader sees (decoded, markup gone), compared letters and digits only. */
function words(html: string): string[] {
  let text = '';
  const gap = (name: string) => {
    if (!INLINE_TAGS.has(name)) text += ' ';
  };
  new Parser(
    { ontext: (data) => (text += data), onopentag: gap, onclosetag: gap },
    { decodeEntities: true }
  ).end(html);
  return text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
}

function sectionWords(sections: Section[]): string[] {
  return sections.flatMap((section) => {
    if (section.type === 'text') return words(section.html);
    if (section.type === 'quote') return [...words(section.body), ...words(section.title ?? '')];
    return words(section.caption ?? '');
  });
}

/** Whether `wanted` appears within `words` in order (other words may come between). */
function inOrder(wanted: string[], found: string[]): { missing?: string; at: number } {
  let position = 0;
  for (const [index, word] of wanted.entries()) {
    while (position < found.length && found[position] !== word) position += 1;
    if (position === found.length) return { missing: word, at: index };
    position += 1;
  }
  return { at: wanted.length };
}

describe('htmlToSections', () => {
  test.each(fs.readdirSync(FIXTURES).filter((file) => file.endsWith('.html')))(
    'every visible word of %s is in the sections, in order',
    (file) => {
      const html = fs.readFileSync(path.join(FIXTURES, file), 'utf8');
      const sections = htmlToSections(html, WEB_IMAGES);
      expect(inOrder(words(html), sectionWords(sections))).toEqual({ at: words(html).length });
    }
  );

  test('text runs, figures, paragraph images and quotes become sections in document order', () => {
    const html = [
      '<h2>Intro</h2>\n<p>First <strong>point</strong> &amp; more.</p>\n',
      '<figure><img src="https://cdn.test/a.png" alt="A chart"><figcaption>Sales by month</figcaption></figure>\n',
      '<p>Between.</p>',
      '<blockquote><p>Quoted line one.</p><p>Line <em>two</em>.</p><footer>&mdash; Ada Lovelace</footer></blockquote>',
      '<ul><li>x</li></ul>\n<p> <img src="https://cdn.test/b.png" alt=""> </p>\n<table><tr><td>1</td></tr></table>',
    ].join('');
    expect(htmlToSections(html, WEB_IMAGES)).toEqual([
      { type: 'text', html: '<h2>Intro</h2>\n<p>First <strong>point</strong> &amp; more.</p>' },
      { type: 'image', src: 'https://cdn.test/a.png', alt: 'A chart', caption: 'Sales by month' },
      { type: 'text', html: '<p>Between.</p>' },
      { type: 'quote', body: 'Quoted line one.\n\nLine two.', title: 'Ada Lovelace' },
      { type: 'text', html: '<ul><li>x</li></ul>' },
      { type: 'image', src: 'https://cdn.test/b.png', alt: '' },
      { type: 'text', html: '<table><tr><td>1</td></tr></table>' },
    ]);
  });

  test('a cite after a line break is the title, and the dash before it leaves the body', () => {
    const html =
      '<blockquote>&#8220;Still sounds new.&#8221;<br>&mdash; <cite>Verified buyer, Leeds</cite></blockquote>';
    expect(htmlToSections(html, WEB_IMAGES)).toEqual([
      { type: 'quote', body: '\u201cStill sounds new.\u201d', title: 'Verified buyer, Leeds' },
    ]);
  });

  test('without a quote component, blockquotes stay in the text run around them', () => {
    const html = '<p>Before.</p><blockquote><p>Wise words.</p></blockquote><p>After.</p>';
    expect(htmlToSections(html, { image: () => true })).toEqual([{ type: 'text', html }]);
  });

  test('a blockquote with links (an embedded tweet) stays verbatim in the text', () => {
    const tweet =
      '<blockquote class="twitter-tweet"><p>Writers who use AI.</p>&mdash; Jane <a href="https://twitter.com/x/status/1">March 3</a></blockquote>';
    expect(
      htmlToSections(
        `<p>A.</p>${tweet}<script src="https://platform.twitter.com/widgets.js"></script>`,
        WEB_IMAGES
      )
    ).toEqual([
      {
        type: 'text',
        html: `<p>A.</p>${tweet}<script src="https://platform.twitter.com/widgets.js"></script>`,
      },
    ]);
  });

  test('a quote that does not fit the component stays in the text; a too long title joins the body', () => {
    const html = '<blockquote><p>Short body.</p><cite>A very long attribution</cite></blockquote>';
    expect(htmlToSections(html, { quote: { maxTitle: 10 } })).toEqual([
      { type: 'quote', body: 'Short body.\n\u2014 A very long attribution' },
    ]);
    expect(htmlToSections(html, { quote: { maxBody: 5 } })).toEqual([{ type: 'text', html }]);
  });

  test('images the caller cannot import, inline images and linked images stay in the text', () => {
    const html =
      '<p>See <img src="https://cdn.test/inline.png"> here.</p><a href="/x"><img src="https://cdn.test/linked.png"></a><img src="data:image/png;base64,AAAA"><img src="https://cdn.test/ok.png" alt="ok">';
    expect(htmlToSections(html, WEB_IMAGES)).toEqual([
      {
        type: 'text',
        html: '<p>See <img src="https://cdn.test/inline.png"> here.</p><a href="/x"><img src="https://cdn.test/linked.png"></a><img src="data:image/png;base64,AAAA">',
      },
      { type: 'image', src: 'https://cdn.test/ok.png', alt: 'ok' },
    ]);
    expect(htmlToSections(html, { quote: {} })).toEqual([{ type: 'text', html }]);
  });

  test('a caption with a link gives the image its text and keeps the link in the text after it', () => {
    const html =
      '<figure><img src="https://cdn.test/c.png"><figcaption>Template by <a href="https://example.com/t">Example &amp; Co</a>.</figcaption></figure>';
    expect(htmlToSections(html, WEB_IMAGES)).toEqual([
      {
        type: 'image',
        src: 'https://cdn.test/c.png',
        alt: 'Template by Example & Co.',
        caption: 'Template by Example & Co.',
      },
      { type: 'text', html: '<p>Template by <a href="https://example.com/t">Example &amp; Co</a>.</p>' },
    ]);
  });

  test('HTML with nothing to split is one text section, exactly as sent', () => {
    const html =
      '<h2>Only</h2><p>text, <!-- a comment --> and <em>marks</em></p><pre><code>x  y</code></pre>';
    expect(htmlToSections(html, WEB_IMAGES)).toEqual([{ type: 'text', html }]);
    expect(htmlToSections('  \n ', WEB_IMAGES)).toEqual([]);
  });
});

describe('mergeZone', () => {
  const generatedTypes = new Set(['shared.rich-text', 'shared.media']);
  const isGenerated = (uid: string) => generatedTypes.has(uid);
  const text = (body: string) => ({ __component: 'shared.rich-text', body });
  const stored = (id: number, component: string) => ({ __component: component, id, body: 'old' });

  test('editor components keep their place among the generated ones and carry only their id', () => {
    const current = [
      stored(1, 'shared.cta'),
      stored(2, 'shared.rich-text'),
      stored(3, 'shared.media'),
      stored(4, 'shared.slider'),
      stored(5, 'shared.rich-text'),
      stored(6, 'shared.banner'),
    ];
    expect(mergeZone(current, [text('a'), text('b'), text('c'), text('d')], isGenerated)).toEqual([
      { __component: 'shared.cta', id: 1 },
      text('a'),
      text('b'),
      { __component: 'shared.slider', id: 4 },
      text('c'),
      text('d'),
      { __component: 'shared.banner', id: 6 },
    ]);
  });

  test('with fewer generated components than before, editor components keep their order after them', () => {
    const current = [
      stored(1, 'shared.rich-text'),
      stored(2, 'shared.rich-text'),
      stored(3, 'shared.slider'),
      stored(4, 'shared.rich-text'),
    ];
    expect(mergeZone(current, [text('only')], isGenerated)).toEqual([
      text('only'),
      { __component: 'shared.slider', id: 3 },
    ]);
  });

  test('an empty zone takes the generated components as they are', () => {
    expect(mergeZone([], [text('a')], isGenerated)).toEqual([text('a')]);
  });
});

describe('htmlToSections: maxBlocks', () => {
  it('parses only as far as the Blocks converter would and keeps the rest, unparsed, in the last text section', () => {
    const html = '<p>1</p><img src="/a.png"><p>2</p><img src="/b.png"><p>3</p>';
    expect(htmlToSections(html, { image: () => true, maxBlocks: 3 })).toEqual([
      { type: 'text', html: '<p>1</p>' },
      { type: 'image', src: '/a.png', alt: '' },
      { type: 'text', html: '<p>2</p><img src="/b.png"><p>3</p>' },
    ]);
  });
});

describe('htmlToSections: many images and quotes', () => {
  it(`makes components of the first ${MAX_STANDALONE_SECTIONS} and keeps the rest, as they were, in the text`, () => {
    const quotes = Array.from(
      { length: MAX_STANDALONE_SECTIONS + 50 },
      (_, index) => `<blockquote>q${index}</blockquote>`
    );
    const sections = htmlToSections(quotes.join(''), WEB_IMAGES);
    expect(sections).toEqual([
      ...quotes.slice(0, MAX_STANDALONE_SECTIONS).map((_, index) => ({ type: 'quote', body: `q${index}` })),
      { type: 'text', html: quotes.slice(MAX_STANDALONE_SECTIONS).join('') },
    ]);
  });
});

describe('htmlToSections: deep nesting', () => {
  const depth = 8_000;
  const deep = (text: string) => `${'<b>'.repeat(depth)}${text}${'</b>'.repeat(depth)}`;

  it('keeps a quote nested deeper than the limit in the text instead of recursing through it', () => {
    const html = `<blockquote>${deep('x')}</blockquote>`;
    expect(htmlToSections(html, WEB_IMAGES)).toEqual([{ type: 'text', html }]);
  });

  it('keeps a figure whose caption nests deeper than the limit in the text', () => {
    const html = `<figure><img src="https://example.com/a.jpg"><figcaption>${deep('x')}</figcaption></figure>`;
    expect(htmlToSections(html, WEB_IMAGES)).toEqual([{ type: 'text', html }]);
  });

  it('still makes a quote of formatting nested a few levels deep', () => {
    const html = `<blockquote><p>${'<b>'.repeat(5)}x${'</b>'.repeat(5)}</p></blockquote>`;
    expect(htmlToSections(html, WEB_IMAGES)).toEqual([{ type: 'quote', body: 'x' }]);
  });
});
