/**
 * Converts post HTML into the value Strapi 5 stores for a `blocks` attribute.
 *
 * Node shapes follow what the content-manager Blocks editor produces and what core's
 * blocks validator (`@strapi/core` entity-validator/blocks-validator) accepts.
 *
 * Nothing in the post is silently lost: markup Blocks cannot hold is kept verbatim in an
 * `html` code block and reported in `fallbacks`, so an editor or the front end can deal with it.
 */
import { DomHandler, isTag, isText, type ChildNode, type Document, type Element } from 'domhandler';
import { linearParser, type ParseBudget } from './html-parser';

export type Mark = 'bold' | 'italic' | 'underline' | 'strikethrough' | 'code';

export interface TextNode {
  type: 'text';
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  strikethrough?: boolean;
  code?: boolean;
}

export interface LinkNode {
  type: 'link';
  url: string;
  children: TextNode[];
}

export type InlineNode = TextNode | LinkNode;

export interface ParagraphNode {
  type: 'paragraph';
  children: InlineNode[];
}

export interface HeadingNode {
  type: 'heading';
  level: 1 | 2 | 3 | 4 | 5 | 6;
  children: InlineNode[];
}

export interface QuoteNode {
  type: 'quote';
  children: InlineNode[];
}

export interface CodeNode {
  type: 'code';
  language?: string;
  children: TextNode[];
}

export interface ListItemNode {
  type: 'list-item';
  children: InlineNode[];
}

export interface ListNode {
  type: 'list';
  format: 'ordered' | 'unordered';
  /** Set on nested lists only, as the editor does when an item is indented. */
  indentLevel?: number;
  children: Array<ListItemNode | ListNode>;
}

/** The media fields an image block carries; a Strapi upload file object fits here as is. */
export interface BlocksImage {
  url: string;
  alternativeText?: string | null;
  caption?: string | null;
  width?: number | null;
  height?: number | null;
  [field: string]: unknown;
}

export interface ImageNode {
  type: 'image';
  image: BlocksImage;
  children: [{ type: 'text'; text: '' }];
}

export type BlockNode = ParagraphNode | HeadingNode | QuoteNode | CodeNode | ListNode | ImageNode;

/**
 * How deep elements may nest before the rest is kept verbatim. Past it, conversion would cost
 * more and more per level while nothing readable is gained.
 */
export const MAX_NESTING = 32;

/** Markup that Blocks cannot hold as such, with its exact original source. */
export interface HtmlFallback {
  tag: string;
  html: string;
}

/**
 * Synchronous lookup of an image the caller has already imported (see `imageSources`).
 * Strapi saves an image block only with a Media Library file, so an image the lookup does not
 * know (`undefined`) is kept as HTML instead. Without a lookup, images keep their `src`.
 */
export type ImageResolver = (src: string, alt: string) => BlocksImage | undefined;

export interface HtmlToBlocksOptions {
  resolveImage?: ImageResolver;
  /** Blocks converted at most; the HTML from the top-level element that would pass it is kept verbatim. */
  maxBlocks?: number;
}

/**
 * Nodes the parser reads per allowed block, so that one top-level element holding a whole long
 * post (a wrapping `<div>`) or a table still converts, while the tree stays small.
 */
export const NODES_PER_BLOCK = 25;

/** What a conversion bounded to `maxBlocks` blocks may parse (see `parseHtml`). */
export const parseBudget = (maxBlocks: number): ParseBudget => ({
  topLevel: maxBlocks,
  nodes: maxBlocks * NODES_PER_BLOCK,
});

export interface HtmlToBlocksResult {
  blocks: BlockNode[];
  /**
   * In document order. Block-level markup listed here is kept in the blocks as an `html` code block;
   * an `<a>` listed here has a URL Strapi refuses to save, so only its text was kept.
   */
  fallbacks: HtmlFallback[];
  /** Set when markup nested deeper than MAX_NESTING was kept as HTML (possibly within a larger fallback). */
  nestingLimitReached?: true;
  /** Set when the HTML past `maxBlocks` blocks was kept verbatim as the last block. */
  blockLimitReached?: true;
}

type Marks = Partial<Record<Mark, true>>;
type TextBlockFactory = (children: InlineNode[]) => ParagraphNode | HeadingNode;

