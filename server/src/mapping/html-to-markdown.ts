import TurndownService from 'turndown';

/** Markup Markdown has no syntax for stays as HTML, which Markdown renderers pass through. */
const KEPT_AS_HTML = ['table', 'iframe', 'video', 'audio', 'figure', 'embed', 'object'] as const;

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '*',
});
turndown.keep([...KEPT_AS_HTML]);

/** Post HTML as Markdown, for `richtext` attributes whose editor and frontend expect Markdown. */
export const htmlToMarkdown = (html: string): string => turndown.turndown(html);
