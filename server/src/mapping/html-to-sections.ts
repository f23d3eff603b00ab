/**
 * Splits post HTML into the ordered sections a dynamic zone stores (Strapi's example blog keeps
 * its body as rich-text, media and quote components): runs of text, standalone images, quotes.
 *
 * Nothing is lost: the text sections are the original source, sliced verbatim, and anything that
 * does not become an image or a quote stays in the text run around it.
 *
 * - A top-level `<img>`, a `<p>` holding only an `<img>`, and a `<figure>` holding an `<img>` and
 *   an optional `<figcaption>` become image sections. An image inside a paragraph with text, or
 *   wrapped in a link, stays in the text: splitting it out would break the sentence or drop the link.
 * - A `<blockquote>` of plain text (paragraphs, line breaks, emphasis) becomes a quote section, its
 *   `<cite>` or `<footer>` the title. One with links, images, lists or embeds (a tweet is a
 *   blockquote with links) stays in the text: a quote's plain-text body could not hold them.
 */
import { isTag, isText, type ChildNode, type Element } from 'domhandler';
import { MAX_NESTING, parseBudget, parseHtml } from './html-parser';

export type TextSection = { type: 'text'; html: string };
export type ImageSection = { type: 'image'; src: string; alt: string; caption?: string };
export type QuoteSection = { type: 'quote'; body: string; title?: string };
export type Section = TextSection | ImageSection | QuoteSection;

/** The quote component's limits: a quote that does not fit stays in the text. */
export type QuoteLimits = { maxBody?: number; maxTitle?: number };

/**
 * Images and quotes one document becomes components for; past it they stay in the text. Each
 * component is rows of its own in both versions: 2,000 quotes cost 15 s and 300 MB to publish.
 */
export const MAX_STANDALONE_SECTIONS = 100;

export type SectionOptions = {
  /** Whether the image at `src` becomes an image section; without it every image stays in the text. */
  image?: (src: string) => boolean;
  /** Set when the zone has a quote component; without it blockquotes stay in the text. */
  quote?: QuoteLimits;
  /**
   * Bounds the parse as the Blocks converter does: the HTML past it stays in the last text
   * section, unparsed, for the text component's own (bounded) conversion.
   */
  maxBlocks?: number;
};

/** Inline markup whose loss in plain text is presentation only. */
const FORMATTING_TAGS = new Set([
  'b',
  'strong',
  'i',
  'em',
  'u',
  's',
  'del',
  'ins',
  'mark',
  'small',
  'sub',
  'sup',
  'code',
  'kbd',
  'span',
  'abbr',
  'q',
  'time',
  'br',
  'wbr',
  'cite',
]);
const QUOTE_TAGS = new Set([...FORMATTING_TAGS, 'p', 'footer']);
/** Dashes and spaces at either end, such as the "— " that introduces an attribution. */
const DASHES = /^[\s\u2014\u2013\u2015-]+|[\s\u2014\u2013\u2015-]+$/g;

export function htmlToSections(html: string, options: SectionOptions = {}): Section[] {
  const sections: Section[] = [];
  let run = '';
  const flushText = () => {
    const text = run.trim();
    if (text) sections.push({ type: 'text', html: text });
    run = '';
  };
  const { maxBlocks = Infinity } = options;
  const { root, end } = parseHtml(html, parseBudget(maxBlocks));
  const nodes = root.children;
  let standaloneCount = 0;
  nodes.forEach((node, index) => {
    const standalone =
      standaloneCount < MAX_STANDALONE_SECTIONS ? standaloneSections(node, html, options) : undefined;
    if (!standalone) {
      // Each top-level node runs to the next one's start, so the runs put together are the whole input.
      run += html.slice(node.startIndex ?? 0, nodes[index + 1]?.startIndex ?? end);
      return;
    }
    flushText();
    sections.push(...standalone);
    standaloneCount += 1;
  });
  run += html.slice(end);
  flushText();
  return sections;
}

/** The image or quote sections a top-level node becomes, or undefined when it stays in the text. */
function standaloneSections(node: ChildNode, html: string, options: SectionOptions): Section[] | undefined {
  if (!isTag(node)) return undefined;
  if (node.name === 'blockquote' && options.quote) {
    const quote = quoteOf(node, options.quote);
    return quote && [quote];
  }
  const figure = imageOf(node);
  const src = figure?.image.attribs.src?.trim();
  if (!figure || !src || !options.image?.(src)) return undefined;
  const caption = figure.caption && plainText(figure.caption);
  const alt = figure.image.attribs.alt?.trim() || caption || '';
  const image: ImageSection = { type: 'image', src, alt, ...(caption ? { caption } : {}) };
  // A caption with links keeps them in the text right after the image; the file gets its plain text.
  const richCaption = figure.caption && !onlyTags(figure.caption, FORMATTING_TAGS);
  return richCaption
    ? [image, { type: 'text', html: `<p>${innerSource(html, figure.caption!)}</p>` }]
    : [image];
}