interface FlowContext {
  readonly marks: Marks;
  /** What loose inline content becomes here: a paragraph, or the heading being read. */
  readonly textBlock: TextBlockFactory;
  /** The `indentLevel` a list found here gets; 0 means a top-level list. */
  readonly listDepth: number;
}

interface Source {
  readonly html: string;
}

interface Converted<T> {
  nodes: T[];
  fallbacks: HtmlFallback[];
}

// Maps, not object literals: a custom element may be called `<constructor>`.
const MARK_BY_TAG: ReadonlyMap<string, Mark> = new Map([
  ['strong', 'bold'],
  ['b', 'bold'],
  ['em', 'italic'],
  ['i', 'italic'],
  ['u', 'underline'],
  ['s', 'strikethrough'],
  ['del', 'strikethrough'],
  ['strike', 'strikethrough'],
  ['code', 'code'],
  ['kbd', 'code'],
  ['samp', 'code'],
]);

const HEADING_LEVEL: ReadonlyMap<string, HeadingNode['level']> = new Map([
  ['h1', 1],
  ['h2', 2],
  ['h3', 3],
  ['h4', 4],
  ['h5', 5],
  ['h6', 6],
]);

/** Inline wrappers whose only loss is presentation, so their text flows on unwrapped. */
const PHRASE_TAGS = new Set([
  'span',
  'abbr',
  'cite',
  'dfn',
  'mark',
  'small',
  'sub',
  'sup',
  'time',
  'q',
  'var',
  'data',
  'bdi',
  'bdo',
  'ins',
  'font',
  'label',
  'nobr',
  'wbr',
]);

/** Layout wrappers: their content is converted as if they were not there (a figure only when it is not just an image). */
const CONTAINER_TAGS = new Set([
  'html',
  'body',
  'div',
  'section',
  'article',
  'main',
  'header',
  'footer',
  'aside',
  'nav',
  'address',
  'center',
  'hgroup',
  'figure',
  'figcaption',
]);

/** Elements Blocks has no node for; each is kept whole as an `html` code block. */
const UNSUPPORTED_TAGS = new Set([
  'table',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'td',
  'th',
  'caption',
  'colgroup',
  'col',
  'iframe',
  'frame',
  'frameset',
  'embed',
  'object',
  'param',
  'video',
  'audio',
  'source',
  'track',
  'canvas',
  'svg',
  'math',
  'picture',
  'map',
  'area',
  'script',
  'noscript',
  'style',
  'template',
  'head',
  'title',
  'base',
  'link',
  'meta',
  'form',
  'fieldset',
  'legend',
  'input',
  'button',
  'select',
  'option',
  'optgroup',
  'textarea',
  'datalist',
  'output',
  'progress',
  'meter',
  'dialog',
  'details',
  'summary',
  'dl',
  'dt',
  'dd',
  'hr',
]);

const BLOCK_TAGS = new Set(['p', 'ul', 'ol', 'li', 'blockquote', 'pre', 'img', ...HEADING_LEVEL.keys()]);

/** Syntax highlighters wrap tokens in these; anything else inside a `<pre>` would be lost as plain text. */
const CODE_MARKUP_TAGS = new Set([
  'code',
  'span',
  'br',
  'b',
  'strong',
  'i',
  'em',
  'mark',
  'kbd',
  'samp',
  'var',
]);

/** Core's blocks validator rejects the whole entry when a link uses any other protocol. */
const LINK_PROTOCOLS = new Set(['http:', 'https:', 'ftp:', 'mailto:', 'tel:']);

const ROOT_CONTEXT: FlowContext = { marks: {}, textBlock: paragraph, listDepth: 0 };

/**
 * Image blocks are made with the image's `src` and resolved after the whole conversion, so one
 * conversion both lists the images to import (`imageSources`) and, once they are imported, gives
 * the blocks (`resolveImages`). Each image block's original markup, kept for when it fails.
 */
const IMAGE_MARKUP = new WeakMap<ImageNode, ImageMarkup>();

interface ImageMarkup extends HtmlFallback {
  alt: string;
  /** Where in `fallbacks` the image's own goes when it fails, so they stay in document order. */
  fallbackIndex: number;
}

