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
  return parser;
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
