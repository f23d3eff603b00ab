import { DomHandler, isTag, type Document, type Element } from 'domhandler';
import { Parser, type Handler, type ParserOptions } from 'htmlparser2';

/**
 * htmlparser2 10 keeps its open elements (and foreign-content flags) top first in an array,
 * adding and removing at the front with `unshift` and `shift`: each tag then costs as much as
 * the current depth, and 100,000 nested tags took 7 s to parse. This keeps the top at the end.
 * The parser reads `[0]` (the top) and, at the end of the document, deeper entries only to name
 * the elements it closes for the handler, which does not use the name.
 */
class TopLastStack<T> {
  private readonly items: T[];
  /** How many times each value is on the stack, so a search for one that is not costs nothing. */
  private readonly counts = new Map<T, number>();

  constructor(topFirst: readonly T[] = []) {
    this.items = [...topFirst].reverse();
    this.items.forEach((item) => this.count(item, 1));
  }

  get length(): number {
    return this.items.length;
  }

  set length(length: number) {
    this.items.length = length;
    this.counts.clear();
    this.items.forEach((item) => this.count(item, 1));
  }

  get 0(): T | undefined {
    return this.items[this.items.length - 1];
  }

  unshift(item: T): number {
    this.count(item, 1);
    return this.items.push(item);
  }

  shift(): T | undefined {
    if (this.items.length === 0) return undefined;
    const item = this.items.pop()!;
    this.count(item, -1);
    return item;
  }

  /** The distance from the top, as on the parser's array. */
  indexOf(item: T): number {
    if (!this.counts.get(item)) return -1;
    return this.items.length - 1 - this.items.lastIndexOf(item);
  }

  private count(item: T, change: number) {
    this.counts.set(item, (this.counts.get(item) ?? 0) + change);
  }
}

/**
 * Attributes of one element that the parser keeps; it reads past the others. The converters read
 * a few (href, src, alt, title, class), and markup kept as HTML seldom has more than a dozen, while
 * an element of 300,000 attributes would make every later step (a tree, Turndown) pay for each.
 */
export const MAX_ATTRIBUTES_PER_ELEMENT = 32;

/**
 * Elements whose content browsers read as raw text, up to their own end tag, while htmlparser2
 * reads it as markup (it does so for script, style, textarea, title and xmp only). Read as markup,
 * `<div><noembed></div><table>…<img onerror=…>` had a live image that a browser shows as text,
 * and the Markdown written from that tree made it live (fifth attack review). `plaintext` runs to
 * the end of the document: its sequence can never match.
 */
const RAW_TEXT_END = new Map<string, ArrayLike<number>>([
  ['iframe', sequence('</iframe')],
  ['noembed', sequence('</noembed')],
  ['noframes', sequence('</noframes')],
  ['noscript', sequence('</noscript')],
  ['plaintext', [0x3c, 0x2f, 0x10000]],
]);
function sequence(text: string): Uint8Array {
  return new Uint8Array([...text].map((character) => character.charCodeAt(0)));
}

/**
 * An htmlparser2 parser whose cost per tag does not grow with the nesting depth, which keeps at
 * most MAX_ATTRIBUTES_PER_ELEMENT attributes of an element, and which reads the content of the
 * RAW_TEXT_END elements as text, as browsers do.
 */