export function htmlToBlocks(html: string, options: HtmlToBlocksOptions = {}): HtmlToBlocksResult {
  const maxBlocks = options.maxBlocks ?? Infinity;
  const builder = new BlocksBuilder({ html });
  // The parser stops at the budget; what it did not read is kept verbatim, unparsed.
  const parsed = parseHtml(html, parseBudget(maxBlocks));
  let keptFrom = parsed.end;
  for (const node of parsed.root.children) {
    const blockCount = builder.blocks.length;
    const fallbackCount = builder.fallbacks.length;
    const loose = builder.looseSnapshot();
    if (blockCount < maxBlocks) builder.appendNodes([node], ROOT_CONTEXT);
    if (blockCount >= maxBlocks || builder.blocks.length > maxBlocks) {
      // This node passes the limit: the verbatim rest starts with it, whole.
      builder.blocks.length = blockCount;
      builder.fallbacks.length = fallbackCount;
      builder.restoreLoose(loose);
      keptFrom = node.startIndex!;
      break;
    }
  }
  builder.flushLoose(paragraph);
  // Whitespace between top-level blocks is not content.
  const rest = html.slice(keptFrom).trim();
  const limitReached = rest !== '';
  if (limitReached) builder.blocks.push(htmlCodeBlock(rest));
  const result: HtmlToBlocksResult = { blocks: builder.blocks, fallbacks: builder.fallbacks };
  if (builder.nestingLimitReached) result.nestingLimitReached = true;
  if (limitReached) result.blockLimitReached = true;
  return options.resolveImage ? resolveImages(result, options.resolveImage) : result;
}

/** The `src` of every image block of a conversion, unique and in document order. */
export function imageSources(result: HtmlToBlocksResult): string[] {
  const urls = result.blocks.flatMap((block) => (block.type === 'image' ? [block.image.url] : []));
  return [...new Set(urls)];
}

/**
 * The conversion with each image block holding what `resolveImage` gives for its `src`, or, when it
 * gives nothing, the image's markup as an `html` code block (listed in `fallbacks`). Images are
 * top-level blocks only: a list or quote holding one is kept whole as HTML.
 */
export function resolveImages(result: HtmlToBlocksResult, resolveImage: ImageResolver): HtmlToBlocksResult {
  const failed: ImageMarkup[] = [];
  const blocks = result.blocks.map((block): BlockNode => {
    const markup = block.type === 'image' ? IMAGE_MARKUP.get(block) : undefined;
    if (block.type !== 'image' || !markup) return block;
    const image = resolveImage(block.image.url, markup.alt);
    if (!image) {
      failed.push(markup);
      return htmlCodeBlock(markup.html);
    }
    const { caption } = block.image;
    return { ...block, image: caption ? { ...image, caption } : image };
  });
  const fallbacks: HtmlFallback[] = [];
  let next = 0;
  const takeFailedUpTo = (index: number) => {
    for (; next < failed.length && failed[next].fallbackIndex <= index; next += 1)
      fallbacks.push({ tag: failed[next].tag, html: failed[next].html });
  };
  result.fallbacks.forEach((fallback, index) => {
    takeFailedUpTo(index);
    fallbacks.push(fallback);
  });
  takeFailedUpTo(Infinity);
  return { ...result, blocks, fallbacks };
}

function htmlCodeBlock(html: string): CodeNode {
  return { type: 'code', language: 'html', children: [{ type: 'text', text: html }] };
}

/** Block texts separated by blank lines; list items one per line; images carry no text. */
export function blocksToPlainText(blocks: readonly BlockNode[]): string {
  return blocks
    .map(blockText)
    .filter((text) => text !== '')
    .join('\n\n');
}

function blockText(block: BlockNode): string {
  switch (block.type) {
    case 'image':
      return '';
    case 'list':
      return block.children
        .map((child) => (child.type === 'list' ? blockText(child) : inlineText(child.children)))
        .join('\n');
    default:
      return inlineText(block.children);
  }
}

function inlineText(nodes: readonly InlineNode[]): string {
  return nodes.map((node) => (node.type === 'link' ? inlineText(node.children) : node.text)).join('');
}

/** Walks HTML in reading order, turning loose inline content into text blocks between the block-level nodes. */
class BlocksBuilder {
  readonly blocks: BlockNode[] = [];
  readonly fallbacks: HtmlFallback[] = [];
  nestingLimitReached?: true;
  private loose: InlineNode[] = [];

