import render from 'dom-serializer';
import { Element, isTag, type ChildNode, type Document, type ParentNode } from 'domhandler';
import { DomUtils } from 'htmlparser2';
import TurndownService from 'turndown';
import { verbatimHtmlBlock, withoutBlankLines } from './html-in-markdown';
import { parseBudget, parseHtml } from './html-parser';

/** Markup Markdown has no syntax for stays as HTML, which Markdown renderers pass through. */
const KEPT_AS_HTML = ['table', 'iframe', 'video', 'audio', 'figure', 'embed', 'object'] as const;

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '*',
});
/**
 * The kept markup a renderer starts an HTML block with (CommonMark's block tag names). The others
 * (`<video>`) would start a paragraph, where the text inside them is read as Markdown (an image,
 * `![x](…)`, became live), so they are written in a `<div>` that starts one.
 */
const STARTS_HTML_BLOCK = new Set<string>(['table', 'iframe', 'figure']);
turndown.addRule('keptAsHtml', {
  filter: [...KEPT_AS_HTML],
  replacement: (_content, node) => {
    const html = (node as unknown as { outerHTML: string }).outerHTML;
    return `\n\n${STARTS_HTML_BLOCK.has(node.nodeName.toLowerCase()) ? withoutBlankLines(html) : verbatimHtmlBlock(html)}\n\n`;
  },
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
 * which no destination may hold, are percent-encoded, and `&` is written as an entity.
 */
function destination(url: string): string {
  const escaped = url
    .replace(/[\r\n]/g, encodeURIComponent)
    .replace(/([\\<>()])/g, '\\$1')
    // A Markdown renderer decodes entities in a destination: `javascript&colon;` would become a
    // scheme the content-safety policy never saw. `&amp;` decodes to the `&` the URL held.
    .replace(/&/g, '&amp;');
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
  setBlocksApart(root);
  return render(root, { encodeEntities: 'utf8' });
}

/** The elements Turndown writes as blocks of their own; the others' Markdown joins the text around them. */
const TURNDOWN_BLOCKS = new Set(
  'address article aside audio blockquote body canvas center dd dir div dl dt fieldset figcaption figure footer form frameset h1 h2 h3 h4 h5 h6 header hgroup hr html isindex li main menu nav noframes noscript ol output p pre section table tbody td tfoot th thead tr ul'.split(
    ' '
  )
);
const isBlockForTurndown = (node: ChildNode): node is Element =>
  isTag(node) && (TURNDOWN_BLOCKS.has(node.name) || (KEPT_AS_HTML as readonly string[]).includes(node.name));

/**
 * Blocks moved out of the inline elements (`<span>`, `<em>`, `<a>`) they are in, each of which
 * is split around them. Turndown writes an inline element's Markdown around all it holds and
 * trims the whitespace at its edges, the blank lines that set a block apart included: markup
 * kept as HTML then shared a line with the Markdown before it, a renderer read that line as a
 * paragraph with inline tags, and the text between them as Markdown (`![x](…)` in a `<pre>` of a
 * table in a `<span>` became an image), and after it, the Markdown that followed as HTML; a code
 * block in a link ended its fence with the link's `](…)`, read as the next fence's language.
 * Code keeps what it holds as text. Returns the children of `parent` that are or hold blocks.
 */
function setBlocksApart(parent: ParentNode): Set<ChildNode> {
  const holders = new Set<ChildNode>();
  const children: ChildNode[] = [];
  for (const child of parent.children) {
    // Kept HTML is written as it is, with what it holds.
    const inner =
      isTag(child) && child.name !== 'code' && !(KEPT_AS_HTML as readonly string[]).includes(child.name)
        ? setBlocksApart(child)
        : new Set<ChildNode>();
    if (isTag(child) && inner.size > 0 && !isBlockForTurndown(child)) {
      for (const piece of splitAround(child, inner)) {
        if (inner.has(piece)) holders.add(piece);
        children.push(piece);
      }
    } else {
      if (isBlockForTurndown(child) || inner.size > 0) holders.add(child);
      children.push(child);
    }
  }
  withChildren(parent, children);
  return holders;
}

/** `element`'s `holders`, each between copies of `element` holding the children around it. */
function splitAround(element: Element, holders: Set<ChildNode>): ChildNode[] {
  const pieces: ChildNode[] = [];
  let run: ChildNode[] = [];
  const endRun = () => {
    if (run.length > 0) pieces.push(withChildren(new Element(element.name, { ...element.attribs }), run));
    run = [];
  };
  // One pass over the children, so that many blocks in one inline element cost linear time.
  for (const child of element.children) {
    if (holders.has(child)) {
      endRun();
      pieces.push(child);
    } else run.push(child);
  }
  endRun();
  return pieces;
}

/** `parent` with `children`, each linked to it and to its siblings as the DOM utilities expect. */
function withChildren<T extends ParentNode>(parent: T, children: ChildNode[]): T {
  parent.children = children;
  children.forEach((child, index) => {
    child.parent = parent;
    child.prev = children[index - 1] ?? null;
    child.next = children[index + 1] ?? null;
  });
  return parent;
}
