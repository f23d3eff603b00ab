/**
 * The one content-safety policy of a post's HTML, applied before it becomes Blocks, Markdown or
 * the HTML of a `richtext` attribute, so every stored form keeps the same: nothing a browser
 * would run, load as a document, or submit elsewhere. Markdown renderers pass HTML through, and
 * before this its `javascript:` links and iframes stayed live where Blocks dropped them (issue 38).
 *
 * What goes: the elements in REMOVED_ELEMENTS with all they hold (an iframe stays when its https
 * host is one of the site's `content.allowedEmbedHosts`), event handlers (`on…`) and `srcdoc`, and
 * every URL attribute whose scheme is not http, https, ftp, mailto or tel (the link schemes
 * Strapi's Blocks accept); an image's `src` may also be a raster `data:image/…`. HTML with none of
 * these is returned as it was sent, to the byte; otherwise only the offending elements and
 * opening tags are rewritten, the rest of the source is kept.
 */
import type { Handler } from 'htmlparser2';
import { linearParser, MAX_ATTRIBUTES_PER_ELEMENT } from './html-parser';

export interface ContentSafetyPolicy {
  /** Hosts whose https iframes (a YouTube or Vimeo player) are kept live. */
  allowedEmbedHosts: readonly string[];
}

/** Elements that run code, embed another document, submit a form or change the page around them. */
const REMOVED_ELEMENTS = new Set([
  'script',
  'style',
  'iframe',
  'frame',
  'frameset',
  'object',
  'embed',
  'applet',
  'portal',
  'form',
  'base',
  'link',
  'meta',
  'template',
  // SVG and MathML carry scripts, handlers and animated `href`s of their own.
  'svg',
  'math',
  // htmlparser2 reads their content as text, a browser as markup inside a <select>: the two
  // would disagree on what is live.
  'title',
  'textarea',
  // Their content is text to a browser with scripts on and markup to others: see html-parser.
  'noscript',
  'noembed',
  'noframes',
  'xmp',
  'plaintext',
]);

/** Attributes a browser follows, loads or submits to. */
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'data',
  'poster',
  'background',
  'cite',
  'longdesc',
  'lowsrc',
  'dynsrc',
  'codebase',
  'ping',
  'manifest',
  'icon',
  'xlink:href',
]);
const URL_LIST_ATTRIBUTES = new Set(['srcset', 'imagesrcset']);