  constructor(private readonly source: Source) {}

  looseSnapshot(): { inlines: InlineNode[]; length: number } {
    return { inlines: this.loose, length: this.loose.length };
  }

  /** Takes back the inline content read since the snapshot. */
  restoreLoose({ inlines, length }: { inlines: InlineNode[]; length: number }): void {
    this.loose = inlines.slice(0, length);
  }

  appendNodes(nodes: readonly ChildNode[], context: FlowContext): void {
    for (const node of nodes) {
      if (isText(node)) this.loose.push(textLeaf(collapseWhitespace(node.data), context.marks));
      else if (isTag(node)) this.appendElement(node, context);
    }
  }

  /**
   * Ends the current run of inline content. Runs of whitespace between blocks are dropped, but an
   * element that was explicitly a text block (`keepEmpty`) stays, as an empty block.
   */
  flushLoose(textBlock: TextBlockFactory, keepEmpty = false): void {
    const children = compactInlines(normalizeWhitespace(this.loose));
    this.loose = [];
    if (children.length > 0 || keepEmpty) this.blocks.push(textBlock(orEmptyText(children)));
  }

  private appendElement(element: Element, context: FlowContext): void {
    if (NESTED_TOO_DEEP.has(element)) {
      this.nestingLimitReached = true;
      this.appendFallback(element, context);
      return;
    }
    const { name } = element;
    const mark = MARK_BY_TAG.get(name);
    const level = HEADING_LEVEL.get(name);
    const figureImage = name === 'figure' ? imageFigureParts(element) : undefined;

    if (name === 'br') this.loose.push(textLeaf('\n', context.marks));
    else if (mark)
      this.appendNodes(element.children, { ...context, marks: { ...context.marks, [mark]: true } });
    else if (name === 'a' && element.attribs.href !== undefined) this.appendLink(element, context);
    else if (name === 'p') this.appendTextBlock(element, context, paragraph);
    else if (level) this.appendTextBlock(element, context, heading(level));
    else if (name === 'ul' || name === 'ol') this.appendList(element, context);
    else if (name === 'blockquote') this.appendQuote(element, context);
    else if (name === 'pre') this.appendCode(element, context);
    else if (name === 'img') this.appendImage(element, context);
    else if (figureImage) this.appendImage(figureImage.img, context, figureImage.caption, element);
    else if (name === 'a' || PHRASE_TAGS.has(name) || CONTAINER_TAGS.has(name))
      this.appendNodes(element.children, context);
    else if (!UNSUPPORTED_TAGS.has(name) && isUnknownInlineWrapper(element))
      this.appendNodes(element.children, context);
    else this.appendFallback(element, context);
  }

  private pushBlock(block: BlockNode, context: FlowContext): void {
    this.flushLoose(context.textBlock);
    this.blocks.push(block);
  }

  private appendTextBlock(element: Element, context: FlowContext, textBlock: TextBlockFactory): void {
    this.flushLoose(context.textBlock);
    const blockCountBefore = this.blocks.length;
    this.appendNodes(element.children, { ...context, textBlock });
    this.flushLoose(textBlock, this.blocks.length === blockCountBefore);
  }

  private appendLink(link: Element, context: FlowContext): void {
    if (!link.children.every((child) => isPhrasing(child, false))) {
      this.appendFallback(link, context);
      return;
    }
    const url = link.attribs.href.trim();
    if (!isLinkStrapiAccepts(url)) {
      this.fallbacks.push({ tag: link.name, html: this.outerHtml(link) });
      this.appendNodes(link.children, context);
      return;
    }
    this.loose.push({ type: 'link', url, children: phrasingLeaves(link.children, context.marks) });
  }

  private appendList(list: Element, context: FlowContext): void {
    const converted = this.convertList(list, context.marks, context.listDepth);
    if (!converted) {
      this.appendFallback(list, context);
      return;
    }
    this.fallbacks.push(...converted.fallbacks);
    converted.nodes.forEach((node) => this.pushBlock(node, context));
  }

