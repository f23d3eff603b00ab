import render from 'dom-serializer';
import type { Document } from 'domhandler';
import { DomUtils } from 'htmlparser2';
import TurndownService from 'turndown';
import { verbatimHtmlBlock, withoutBlankLines } from './html-in-markdown';
import { parseBudget, parseHtml } from './html-to-blocks';

/** Markup Markdown has no syntax for stays as HTML, which Markdown renderers pass through. */
const KEPT_AS_HTML = ['table', 'iframe', 'video', 'audio', 'figure', 'embed', 'object'] as const;

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '*',
});
turndown.addRule('keptAsHtml', {
  filter: [...KEPT_AS_HTML],
  replacement: (_content, node) =>
    `\n\n${withoutBlankLines((node as unknown as { outerHTML: string }).outerHTML)}\n\n`,
});

/**
 * Text stays text: Markdown renderers read a `<` or an entity in it as HTML, so the source's
 * escaped `&lt;script&gt;` would become a live tag. Both are written as entities.
 */
const asLiteralText = (text: string) => text.replace(/&(?=#?\w+;)/g, '&amp;').replace(/</g, '&lt;');

const escapeMarkdownSyntax = turndown.escape.bind(turndown);
/** Text nodes; code keeps its text as it is, since Markdown shows code literally. */
turndown.escape = (text: string) => asLiteralText(escapeMarkdownSyntax(text));

/**
 * A link or image destination whose every character stays inside it. Turndown escapes brackets
 * but not a backslash: a URL ending in `\` escaped the closing `)`, the link syntax failed, and
 * its title or alt text was read as raw HTML (found by the third attack review). Line breaks,
 * which no destination may hold, are percent-encoded.
 */
function destination(url: string): string {
  const escaped = url.replace(/[\r\n]/g, encodeURIComponent).replace(/([\\<>()])/g, '\\$1');
  return /\s/.test(escaped) ? `<${escaped}>` : escaped;
}

/** Alt text and titles are text too, whatever they hold, and a title cannot end its quotes. */
const attributeText = (value: string | null) =>
  asLiteralText((value ?? '').replace(/\s*\n\s*/g, ' ')).replace(/([\\"[\]])/g, '\\$1');
/** What the rules read of Turndown's DOM node (this build has no DOM types). */
type Attributes = { getAttribute(name: string): string | null };
const titlePart = (node: Attributes) => {
  const title = attributeText(node.getAttribute('title'));
  return title ? ` "${title}"` : '';
};

turndown.addRule('image', {
  filter: 'img',
  replacement: (_content, node) => {
    const element = node as unknown as Attributes;
    const src = element.getAttribute('src');
    return src
      ? `![${attributeText(element.getAttribute('alt'))}](${destination(src)}${titlePart(element)})`
      : '';
  },
});
turndown.addRule('inlineLink', {
  filter: (node) => node.nodeName === 'A' && !!(node as unknown as Attributes).getAttribute('href'),
  replacement: (content, node) => {
    const element = node as unknown as Attributes;
    return `[${content}](${destination(element.getAttribute('href')!)}${titlePart(element)})`;
  },
});

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
  const { root, end, nestsTooDeep } = parseHtml(html, parseBudget(maxBlocks));
  // Written out from the tree the budget and nesting limit were counted on: see `wellFormed`.
  const markdown = nestsTooDeep ? verbatimHtmlBlock(html.slice(0, end)) : turndown.turndown(wellFormed(root));
  const rest = html.slice(end).trim();
  return rest
    ? { markdown: `${markdown}\n\n${verbatimHtmlBlock(rest)}`, blockLimitReached: true }
    : { markdown };
}

/**
 * The parsed tree written out again, for Turndown. Turndown parses its input with an HTML5
 * parser of its own, which reopens unclosed formatting elements in every later paragraph: 1,200
 * `<p><font a="…">y</p>` (29 KB) took it 18 s. Written out from htmlparser2's tree, every element
 * is closed where it ends, so there is nothing left to reopen, and no element has more than the
 * attributes htmlparser2 kept.
 */
function wellFormed(root: Document): string {
  // Browsers with scripts on, as every Markdown reader has them, never show a <noscript>, and
  // read its content as text; Turndown's parser reads it as markup, which would make it live.
  for (const hidden of DomUtils.getElementsByTagName('noscript', root.children))
    DomUtils.removeElement(hidden);
  return render(root, { encodeEntities: 'utf8' });
}
