import TurndownService from 'turndown';
import { nestsDeeperThan, withinBudgetLength } from './html-parser';
import { MAX_NESTING, parseBudget } from './html-to-blocks';

/** Markup Markdown has no syntax for stays as HTML, which Markdown renderers pass through. */
const KEPT_AS_HTML = ['table', 'iframe', 'video', 'audio', 'figure', 'embed', 'object'] as const;

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '*',
});
turndown.keep([...KEPT_AS_HTML]);

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
  const markdown = nestsDeeperThan(head, MAX_NESTING) ? head : turndown.turndown(head);
  const rest = html.slice(end).trim();
  return rest ? { markdown: `${markdown}\n\n${rest}`, blockLimitReached: true } : { markdown };
}