function imageOf(node: Element): { image: Element; caption?: Element } | undefined {
  if (node.name === 'img') return { image: node };
  // The caption's walks (plainText, onlyTags) recurse once per level: a figure nested too deep stays in the text.
  if (!nestsWithin(node, MAX_NESTING)) return undefined;
  const children = node.children.filter((child) => !isBlankText(child));
  if (!children.every(isTag)) return undefined;
  const [image, caption, ...rest] = children as Element[];
  if (image?.name !== 'img' || rest.length > 0) return undefined;
  if (node.name === 'p' && !caption) return { image };
  if (node.name === 'figure' && (!caption || caption.name === 'figcaption')) return { image, caption };
  return undefined;
}

function quoteOf(node: Element, limits: QuoteLimits): QuoteSection | undefined {
  // The walks below recurse once per level; a quote nested as deep as the Blocks converter keeps as HTML stays in the text.
  if (!nestsWithin(node, MAX_NESTING) || !onlyTags(node, QUOTE_TAGS)) return undefined;
  const attribution = findLast(node, (element) => element.name === 'cite' || element.name === 'footer');
  let title = attribution ? plainText(attribution).replace(DASHES, '') : '';
  let body = plainText(node, attribution).replace(DASHES, '');
  if (title && limits.maxTitle !== undefined && title.length > limits.maxTitle) {
    body = `${body}\n\u2014 ${title}`;
    title = '';
  }
  if (!body || (limits.maxBody !== undefined && body.length > limits.maxBody)) return undefined;
  return { type: 'quote', body, ...(title ? { title } : {}) };
}

/** The text as read: paragraphs apart by a blank line, `<br>` a line break, other whitespace collapsed. */
function plainText(node: ChildNode, skip?: Element): string {
  const raw = (function text(current: ChildNode): string {
    if (isText(current)) return current.data.replace(/\s+/g, ' ');
    if (!isTag(current) || current === skip) return '';
    if (current.name === 'br') return '\n';
    const inner = current.children.map(text).join('');
    return current.name === 'p' ? `\n\n${inner}\n\n` : inner;
  })(node);
  return raw
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function onlyTags(node: Element, allowed: ReadonlySet<string>): boolean {
  return node.children.every(
    (child) => isText(child) || (isTag(child) && allowed.has(child.name) && onlyTags(child, allowed))
  );
}

function findLast(node: Element, matches: (element: Element) => boolean): Element | undefined {
  for (const child of [...node.children].reverse()) {
    if (!isTag(child)) continue;
    if (matches(child)) return child;
    const inside = findLast(child, matches);
    if (inside) return inside;
  }
  return undefined;
}

/** Whether no node inside `element` is more than `limit` levels below it. Iterative, as it guards the recursive walks. */
function nestsWithin(element: Element, limit: number): boolean {
  const pending: Array<{ node: ChildNode; depth: number }> = [{ node: element, depth: 0 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.depth > limit) return false;
    if (!isTag(next.node)) continue;
    for (const node of next.node.children) pending.push({ node, depth: next.depth + 1 });
  }
  return true;
}

/** An element's content exactly as written (entities and markup untouched). */
function innerSource(html: string, element: Element): string {
  const first = element.children[0];
  const last = element.children[element.children.length - 1];
  return first && last ? html.slice(first.startIndex ?? 0, (last.endIndex ?? -1) + 1) : '';
}

const isBlankText = (node: ChildNode) => isText(node) && node.data.trim() === '';

/** A dynamic zone entry as the Document Service reads and writes it. */
export type ZoneEntry = { __component: string; id?: number | string; [attribute: string]: unknown };

/**
 * The zone after an update: the new generated components, and every other component (one an
 * editor added, such as a slider) kept where it was: after as many generated components as came
 * before it, or at the end if it came after all of them. Kept entries carry only their id, so
 * Strapi keeps their content untouched.
 */
export function mergeZone(
  current: readonly ZoneEntry[],
  generated: readonly ZoneEntry[],
  isGenerated: (component: string) => boolean
): ZoneEntry[] {
  const generatedBefore = current.filter((entry) => isGenerated(entry.__component)).length;
  const merged: ZoneEntry[] = [];
  let seen = 0;
  let placed = 0;
  for (const entry of current) {
    if (isGenerated(entry.__component)) {
      seen += 1;
      continue;
    }
    const position = seen === generatedBefore ? generated.length : Math.min(seen, generated.length);
    merged.push(...generated.slice(placed, position));
    placed = Math.max(placed, position);
    merged.push({ __component: entry.__component, id: entry.id });
  }
  return [...merged, ...generated.slice(placed)];
}