export function linearParser(handler: Partial<Handler>, options?: ParserOptions): Parser {
  const parser = new Parser(handler, options);
  const internals = parser as unknown as {
    stack: unknown;
    foreignContext: boolean[];
    attribs: Record<string, string> | null;
    attribvalue: string;
    tagname: string;
    tokenizer: { isSpecial: boolean; currentSequence: ArrayLike<number>; buffer: string; offset: number };
  };
  internals.stack = new TopLastStack<string>();
  internals.foreignContext = new TopLastStack(internals.foreignContext) as unknown as boolean[];
  // Once the tag's name is read, the tokenizer reads the content as it reads a script's: as text
  // up to the end-tag sequence.
  const openTagName = parser.onopentagname.bind(parser);
  parser.onopentagname = (start, endIndex) => {
    openTagName(start, endIndex);
    const end = RAW_TEXT_END.get(internals.tagname);
    if (end) Object.assign(internals.tokenizer, { isSpecial: true, currentSequence: end });
  };
  // The parser starts a new `attribs` object for each element it reports with its attributes.
  const keepAttribute = parser.onattribend.bind(parser);
  let attributesOf: object | null = null;
  let kept = 0;
  parser.onattribend = (quote, endIndex) => {
    if (internals.attribs !== attributesOf) {
      attributesOf = internals.attribs;
      kept = 0;
    }
    if (kept < MAX_ATTRIBUTES_PER_ELEMENT) {
      kept += 1;
      keepAttribute(quote, endIndex);
    } else {
      internals.attribvalue = '';
    }
  };
  endEndTagsAtTheirBracket(parser, handler, internals.tokenizer);
  endOpenElementsWithTheDocument(parser, internals.tokenizer);
  return parser;
}

/**
 * At the end of the document htmlparser2 closes the elements still open where its last token
 * started, and drops a tag left unterminated there (`<p><a/! `): an element's source sliced from
 * those indexes lost that tag's last characters. The elements the document's end closes end with
 * the document, so a fallback keeps every character of its source.
 */
function endOpenElementsWithTheDocument(parser: Parser, tokenizer: { buffer: string; offset: number }) {
  const endDocument = parser.onend.bind(parser);
  parser.onend = () => {
    parser.startIndex = tokenizer.offset + tokenizer.buffer.length;
    endDocument();
  };
}

/**
 * htmlparser2 ends an end tag where its name ends, so after `</a href="#y">` or `</table >` the
 * node that follows started, and the element it closed ended, inside the tag: a fallback sliced
 * from those indexes began with `href="#y">` or lost the `>`. Both are moved to the tag's `>`.
 */
function endEndTagsAtTheirBracket(
  parser: Parser,
  handler: Partial<Handler>,
  tokenizer: { buffer: string; offset: number }
) {
  let endTagEnd: number | undefined;
  const closeTag = parser.onclosetag.bind(parser);
  parser.onclosetag = (start, endIndex) => {
    // The converters give the parser the whole document at once; a tag with no `>` runs to its end.
    const bracket = tokenizer.buffer.indexOf('>', endIndex - tokenizer.offset);
    endTagEnd = bracket === -1 ? endIndex : bracket + tokenizer.offset;
    closeTag(start, endIndex);
    parser.startIndex = endTagEnd + 1;
    endTagEnd = undefined;
  };
  // The handler reads where a closed element ends from the parser, which its own end tag set.
  const closeElement = handler.onclosetag?.bind(handler);
  if (!closeElement) return;
  handler.onclosetag = (name, isImplied) => {
    if (endTagEnd !== undefined) parser.endIndex = endTagEnd;
    closeElement(name, isImplied);
  };
}

/**
 * How many top-level nodes, and nodes in all, a conversion may read. Parsing builds a tree of
 * every node before a converter sees it, so a bound must stop the parser itself.
 */
export interface ParseBudget {
  topLevel: number;
  nodes: number;
}

/**
 * How deep elements may nest before the rest is kept verbatim. Past it, conversion would cost
 * more and more per level while nothing readable is gained.
 */
export const MAX_NESTING = 32;

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

/**
 * The outermost elements nested deeper than MAX_NESTING. The converter keeps each of them whole
 * and every walk over the tree stops at them, so no walk goes deeper than MAX_NESTING levels.
 */
const NESTED_TOO_DEEP = new WeakSet<Element>();

export const isNestedTooDeep = (element: Element): boolean => NESTED_TOO_DEEP.has(element);

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
