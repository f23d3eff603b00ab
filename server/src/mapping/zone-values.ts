/**
 * Values made of HTML and the request's imported images: Blocks, media attributes and dynamic
 * zones, each shortfall noted. Pure: the HTML's conversion, the limits and the text component's
 * value come from the caller, the notes go back with the request's answer.
 */
import type { ContractInput, MediaMap } from '../services/types';
import type { Resource } from '../resources';
import { displayUrl } from '../utils/display-url';
import { MAX_NESTING, parseBudget } from './html-parser';
import { imageSources, resolveImages, type HtmlToBlocksResult } from './html-to-blocks';
import { htmlToSections, mergeZone, type Section, type ZoneEntry } from './html-to-sections';
import type { FieldTarget, ZoneComponents } from './resolve';

/** The plugin config's limits these values are made within. */
export type ContentLimits = { maxBlocks: number; maxInlineImages: number };

/** Only images on the web are downloaded: a relative or data: source stays in the HTML. */
export const isWebUrl = (src: string) => /^https?:\/\//i.test(src);

/** How the zone's HTML is split: an image section only where the zone has an image component. */
export const zoneSectionOptions = (
  zone: ZoneComponents,
  importable: (src: string) => boolean,
  maxBlocks: number
) => ({
  image: zone.image ? importable : undefined,
  quote: zone.quote?.limits,
  maxBlocks,
});

/** The zone's text component's attribute, as a target of its own. */
export const zoneTextTarget = (target: FieldTarget): FieldTarget => {
  const { text } = target.zone!;
  return { ...target, attributeType: text.attributeType, customField: text.customField };
};

/** `kept`: where the HTML past the limit went. */
export const blockLimitNote = (field: string, kept: string, maxBlocks: number) =>
  `${field}: the HTML is longer than content.maxBlocks lets the site convert (${maxBlocks} blocks, or ${parseBudget(maxBlocks).nodes} HTML elements); the first part was converted and the rest kept ${kept}. Raise content.maxBlocks in the plugin config to convert more.`;

/** The Media Library id of the image at `url`, or undefined with a note saying why it has none. */
export function mediaId(media: MediaMap, url: string, field: string, notes: string[]): number | undefined {
  const result = media.get(url);
  if (result?.ok) return result.file.id;
  notes.push(
    `${field}: the image ${displayUrl(url)} was not imported (${result ? result.reason : 'not attempted'}).`
  );
  return undefined;
}

/**
 * A media attribute gets the imported files, or keeps what it holds when an image failed: a
 * publisher's image host being down must not empty a gallery or remove a cover.
 */
export function mediaValue(
  target: FieldTarget,
  field: string,
  value: unknown,
  media: MediaMap,
  notes: string[]
) {
  if (value === '') return null;
  const urls = Array.isArray(value)
    ? (value as Array<{ url: string }>).map((image) => image.url)
    : [value as string];
  const ids = urls.map((url) => mediaId(media, url, field, notes));
  if (ids.every((id) => id !== undefined)) return Array.isArray(value) || target.multiple ? ids : ids[0];
  notes.push(`${field}: kept as it was, since not every image was imported; the rest was saved.`);
  return undefined;
}

