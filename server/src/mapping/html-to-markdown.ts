import TurndownService from 'turndown';
import { nestsDeeperThan } from './html-parser';
import { MAX_NESTING } from './html-to-blocks';

/** Markup Markdown has no syntax for stays as HTML, which Markdown renderers pass through. */
const KEPT_AS_HTML = ['table', 'iframe', 'video', 'audio', 'figure', 'embed', 'object'] as const;

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '*',
});
turndown.keep([...KEPT_AS_HTML]);

/**
 * Post HTML as Markdown, for `richtext` attributes whose editor and frontend expect Markdown.
 * Turndown recurses once per level and costs more than linear time on deep nesting (100,000
 * nested tags: about a minute of CPU, then a stack overflow), so HTML nested deeper than the
 * Blocks converter's limit is kept as HTML, which Markdown renderers pass through.
 */
export const htmlToMarkdown = (html: string): string =>
  nestsDeeperThan(html, MAX_NESTING) ? html : turndown.turndown(html);