  /** `undefined` when the list holds something a Blocks list cannot, so the caller keeps it whole. */
  private convertList(list: Element, marks: Marks, depth: number): Converted<ListNode> | undefined {
    const children: ListNode['children'] = [];
    const fallbacks: HtmlFallback[] = [];
    for (const child of list.children.filter(isContent)) {
      const converted = !isTag(child)
        ? undefined
        : child.name === 'li'
          ? this.convertListItem(child, marks, depth)
          : child.name === 'ul' || child.name === 'ol'
            ? this.convertList(child, marks, depth + 1)
            : undefined;
      if (!converted) return undefined;
      children.push(...converted.nodes);
      fallbacks.push(...converted.fallbacks);
    }
    if (children.length === 0) return undefined;

    const format = list.name === 'ol' ? 'ordered' : 'unordered';
    const node: ListNode =
      depth > 0 ? { type: 'list', format, indentLevel: depth, children } : { type: 'list', format, children };
    return { nodes: [node], fallbacks };
  }

  /**
   * An item's paragraphs become one list-item (joined by line breaks, as the editor does); its nested
   * lists follow it as sibling list nodes, which is how the editor nests. Anything else, or text after
   * a nested list, has no Blocks equivalent.
   */
  private convertListItem(
    item: Element,
    marks: Marks,
    depth: number
  ): Converted<ListItemNode | ListNode> | undefined {
    const inner = this.convertChildren(item, { marks, textBlock: paragraph, listDepth: depth + 1 });
    const leading = inner.blocks.findIndex((block) => block.type !== 'paragraph');
    const paragraphs = (leading === -1 ? inner.blocks : inner.blocks.slice(0, leading)) as ParagraphNode[];
    const nestedLists = inner.blocks.slice(paragraphs.length);
    if (!nestedLists.every((block): block is ListNode => block.type === 'list')) return undefined;

    const hasOwnText = paragraphs.length > 0 || nestedLists.length === 0;
    const listItem: ListItemNode[] = hasOwnText
      ? [{ type: 'list-item', children: joinLines(paragraphs) }]
      : [];
    return { nodes: [...listItem, ...nestedLists], fallbacks: inner.fallbacks };
  }

  /** A quote holds inline content only, so its paragraphs are joined by line breaks, as the editor does. */
  private appendQuote(quote: Element, context: FlowContext): void {
    const inner = this.convertChildren(quote, { ...context, textBlock: paragraph });
    if (!inner.blocks.every((block): block is ParagraphNode => block.type === 'paragraph')) {
      this.appendFallback(quote, context);
      return;
    }
    this.fallbacks.push(...inner.fallbacks);
    this.pushBlock({ type: 'quote', children: joinLines(inner.blocks) }, context);
  }

  private appendCode(pre: Element, context: FlowContext): void {
    if (!pre.children.every(isCodeMarkup)) {
      this.appendFallback(pre, context);
      return;
    }
    const language = codeLanguage(pre);
    const text: TextNode = { type: 'text', text: preformattedText(pre) };
    this.pushBlock(
      language ? { type: 'code', language, children: [text] } : { type: 'code', children: [text] },
      context
    );
  }

  /** `figure` is the element kept as HTML when the image cannot become a Blocks image. */
  private appendImage(img: Element, context: FlowContext, caption?: string, figure: Element = img): void {
    const src = img.attribs.src?.trim();
    if (!src) {
      this.appendFallback(figure, context);
      return;
    }
    const alt = img.attribs.alt || caption || '';
    const image: BlocksImage = { url: src, alternativeText: alt || null };
    const block: ImageNode = {
      type: 'image',
      image: caption ? { ...image, caption } : image,
      children: [{ type: 'text', text: '' }],
    };
    IMAGE_MARKUP.set(block, {
      tag: figure.name,
      html: this.outerHtml(figure),
      alt,
      fallbackIndex: this.fallbacks.length,
    });
    this.pushBlock(block, context);
  }

  private appendFallback(element: Element, context: FlowContext): void {
    const html = this.outerHtml(element);
    this.fallbacks.push({ tag: element.name, html });
    this.pushBlock(htmlCodeBlock(html), context);
  }

  /** Converts an element's content on its own, so the caller can still reject it as a whole. */
  private convertChildren(element: Element, context: FlowContext): BlocksBuilder {
    const inner = new BlocksBuilder(this.source);
    inner.appendNodes(element.children, context);
    inner.flushLoose(context.textBlock);
    // Known even when the caller rejects the inner blocks and keeps the element whole.
    if (inner.nestingLimitReached) this.nestingLimitReached = true;
    return inner;
  }