/** Images that failed or are past `maxInlineImages` stay HTML; each failure and their count are noted. */
export function blocksValue(
  field: string,
  converted: HtmlToBlocksResult,
  media: MediaMap,
  notes: string[],
  limits: ContentLimits
) {
  const overLimit = new Set<string>();
  const failed = new Map<string, string>();
  const { blocks, fallbacks, nestingLimitReached, blockLimitReached } = resolveImages(
    converted,
    (src, alt) => {
      const result = media.get(src);
      if (result && !result.ok) {
        if (result.overLimit) overLimit.add(src);
        else failed.set(src, result.reason);
      }
      return result?.ok ? { ...result.file, alternativeText: alt || result.file.alternativeText } : undefined;
    }
  );
  for (const [src, reason] of failed) {
    // A zone's image that stays in its text was already noted when the zone was split.
    const said = `${field}: the image ${displayUrl(src)} was not imported`;
    if (!notes.some((note) => note.startsWith(said))) notes.push(`${said} (${reason}); it stays as HTML.`);
  }
  if (fallbacks.length > 0) {
    notes.push(
      `${field}: kept as HTML code blocks: ${[...new Set(fallbacks.map((fallback) => `<${fallback.tag}>`))].join(', ')}.`
    );
  }
  if (nestingLimitReached) {
    notes.push(`${field}: markup nested deeper than ${MAX_NESTING} levels was kept as HTML.`);
  }
  if (blockLimitReached) notes.push(blockLimitNote(field, 'as one HTML code block', limits.maxBlocks));
  if (overLimit.size > 0) {
    notes.push(
      `${field}: ${overLimit.size} images past the first ${limits.maxInlineImages} of this request (media.maxInlineImages) were not imported and were kept as HTML.`
    );
  }
  return blocks;
}

/**
 * Images of HTML going into a dynamic zone: each standalone image becomes a media component
 * (imported with its alt text and caption); inline ones count when the text component is Blocks.
 */
export function zoneImageSources(
  resource: Resource,
  input: ContractInput,
  maxBlocks: number,
  blocksOf: (html: string) => HtmlToBlocksResult
) {
  const wanted = new Map<string, { alt?: string; caption?: string }>();
  for (const [field, { zone }] of Object.entries(resource.fields)) {
    const html = input[field];
    if (!zone || typeof html !== 'string') continue;
    for (const section of htmlToSections(html, zoneSectionOptions(zone, isWebUrl, maxBlocks))) {
      if (section.type === 'image')
        wanted.set(section.src, { alt: section.alt || undefined, caption: section.caption });
      if (section.type === 'text' && zone.text.attributeType === 'blocks') {
        for (const src of imageSources(blocksOf(section.html))) if (isWebUrl(src)) wanted.set(src, {});
      }
    }
  }
  return wanted;
}

/** One section as a component of the zone; a text section's value comes from `textValue`. */
async function zoneComponent(
  zone: ZoneComponents,
  section: Section,
  field: string,
  media: MediaMap,
  notes: string[],
  textValue: (html: string) => unknown
): Promise<ZoneEntry> {
  const { text, image, quote } = zone;
  if (section.type === 'image' && image) {
    return { __component: image.uid, [image.attribute]: mediaId(media, section.src, field, notes) };
  }
  if (section.type === 'quote' && quote) {
    const title = quote.title && section.title ? { [quote.title]: section.title } : {};
    return { __component: quote.uid, [quote.body]: section.body, ...title };
  }
  const source = section.type === 'text' ? section.html : '';
  return { __component: text.uid, [text.attribute]: await textValue(source) };
}

/**
 * HTML as the zone's components, in order. On update the components the plugin generates
 * (those of the zone's text, image and quote types) are replaced, and the others stay in place.
 * `textValue` makes a text component's value (Blocks or stored text, as the component holds).
 */
export async function zoneValue(
  field: string,
  target: FieldTarget,
  html: string,
  media: MediaMap,
  notes: string[],
  current: Record<string, unknown> | null | undefined,
  { maxBlocks, textValue }: { maxBlocks: number; textValue: (html: string) => unknown }
): Promise<ZoneEntry[]> {
  const zone = target.zone!;
  const imported = (src: string) => {
    const result = media.get(src);
    if (result && !result.ok)
      notes.push(
        `${field}: the image ${displayUrl(src)} was not imported (${result.reason}); it stays as HTML in the text.`
      );
    return result?.ok === true;
  };
  const sections = htmlToSections(html, zoneSectionOptions(zone, imported, maxBlocks));
  const generated: ZoneEntry[] = [];
  for (const section of sections) {
    generated.push(await zoneComponent(zone, section, field, media, notes, textValue));
  }
  const stored = (current?.[target.attribute] ?? []) as ZoneEntry[];
  const types = new Set([zone.text.uid, zone.image?.uid, zone.quote?.uid]);
  return mergeZone(stored, generated, (uid) => types.has(uid));
}
