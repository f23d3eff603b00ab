/**
 * What of stored content a browser would run, load as a document or submit: the oracle the
 * content-safety tests hold every output to (HTML, Markdown as a renderer shows it, Blocks).
 */
import { DomUtils, parseDocument } from 'htmlparser2';
import { isTag, type Element } from 'domhandler';
import MarkdownIt from 'markdown-it';

/** A scheme as a browser reads it: entities decoded (by the parser), controls and spaces ignored. */
// eslint-disable-next-line no-control-regex -- browsers skip control characters in a scheme: so does this
const schemeOf = (url: string) => /^([^/?#]*?):/.exec(url.replace(/[\u0000-\u0020]/g, ''))?.[1].toLowerCase();
const RUNNABLE_SCHEMES = new Set(['javascript', 'vbscript', 'data']);
const isRasterDataImage = (url: string) =>
  // eslint-disable-next-line no-control-regex -- as schemeOf: control characters are skipped
  /^data:image\/(png|jpeg|gif|webp|avif);/i.test(url.replace(/[\u0000-\u0020]/g, ''));

const LIVE_ELEMENTS = new Set([
  'script',
  'iframe',
  'frame',
  'object',
  'embed',
  'applet',
  'style',
  'form',
  'meta',
  'base',
  'link',
  'svg',
  'math',
]);

/** What of `html` a browser would run, load as a document, or submit: none is allowed. */
export function liveParts(html: string): string[] {
  const elements = DomUtils.findAll(() => true, parseDocument(html).children) as Element[];
  return elements.filter(isTag).flatMap((element) => {
    const liveElement = LIVE_ELEMENTS.has(element.name) ? [`<${element.name}>`] : [];
    const liveAttributes = Object.entries(element.attribs).flatMap(([name, value]) => {
      if (name.startsWith('on') || name === 'srcdoc') return [`${element.name} ${name}`];
      const urls = name === 'srcset' ? value.split(',').map((part) => part.trim().split(/\s+/)[0]) : [value];
      const runnable = urls.filter(
        (url) =>
          RUNNABLE_SCHEMES.has(schemeOf(url) ?? '') &&
          !(element.name === 'img' && name === 'src' && isRasterDataImage(url))
      );
      return runnable.map((url) => `${element.name} ${name}=${url}`);
    });
    return [...liveElement, ...liveAttributes];
  });
}

/** Blocks hold no markup: only their links and images point anywhere (code blocks are text). */
export function liveBlockUrls(blocks: unknown): string[] {
  const urls: string[] = [];
  JSON.stringify(blocks, (key, value) => {
    if (key === 'url' && typeof value === 'string') urls.push(value);
    return value;
  });
  return urls.filter((url) => RUNNABLE_SCHEMES.has(schemeOf(url) ?? '') && !isRasterDataImage(url));
}

/**
 * A CommonMark renderer that passes HTML through, as a frontend showing the Markdown does, and
 * links whatever a link names: markdown-it refuses javascript: links itself, other renderers
 * (marked) do not, so the oracle must not count on it.
 */
export const markdownRenderer = new MarkdownIt({ html: true });
markdownRenderer.validateLink = () => true;
/** An HTML field that held nothing but what the policy drops is stored empty (null). */
export const live = (output: 'blocks' | 'html' | 'markdown', value: unknown): string[] => {
  if (output === 'blocks') return liveBlockUrls(value);
  const text = (value as string | null) ?? '';
  return liveParts(output === 'markdown' ? markdownRenderer.render(text) : text);
};