  private outerHtml(element: Element): string {
    return this.source.html.slice(element.startIndex!, element.endIndex! + 1);
  }
}

/**
 * The outermost elements nested deeper than MAX_NESTING. The converter keeps each of them whole
 * and every walk over the tree stops at them, so no walk goes deeper than MAX_NESTING levels.
 */
const NESTED_TOO_DEEP = new WeakSet<Element>();

/**
 * htmlparser2 ends an implicitly closed element (an `<li>` closed by the next `<li>`, a `<table>`
 * closed by its parent's end tag) at the end of the token that closed it, so slicing the source
 * would swallow that token. End it right before that token instead: a fallback is then exactly the
 * element's own source.
 */
export class ExactSpanDomHandler extends DomHandler {
  private position: { startIndex: number | null } = { startIndex: null };

  override onparserinit(parser: { startIndex: number | null; endIndex: number | null }): void {
    super.onparserinit(parser);
    this.position = parser;
  }

  protected get tokenStart(): number {
    return this.position.startIndex!;
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    super.onopentag(name, attribs);
    // The stack holds the root below the elements, so its length is the new element's depth plus one.
    const element = this.tagStack[this.tagStack.length - 1];
    if (this.tagStack.length === MAX_NESTING + 2 && isTag(element)) {
      NESTED_TOO_DEEP.add(element);
      this.nestedTooDeep(element);
    }
  }

  /** Called for each outermost element nested deeper than MAX_NESTING. */
  protected nestedTooDeep(_element: Element): void {}

  override onclosetag(_name?: string, isImplied = false): void {
    const element = this.tagStack[this.tagStack.length - 1];
    super.onclosetag();
    const closingTokenStart = this.tokenStart;
    // A void element is "implicitly closed" at its own start; its end index is already right.
    if (isImplied && closingTokenStart > element.startIndex!) element.endIndex = closingTokenStart - 1;
  }
}

/** An ExactSpanDomHandler that stops the parser at the first node past a budget. */
class BoundedDomHandler extends ExactSpanDomHandler {
  private topLevel = 0;
  private nodes = 0;
  private topLevelStart = 0;
  private cut: number | undefined;
  private deepFrom: number | undefined;
  private running: { pause(): void } | undefined;

  constructor(
    options: ConstructorParameters<typeof DomHandler>[1],
    private readonly budget: ParseBudget
  ) {
    super(undefined, options);
  }

  override onparserinit(parser: Parameters<DomHandler['onparserinit']>[0] & { pause(): void }): void {
    super.onparserinit(parser);
    this.running = parser;
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    const depth = this.tagStack.length - 1;
    if (this.counted(depth === 0)) super.onopentag(name, attribs);
  }

  override onclosetag(name?: string, isImplied?: boolean): void {
    if (this.cut === undefined) super.onclosetag(name, isImplied);
  }

  override ontext(data: string): void {
    if (this.counted(false)) super.ontext(data);
  }

  override oncomment(data: string): void {
    if (this.counted(this.tagStack.length === 1)) super.oncomment(data);
  }

  override onprocessinginstruction(name: string, data: string): void {
    if (this.counted(this.tagStack.length === 1)) super.onprocessinginstruction(name, data);
  }

  protected override nestedTooDeep(): void {
    this.deepFrom ??= this.topLevelStart;
  }

  /** The tree up to the cut: the top-level node the budget ran out in is left out whole. */
  result(length: number): ParsedHtml {
    const end = this.cut ?? length;
    const { children } = this.root;
    if (this.cut !== undefined && children.at(-1)!.startIndex! >= end) {
      children.pop();
      if (children.length > 0) children.at(-1)!.next = null;
    }
    return { root: this.root, end, nestsTooDeep: this.deepFrom !== undefined && this.deepFrom < end };
  }

  /** Counts one more node; false once past the budget, when the parser is paused. */
  private counted(opensTopLevel: boolean): boolean {
    if (this.cut !== undefined) return false;
    this.nodes += 1;
    if (this.tagStack.length === 1) this.topLevelStart = this.tokenStart;
    if (opensTopLevel) this.topLevel += 1;
    if (this.topLevel <= this.budget.topLevel && this.nodes <= this.budget.nodes) return true;
    this.cut = this.topLevelStart;
    this.running!.pause();
    return false;
  }
}

