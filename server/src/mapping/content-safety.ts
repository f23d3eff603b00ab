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
import { hasChildren, isComment, isTag, type ChildNode, type Document, type Element } from 'domhandler';
import { linearParser, MAX_ATTRIBUTES_PER_ELEMENT } from './html-parser';
import { ExactSpanDomHandler } from './html-to-blocks';

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
function isAllowedEmbed(element: Element, policy: ContentSafetyPolicy): boolean {
  if (element.name !== 'iframe' || element.attribs.src === undefined) return false;
  try {
    const url = new URL(element.attribs.src);
    return url.protocol === 'https:' && !url.username && policy.allowedEmbedHosts.includes(url.hostname);
  } catch {
    return false;
  }
}

/** Where each element's opening tag ends (its `>`), which the tree does not record. */
class OpeningTagsHandler extends ExactSpanDomHandler {
  readonly openingTagEnd = new WeakMap<Element, number>();
  private reading: { endIndex: number | null } = { endIndex: null };

  override onparserinit(parser: { startIndex: number | null; endIndex: number | null }): void {
    super.onparserinit(parser);
    this.reading = parser;
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    super.onopentag(name, attribs);
    const element = this.tagStack[this.tagStack.length - 1];
    if (isTag(element)) this.openingTagEnd.set(element, this.reading.endIndex!);
  }
}

/**
 * Where a tag left open at the end of `html` starts. Browsers and the parser drop it, but a page
 * that prints the stored HTML inside its own markup would end it with the next `>` there, with its
 * attributes live.
 */
function unfinishedTagAtEnd(html: string, root: Document): number | undefined {
  const tail = /<[a-zA-Z/!?][^>]*$/.exec(html);
  if (!tail) return undefined;
  let last: ChildNode | Document = root;
  while (hasChildren(last) && last.children.length > 0) last = last.children[last.children.length - 1];
  // Read as text (in a raw-text element or a comment left open) when the last node reaches it.
  const readTo = last === root ? -1 : (last as ChildNode).endIndex!;
  return readTo < tail.index ? tail.index : undefined;
}

/** One change to the source: `[start, end)` replaced by `text`. */
type Edit = { start: number; end: number; text: string };

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');

export interface SafeHtml {
  html: string;
  /** What was dropped, once each, in document order: `<script>`, `onclick`, `href=javascript:`. */
  dropped: string[];
}

/** `html` with nothing live left but the embeds `policy` allows (see the module's comment). */
export function safeHtml(html: string, policy: ContentSafetyPolicy): SafeHtml {
  const options = { decodeEntities: true, withStartIndices: true, withEndIndices: true };
  const handler = new OpeningTagsHandler(undefined, options);
  linearParser(handler, options).end(html);
  const edits: Edit[] = [];
  const dropped = new Set<string>();
  // Iterative and in document order, so the edits come sorted and deep nesting costs no stack.
  const pending: ChildNode[] = [...handler.root.children].reverse();
  for (let node = pending.pop(); node; node = pending.pop()) {
    // A browser ends a CDATA section (`<![CDATA[…>`) and a comment (`--!>`) at a `>` where
    // htmlparser2 reads on: the markup after it would be live, unseen here.
    if (isComment(node) && node.data.includes('>')) {
      edits.push({ start: node.startIndex!, end: node.endIndex! + 1, text: '' });
      dropped.add('a comment holding ">"');
    }
    if (!isTag(node)) continue;
    if (REMOVED_ELEMENTS.has(node.name) && !isAllowedEmbed(node, policy)) {
      edits.push({ start: node.startIndex!, end: node.endIndex! + 1, text: '' });
      dropped.add(`<${node.name}>`);
      continue;
    }
    const attributes = Object.entries(node.attribs);
    const kept = attributes.filter(([name, value]) => {
      const why = droppedAttribute(node.name, name, value);
      if (why) dropped.add(why);
      return !why;
    });
    // At the parser's limit the source may hold attributes past it, unread: the tag is written anew.
    const mayHoldUnread = attributes.length >= MAX_ATTRIBUTES_PER_ELEMENT;
    const openingTagEnd = handler.openingTagEnd.get(node);
    if ((kept.length < attributes.length || mayHoldUnread) && openingTagEnd !== undefined) {
      const text = `<${node.name}${kept.map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`).join('')}>`;
      edits.push({ start: node.startIndex!, end: openingTagEnd + 1, text });
    }
    for (let index = node.children.length - 1; index >= 0; index -= 1) pending.push(node.children[index]);
  }
  const unfinished = unfinishedTagAtEnd(html, handler.root);
  if (unfinished !== undefined) {
    edits.push({ start: unfinished, end: html.length, text: '' });
    dropped.add('an unfinished tag at the end');
  }
  if (edits.length === 0) return { html, dropped: [] };
  let result = '';
  let from = 0;
  for (const edit of edits) {
    result += html.slice(from, edit.start) + edit.text;
    from = edit.end;
  }
  return { html: result + html.slice(from), dropped: [...dropped] };
}
