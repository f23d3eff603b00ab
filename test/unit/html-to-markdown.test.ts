import { htmlToMarkdown } from '../../server/src/mapping/html-to-markdown';
import { MAX_NESTING } from '../../server/src/mapping/html-to-blocks';

describe('htmlToMarkdown', () => {
  test('headings, marks, links, lists and code become Markdown', () => {
    const html = [
      '<h2>Brewing</h2>',
      '<p>Use <strong>fresh</strong> beans and <em>filtered</em> water, see <a href="https://example.com/water">this guide</a>.</p>',
      '<ul><li>Grind</li><li>Bloom<ul><li>30 s</li></ul></li></ul>',
      '<pre><code>ratio = 1:16</code></pre>',
    ].join('');
    expect(htmlToMarkdown(html)).toEqual({
      markdown: [
        '## Brewing',
        '',
        'Use **fresh** beans and *filtered* water, see [this guide](https://example.com/water).',
        '',
        '-   Grind',
        '-   Bloom',
        '    -   30 s',
        '',
        '```',
        'ratio = 1:16',
        '```',
      ].join('\n'),
    });
  });

  test('tables and embeds stay as HTML, which Markdown passes through', () => {
    const table = '<table><tbody><tr><td>Dose</td><td>18 g</td></tr></tbody></table>';
    const iframe = '<iframe src="https://www.youtube.com/embed/x"></iframe>';
    const { markdown } = htmlToMarkdown(`<p>Before</p>${table}${iframe}`);
    expect(markdown).toContain(table);
    expect(markdown).toContain(iframe);
    expect(markdown.startsWith('Before')).toBe(true);
  });
});

describe('htmlToMarkdown: text stays text', () => {
  it('writes a < or an entity of the text as an entity, so a renderer never reads it as HTML', () => {
    const { markdown } = htmlToMarkdown(
      '<p>&lt;script&gt;alert(1)&lt;/script&gt; and the entity &amp;lt; and AT&amp;T</p>'
    );
    expect(markdown).toBe('&lt;script>alert(1)&lt;/script> and the entity &amp;lt; and AT&T');
  });

  it('keeps code as it was: Markdown shows code literally', () => {
    expect(htmlToMarkdown('<p><code>a &lt; b</code></p><pre><code>&lt;div&gt;</code></pre>').markdown).toBe(
      '`a < b`\n\n```\n<div>\n```'
    );
  });
});

describe('htmlToMarkdown: deep nesting', () => {
  it('keeps HTML nested deeper than the limit as HTML instead of recursing through it', () => {
    const depth = 100_000;
    const html = `${'<div>'.repeat(depth)}deep${'</div>'.repeat(depth)}`;
    expect(htmlToMarkdown(html)).toEqual({ markdown: html });
  });

  it('still converts HTML nested up to the limit', () => {
    const html = `${'<div>'.repeat(MAX_NESTING - 2)}<p><strong>shallow</strong></p>${'</div>'.repeat(MAX_NESTING - 2)}`;
    expect(htmlToMarkdown(html)).toEqual({ markdown: '**shallow**' });
  });
});

describe('htmlToMarkdown: maxBlocks', () => {
  it('converts what the Blocks converter would read within maxBlocks and appends the rest as HTML', () => {
    const html = '<p><em>1</em></p><p>2</p><p><em>3</em></p><p>4</p>';
    expect(htmlToMarkdown(html, { maxBlocks: 2 })).toEqual({
      markdown: '*1*\n\n2\n\n<p><em>3</em></p><p>4</p>',
      blockLimitReached: true,
    });
    expect(htmlToMarkdown(html, { maxBlocks: 4 })).toEqual(htmlToMarkdown(html));
  });
});

describe('htmlToMarkdown: Turndown reads only the tree the budget counted', () => {
  /** The fastest of a few runs, so that a pause of the machine does not count. */
  function fastestMs(run: () => unknown): number {
    let fastest = Infinity;
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const start = process.hrtime.bigint();
      run();
      fastest = Math.min(fastest, Number(process.hrtime.bigint() - start) / 1e6);
    }
    return fastest;
  }

  /** A flat document of about `length` characters, the cost a body of that size should have. */
  const flatDocumentOf = (length: number) => '<p>y</p>'.repeat(Math.ceil(length / 8));

  it('unclosed formatting elements that a browser would reopen in every later paragraph cost what a flat document costs', () => {
    // htmlparser2 closes each <font> at </p>; an HTML5 parser keeps each open and reopens all of them in every later <p>.
    const count = 600;
    const misnested = `${Array.from({ length: count }, (_, index) => `<p><font a="${index}">y</p>`).join('')}<p>x</p>`;
    const { markdown } = htmlToMarkdown(misnested, { maxBlocks: 2_000 });
    expect(markdown.match(/y/g)).toHaveLength(count);
    expect(markdown.endsWith('x')).toBe(true);
    const flat = flatDocumentOf(misnested.length);
    expect(fastestMs(() => htmlToMarkdown(misnested, { maxBlocks: 2_000 }))).toBeLessThan(
      5 * fastestMs(() => htmlToMarkdown(flat, { maxBlocks: 2_000 }))
    );
  });

  it('an element with tens of thousands of attributes costs what a flat document costs', () => {
    const attributes = Array.from({ length: 40_000 }, (_, index) => ` a${index}=1`).join('');
    const crowded = `<p${attributes}>x</p>`;
    expect(htmlToMarkdown(crowded, { maxBlocks: 2_000 })).toEqual({ markdown: 'x' });
    const flat = flatDocumentOf(crowded.length);
    expect(fastestMs(() => htmlToMarkdown(crowded, { maxBlocks: 2_000 }))).toBeLessThan(
      5 * fastestMs(() => htmlToMarkdown(flat, { maxBlocks: 2_000 }))
    );
  });

  it('markup kept as HTML keeps its attributes and text', () => {
    const iframe =
      '<iframe width="560" height="315" src="https://www.youtube.com/embed/x?a=1&amp;b=2" allowfullscreen=""></iframe>';
    const table = '<table class="specs"><tbody><tr><td>Dose &lt; 20 g</td></tr></tbody></table>';
    const { markdown } = htmlToMarkdown(`<p>Before</p>${iframe}${table}`);
    expect(markdown).toBe(`Before\n\n${iframe}\n\n${table}`);
  });
});