/** A tree of the start of some HTML: see `parseHtml`. */
export interface ParsedHtml {
  root: Document;
  /** Where the HTML the tree holds ends: the length of the HTML when it holds all of it. */
  end: number;
  /** Whether an element of the tree is nested deeper than MAX_NESTING. */
  nestsTooDeep: boolean;
}

/**
 * The tree of the longest start of `html` that ends where a top-level node starts and stays
 * within `budget`. The parser counts nodes as it builds the tree and stops at the first one past
 * the budget, so an input of any size costs what the budget lets through, in one pass.
 */
export function parseHtml(html: string, budget?: ParseBudget): ParsedHtml {
  const options = { decodeEntities: true, withStartIndices: true, withEndIndices: true };
  const handler = new BoundedDomHandler(options, budget ?? { topLevel: Infinity, nodes: Infinity });
  linearParser(handler, options).end(html);
  return handler.result(html.length);
}

function paragraph(children: InlineNode[]): ParagraphNode {
  return { type: 'paragraph', children };
}

function heading(level: HeadingNode['level']): TextBlockFactory {
  return (children) => ({ type: 'heading', level, children });
}

function textLeaf(text: string, marks: Marks): TextNode {
  return { type: 'text', text, ...marks };
}

function orEmptyText<T extends InlineNode>(children: T[]): Array<T | TextNode> {
  return children.length > 0 ? children : [{ type: 'text', text: '' }];
}

// HTML whitespace only: a non-breaking space (&nbsp;) is content.
const HTML_WHITESPACE = /[ \t\n\r\f]+/g;

function collapseWhitespace(text: string): string {
  return text.replace(HTML_WHITESPACE, ' ');
}

function isBlank(text: string): boolean {
  return text.replace(HTML_WHITESPACE, '') === '';
}

/**
 * Renders whitespace the way a browser lays out a block (`white-space: normal`) across leaf
 * boundaries: no space after another space or a line break, and none at the block's start, end or
 * before a line break. Leaves come from the current run only, so they are trimmed in place.
 */
function normalizeWhitespace(inlines: InlineNode[]): InlineNode[] {
  const leaves = inlines.flatMap((node) => (node.type === 'link' ? node.children : [node]));
  let previous: TextNode | undefined;
  for (const leaf of leaves) {
    if (leaf.text.startsWith(' ') && (!previous || /[ \n]$/.test(previous.text)))
      leaf.text = leaf.text.slice(1);
    if (leaf.text.startsWith('\n') && previous?.text.endsWith(' '))
      previous.text = previous.text.slice(0, -1);
    if (leaf.text !== '') previous = leaf;
  }
  if (previous?.text.endsWith(' ')) previous.text = previous.text.slice(0, -1);
  return inlines;
}

/** Drops empty leaves and merges neighbours with the same marks, as the editor's normalisation does. */
function compactInlines(inlines: readonly InlineNode[]): InlineNode[] {
  const compacted: InlineNode[] = [];
  for (const node of inlines) {
    if (node.type === 'link')
      compacted.push({ ...node, children: orEmptyText(compactLeaves(node.children)) });
    else appendLeaf(compacted, node);
  }
  return compacted;
}

function compactLeaves(leaves: readonly TextNode[]): TextNode[] {
  const compacted: TextNode[] = [];
  leaves.forEach((leaf) => appendLeaf(compacted, leaf));
  return compacted;
}

function appendLeaf(target: InlineNode[], leaf: TextNode): void {
  if (leaf.text === '') return;
  const last = target[target.length - 1];
  if (last?.type === 'text' && haveSameMarks(last, leaf))
    target[target.length - 1] = { ...last, text: last.text + leaf.text };
  else target.push(leaf);
}

function haveSameMarks(a: TextNode, b: TextNode): boolean {
  return (['bold', 'italic', 'underline', 'strikethrough', 'code'] as const).every(
    (mark) => a[mark] === b[mark]
  );
}

function joinLines(paragraphs: readonly ParagraphNode[]): InlineNode[] {
  const lines = paragraphs.flatMap((block, index) =>
    index === 0 ? block.children : [textLeaf('\n', {}), ...block.children]
  );
  return orEmptyText(compactInlines(lines));
}

