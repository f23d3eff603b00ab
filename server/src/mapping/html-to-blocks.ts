/**
 * Converts post HTML into the value Strapi 5 stores for a `blocks` attribute.
 *
 * The nodes are `blocks.ts`'s; the HTML is read by `html-parser.ts`, within a budget and a nesting limit.
 *
 * Nothing in the post is silently lost: markup Blocks cannot hold is kept verbatim in an
 * `html` code block and reported in `fallbacks`, so an editor or the front end can deal with it.
 */
import { isTag, isText, type ChildNode, type Element } from 'domhandler';
import {
  compactInlines,
  inlineText,
  isLinkStrapiAccepts,
  joinLines,
  orEmptyText,
  textLeaf,
  type BlockNode,
  type BlocksImage,
  type CodeNode,
  type HeadingNode,
  type ImageNode,
  type InlineNode,
  type ListItemNode,
  type ListNode,
  type Marks,
  type ParagraphNode,
  type TextNode,
} from './blocks';
import {
  codeLanguage,
  collapseWhitespace,
  CONTAINER_TAGS,
  HEADING_LEVEL,
  isCodeMarkup,
  isContent,
  isPhrasing,
  isUnknownInlineWrapper,
  MARK_BY_TAG,
  PHRASE_TAGS,
  preformattedText,
  UNSUPPORTED_TAGS,
} from './html-elements';
import { isNestedTooDeep, parseBudget, parseHtml } from './html-parser';

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
    if (isNestedTooDeep(element)) {
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

function paragraph(children: InlineNode[]): ParagraphNode {
  return { type: 'paragraph', children };
}

function heading(level: HeadingNode['level']): TextBlockFactory {
  return (children) => ({ type: 'heading', level, children });
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
