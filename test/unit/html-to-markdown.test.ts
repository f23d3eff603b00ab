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