/** Whitespace text and comments between list items are not content. */
function isContent(node: ChildNode): boolean {
  return isTag(node) || (isText(node) && !isBlank(node.data));
}

/** Whether the node can be carried by text leaves (and, when `allowLinks`, links): no blocks, images or embeds. */
function isPhrasing(node: ChildNode, allowLinks: boolean): boolean {
  if (!isTag(node)) return true;
  if (NESTED_TOO_DEEP.has(node)) return false;
  const { name } = node;
  if (name === 'br') return true;
  if (BLOCK_TAGS.has(name) || CONTAINER_TAGS.has(name) || UNSUPPORTED_TAGS.has(name)) return false;
  if (name === 'a' && node.attribs.href !== undefined && !allowLinks) return false;
  return node.children.every((child) => isPhrasing(child, allowLinks));
}

/** An unknown element is unwrapped only when it just wraps text; otherwise it may be a widget that needs its markup. */
function isUnknownInlineWrapper(element: Element): boolean {
  // Phrasing first: it stops at content nested too deep, which textContent would walk whole.
  return element.children.every((child) => isPhrasing(child, true)) && !isBlank(textContent(element));
}

/** Text and line breaks of phrasing content whose links were already ruled out. */
function phrasingLeaves(nodes: readonly ChildNode[], marks: Marks): TextNode[] {
  return nodes.flatMap((node) => {
    if (isText(node)) return [textLeaf(collapseWhitespace(node.data), marks)];
    if (!isTag(node)) return [];
    if (node.name === 'br') return [textLeaf('\n', marks)];
    const mark = MARK_BY_TAG.get(node.name);
    return phrasingLeaves(node.children, mark ? { ...marks, [mark]: true } : marks);
  });
}

/** A figure that is just an image and an optional plain-text caption; a caption with links stays a paragraph. */
function imageFigureParts(figure: Element): { img: Element; caption?: string } | undefined {
  const parts = figure.children.filter(isContent);
  const img = parts.find((part): part is Element => isTag(part) && part.name === 'img');
  const figcaption = parts.find((part): part is Element => isTag(part) && part.name === 'figcaption');
  if (!img || parts.length !== (figcaption ? 2 : 1)) return undefined;
  if (!figcaption) return { img };
  if (!figcaption.children.every((child) => isPhrasing(child, false))) return undefined;
  const caption = inlineText(compactInlines(normalizeWhitespace(phrasingLeaves(figcaption.children, {}))));
  return caption ? { img, caption } : { img };
}

function isCodeMarkup(node: ChildNode): boolean {
  if (!isTag(node)) return true;
  return !NESTED_TOO_DEEP.has(node) && CODE_MARKUP_TAGS.has(node.name) && node.children.every(isCodeMarkup);
}

function preformattedText(pre: Element): string {
  const text = textContent(pre);
  const first = pre.children[0];
  // The HTML parsing rules drop one newline right after `<pre>`, so authors can start code on the next line.
  return first && isText(first) && /^\r?\n/.test(first.data) ? text.replace(/^\r?\n/, '') : text;
}

/** `language-x` (or `lang-x`) on the `<code>` inside, else on the `<pre>` itself. */
function codeLanguage(pre: Element): string | undefined {
  const code = pre.children.find((child): child is Element => isTag(child) && child.name === 'code');
  return (code && classLanguage(code)) ?? classLanguage(pre);
}

function classLanguage(element: Element): string | undefined {
  const classes = (element.attribs.class ?? '').split(/\s+/);
  const languageClass = classes.find((name) => /^lang(uage)?-./.test(name));
  return languageClass?.replace(/^lang(uage)?-/, '');
}

function textContent(node: ChildNode): string {
  if (isText(node)) return node.data;
  if (!isTag(node)) return '';
  return node.name === 'br' ? '\n' : node.children.map(textContent).join('');
}

function isLinkStrapiAccepts(url: string): boolean {
  try {
    // Same check as core's blocks validator, including its placeholder origin for root-relative paths.
    return LINK_PROTOCOLS.has(new URL(url.startsWith('/') ? `https://strapi.io${url}` : url).protocol);
  } catch {
    return false;
  }
}
