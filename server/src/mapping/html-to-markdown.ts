import render from 'dom-serializer';
import TurndownService from 'turndown';
import { nestsDeeperThan, withinBudgetLength } from './html-parser';
import { MAX_NESTING, parseBudget, parseHtml } from './html-to-blocks';

/** Markup Markdown has no syntax for stays as HTML, which Markdown renderers pass through. */
const KEPT_AS_HTML = ['table', 'iframe', 'video', 'audio', 'figure', 'embed', 'object'] as const;

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '*',
});
turndown.keep([...KEPT_AS_HTML]);

const escapeMarkdownSyntax = turndown.escape.bind(turndown);
/**
 * Text stays text: Markdown renderers read a `<` or an entity in it as HTML, so the source's
 * escaped `&lt;script&gt;` would become a live tag. Both are written as entities; code keeps them
 * as they are, since Markdown shows code literally.
 */
turndown.escape = (text: string) =>
  escapeMarkdownSyntax(text)
    .replace(/&(?=#?\w+;)/g, '&amp;')
    .replace(/</g, '&lt;');

export interface MarkdownResult {
  markdown: string;
  /** Set when the HTML past `maxBlocks` blocks was appended to the Markdown as it was. */
  blockLimitReached?: true;
}

/**
 * Post HTML as Markdown, for `richtext` attributes whose editor and frontend expect Markdown.
 * Turndown recurses once per level and costs more than linear time on deep nesting (100,000
 * nested tags: about a minute of CPU, then a stack overflow), so HTML nested deeper than the
 * Blocks converter's limit is kept as HTML, which Markdown renderers pass through. Turndown also
 * builds a tree of the whole document, so only what the Blocks converter would read within
 * `maxBlocks` is converted; the rest follows as HTML.
 */
export function htmlToMarkdown(html: string, { maxBlocks = Infinity } = {}): MarkdownResult {
  const end = Number.isFinite(maxBlocks) ? withinBudgetLength(html, parseBudget(maxBlocks)) : html.length;
  const head = html.slice(0, end);
  const markdown = nestsDeeperThan(head, MAX_NESTING) ? head : turndown.turndown(wellFormed(head));
  const rest = html.slice(end).trim();
  return rest ? { markdown: `${markdown}\n\n${rest}`, blockLimitReached: true } : { markdown };
}

/**
 * `html` as parsed by the parser the budget and nesting limit were counted with, written out again.
 * Turndown parses its input with an HTML5 parser of its own, which reopens unclosed formatting
 * elements in every later paragraph: 1,200 `<p><font a="…">y</p>` (29 KB) took it 18 s. Written
 * out from htmlparser2's tree, every element is closed where it ends, so there is nothing left to
 * reopen, and no element has more than the attributes htmlparser2 kept.
 */
function wellFormed(html: string): string {
  return render(parseHtml(html), { encodeEntities: 'utf8' });
}