const SAFE_SCHEMES = new Set(['http', 'https', 'ftp', 'mailto', 'tel']);
/** Pictures that cannot hold a script (an SVG can). */
const RASTER_DATA_IMAGE = /^data:image\/(png|jpeg|gif|webp|avif)[;,]/;
/** Names a tag can be written back with; anything else the parser read as a name is left out. */
// eslint-disable-next-line no-control-regex -- a control character in a name is what this refuses
const ATTRIBUTE_NAME = /^[^\s"'>/=\u0000-\u001f\u007f]+$/;

/**
 * A URL without the characters browsers skip in a scheme (tabs and line breaks anywhere, controls
 * and spaces around it); removing every control and space is stricter still. Entities were
 * decoded by the parser.
 */
// eslint-disable-next-line no-control-regex -- browsers skip control characters in a scheme: so must this
const compact = (url: string) => url.replace(/[\u0000-\u0020\u007f]/g, '').toLowerCase();

/** The scheme of a URL, or undefined for a relative one (no `:` before its path, query or fragment). */
function schemeOf(url: string): string | undefined {
  const compacted = compact(url);
  const end = compacted.search(/[:/?#]/);
  return end !== -1 && compacted[end] === ':' ? compacted.slice(0, end) : undefined;
}

function isSafeUrl(element: string, attribute: string, url: string): boolean {
  const scheme = schemeOf(url);
  if (scheme === undefined || SAFE_SCHEMES.has(scheme)) return true;
  return element === 'img' && attribute === 'src' && RASTER_DATA_IMAGE.test(compact(url));
}

/** Why an attribute is dropped (its name, with the scheme of a URL), or undefined when it is kept. */
function droppedAttribute(element: string, name: string, value: string): string | undefined {
  if (!ATTRIBUTE_NAME.test(name) || name.startsWith('on') || name === 'srcdoc') return name;
  // A candidate list's words are URLs, widths and densities (which have no scheme).
  const urls = URL_ATTRIBUTES.has(name)
    ? [value]
    : URL_LIST_ATTRIBUTES.has(name)
      ? value.split(/[\s,]+/)
      : [];
  const unsafe = urls.find((url) => !isSafeUrl(element, name, url));
  return unsafe === undefined ? undefined : `${name}=${schemeOf(unsafe)}:`;
}

/** An iframe the site opted in to: https, on a listed host (the URL's own host, not its path). */
function isAllowedEmbed(name: string, attribs: Record<string, string>, policy: ContentSafetyPolicy): boolean {
  if (name !== 'iframe' || attribs.src === undefined) return false;
  try {
    const url = new URL(attribs.src);
    return url.protocol === 'https:' && !url.username && policy.allowedEmbedHosts.includes(url.hostname);
  } catch {
    return false;
  }
}

/** One change to the source: `[start, end)` replaced by `text`. */
type Edit = { start: number; end: number; text: string };

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

export interface SafeHtml {
  html: string;
  /** What was dropped, once each, in document order: `<script>`, `onclick`, `href=javascript:`. */
  dropped: string[];
}

/**
 * Reads the HTML as a stream of tags, never as a tree: a 10 MB body of small elements would make
 * a tree of several hundred MB, while this keeps the names of the open elements and the edits.
 */
class SafetyScanner implements Partial<Handler> {
  readonly edits: Edit[] = [];
  readonly dropped = new Set<string>();
  /** Set once the whole source was read: elements closed then run to its end. */
  ending = false;
  /** How far the source was read as tags, text or comments (a tag left unfinished is not read). */
  readTo = -1;
  private depth = 0;
  /** The element being removed with all it holds: its depth and where it starts. */
  private removing: { depth: number; start: number } | undefined;
  private position: { startIndex: number; endIndex: number } = { startIndex: 0, endIndex: 0 };

  constructor(
    private readonly policy: ContentSafetyPolicy,
    private readonly length: number
  ) {}

  onparserinit(parser: { startIndex: number; endIndex: number }): void {
    this.position = parser;
  }

  onopentag(name: string, attribs: Record<string, string>): void {
    this.depth += 1;
    this.read();
    if (this.removing) return;
    const { startIndex, endIndex } = this.position;
    if (REMOVED_ELEMENTS.has(name) && !isAllowedEmbed(name, attribs, this.policy)) {
      this.removing = { depth: this.depth, start: startIndex };
      this.dropped.add(`<${name}>`);
      return;
    }
    const attributes = Object.entries(attribs);
    const kept = attributes.filter(([attribute, value]) => {
      const why = droppedAttribute(name, attribute, value);
      if (why) this.dropped.add(why);
      return !why;
    });
    // At the parser's limit the source may hold attributes past it, unread: the tag is written anew.
    const mayHoldUnread = attributes.length >= MAX_ATTRIBUTES_PER_ELEMENT;
    if (kept.length < attributes.length || mayHoldUnread) {
      const text = `<${name}${kept.map(([attribute, value]) => ` ${attribute}="${escapeAttribute(value)}"`).join('')}>`;
      this.edits.push({ start: startIndex, end: endIndex + 1, text });
    }
  }

  onclosetag(_name: string, isImplied: boolean): void {
    const removing = this.removing;
    if (removing && this.depth === removing.depth) {
      this.removing = undefined;
      this.edits.push({ start: removing.start, end: this.endOfClosed(removing.start, isImplied), text: '' });
    }
    this.depth -= 1;
    // The elements still open at the end are closed with the position of the last token.
    if (!this.ending) this.read();
  }

  /**
   * Where an element that closes now ends: after its end tag; before the token that closed it
   * implicitly (a parent's end tag); at its own `>` for a void element; at the source's end for
   * one still open there.
   */
  private endOfClosed(start: number, isImplied: boolean): number {
    if (this.ending) return this.length;
    const { startIndex, endIndex } = this.position;
    return isImplied && startIndex > start ? startIndex : endIndex + 1;
  }

  ontext(): void {
    this.read();
  }

  oncomment(data: string): void {
    this.read();
    // A browser ends a CDATA section (`<![CDATA[…>`) and a comment (`--!>`) at a `>` where
    // htmlparser2 reads on: the markup after it would be live, unseen here.
    if (this.removing || !data.includes('>')) return;
    this.edits.push({ start: this.position.startIndex, end: this.position.endIndex + 1, text: '' });
    this.dropped.add('a comment holding ">"');
  }

  private read() {
    this.readTo = Math.max(this.readTo, this.position.endIndex);
  }
}

/**
 * Where a tag left open at the end of `html` starts, unless it was read as text (in a raw-text
 * element or a comment left open). Browsers and the parser drop it, but a page that prints the
 * stored HTML inside its own markup would end it with the next `>` there, with its attributes live.
 */
function unfinishedTagAtEnd(html: string, readTo: number): number | undefined {
  const tail = /<[a-zA-Z/!?][^>]*$/.exec(html);
  return tail && readTo < tail.index ? tail.index : undefined;
}

/** Passes after which HTML that still changes is kept as text: a removal made a new tag each time. */
const MAX_PASSES = 4;

const asText = (html: string) => html.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * `html` with nothing live left but the embeds `policy` allows (see the module's comment). A cut
 * joins the text around it, which can make a tag of its own (`a<<script></script>img onerror…>`):
 * the result is read again until nothing changes; HTML still changing after MAX_PASSES is stored
 * as text.
 */
export function safeHtml(html: string, policy: ContentSafetyPolicy): SafeHtml {
  const dropped = new Set<string>();
  let current = html;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    const once = safeHtmlOnce(current, policy);
    if (once.html === current) return { html: current, dropped: [...dropped] };
    once.dropped.forEach((what) => dropped.add(what));
    current = once.html;
  }
  dropped.add('markup that made new tags each time some was removed (kept as text)');
  return { html: asText(current), dropped: [...dropped] };
}

/** One reading of `html`: what it drops, and the source with those parts cut out or rewritten. */
function safeHtmlOnce(html: string, policy: ContentSafetyPolicy): SafeHtml {
  const options = { decodeEntities: true };
  const scanner = new SafetyScanner(policy, html.length);
  const parser = linearParser(scanner, options);
  parser.write(html);
  scanner.ending = true;
  parser.end();
  // Edits come in document order, but a removed element's edit is known at its end, after those
  // of the elements before it closed: sorted by where they start.
  const edits = scanner.edits.sort((first, second) => first.start - second.start);
  const unfinished = unfinishedTagAtEnd(html, scanner.readTo);
  if (unfinished !== undefined) {
    edits.push({ start: unfinished, end: html.length, text: '' });
    scanner.dropped.add('an unfinished tag at the end');
  }
  if (edits.length === 0) return { html, dropped: [] };
  let result = '';
  let from = 0;
  for (const edit of edits) {
    // Inside what an edit before it removed: a tag left unfinished in an element open to the end.
    if (edit.start < from) continue;
    result += html.slice(from, edit.start) + edit.text;
    from = edit.end;
  }
  return { html: result + html.slice(from), dropped: [...scanner.dropped] };
}
