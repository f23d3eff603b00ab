/**
 * What each HTML element is to a Blocks conversion (a mark, a heading, phrasing, a layout wrapper,
 * markup Blocks has no node for) and how an element's text reads, whitespace as a browser lays it out.
 */
import { isTag, isText, type ChildNode, type Element } from 'domhandler';
import type { HeadingNode, Mark } from './blocks';
import { isNestedTooDeep } from './html-parser';

// Maps, not object literals: a custom element may be called `<constructor>`.
export const MARK_BY_TAG: ReadonlyMap<string, Mark> = new Map([
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

export const HEADING_LEVEL: ReadonlyMap<string, HeadingNode['level']> = new Map([
  ['h1', 1],
  ['h2', 2],
  ['h3', 3],
  ['h4', 4],
  ['h5', 5],
  ['h6', 6],
]);

/** Inline wrappers whose only loss is presentation, so their text flows on unwrapped. */
export const PHRASE_TAGS = new Set([
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
export const CONTAINER_TAGS = new Set([
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
export const UNSUPPORTED_TAGS = new Set([
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

// HTML whitespace only: a non-breaking space (&nbsp;) is content.
const HTML_WHITESPACE = /[ \t\n\r\f]+/g;

export function collapseWhitespace(text: string): string {
  return text.replace(HTML_WHITESPACE, ' ');
}

function isBlank(text: string): boolean {
  return text.replace(HTML_WHITESPACE, '') === '';
}

/** Whitespace text and comments between list items are not content. */
export function isContent(node: ChildNode): boolean {
  return isTag(node) || (isText(node) && !isBlank(node.data));
}

/** Whether the node can be carried by text leaves (and, when `allowLinks`, links): no blocks, images or embeds. */
export function isPhrasing(node: ChildNode, allowLinks: boolean): boolean {
  if (!isTag(node)) return true;
  if (isNestedTooDeep(node)) return false;
  const { name } = node;
  if (name === 'br') return true;
  if (BLOCK_TAGS.has(name) || CONTAINER_TAGS.has(name) || UNSUPPORTED_TAGS.has(name)) return false;
  if (name === 'a' && node.attribs.href !== undefined && !allowLinks) return false;
  return node.children.every((child) => isPhrasing(child, allowLinks));
}

/** An unknown element is unwrapped only when it just wraps text; otherwise it may be a widget that needs its markup. */
export function isUnknownInlineWrapper(element: Element): boolean {
  // Phrasing first: it stops at content nested too deep, which textContent would walk whole.
  return element.children.every((child) => isPhrasing(child, true)) && !isBlank(textContent(element));
}

export function isCodeMarkup(node: ChildNode): boolean {
  if (!isTag(node)) return true;
  return !isNestedTooDeep(node) && CODE_MARKUP_TAGS.has(node.name) && node.children.every(isCodeMarkup);
}

export function preformattedText(pre: Element): string {
  const text = textContent(pre);
  const first = pre.children[0];
  // The HTML parsing rules drop one newline right after `<pre>`, so authors can start code on the next line.
  return first && isText(first) && /^\r?\n/.test(first.data) ? text.replace(/^\r?\n/, '') : text;
}

/** `language-x` (or `lang-x`) on the `<code>` inside, else on the `<pre>` itself. */
export function codeLanguage(pre: Element): string | undefined {
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
