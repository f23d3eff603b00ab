import type { Core } from '@strapi/strapi';
import { publishDateToIso } from '../contract/dates';
import type { Seo } from '../contract/schemas';
import { FIELD_ROLES, IDENTIFIER_FIELDS, NAME_FIELD, type NamedKind } from '../mapping/catalogue';
import {
  blocksToPlainText,
  htmlToBlocks,
  imageSources,
  MAX_NESTING,
  parseBudget,
  resolveImages,
  type HtmlToBlocksResult,
} from '../mapping/html-to-blocks';
import { seoComponentValue, seoFallbacks, seoJsonValue, seoParts } from '../mapping/seo-values';
import { fittedText, namesValue } from '../mapping/text-values';
import { htmlToSections, mergeZone, type Section, type ZoneEntry } from '../mapping/html-to-sections';
import type { FieldTarget, ZoneComponents } from '../mapping/resolve';
import type { Resource } from '../resources';
import { displayUrl } from '../utils/display-url';
import type { TimeBudget, WorkerFailure } from '../utils/time-boxed-worker';
import type { LocaleScope } from './locales';
import type { MarkdownConversion } from './markdown';
import type { ImportOptions } from './media';
import type { Transaction } from './transactions';
import type { ContractInput, MediaMap, WriteResult } from './types';
import { getService, pluginConfig } from '../plugin';
import { documentsOf } from '../database/documents';

/**
 * Each HTML value's conversions (to Blocks, to Markdown), made once per request: Blocks when its
 * images are listed for import, and reused when its blocks are written (a request may write
 * twice: draft and published). Keyed by the request's media map, which lives exactly as long as
 * the request.
 */
function conversionCache<V>() {
  const byRequest = new WeakMap<MediaMap, Map<string, V>>();
  return (media: MediaMap, html: string, convert: () => V): V => {
    let conversions = byRequest.get(media);
    if (!conversions) byRequest.set(media, (conversions = new Map()));
    if (!conversions.has(html)) conversions.set(html, convert());
    return conversions.get(html)!;
  };
}
const blocksOnce = conversionCache<HtmlToBlocksResult>();
const markdownOnce = conversionCache<Promise<MarkdownConversion>>();
/** The worker time each request's Markdown conversions share, keyed the same way. */
const MARKDOWN_BUDGETS = new WeakMap<MediaMap, TimeBudget>();

/** Runs `work` on every item, at most `limit` at a time. */
async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
const isWebUrl = (src: string) => /^https?:\/\//i.test(src);

const sectionOptions = (zone: ZoneComponents, importable: (src: string) => boolean, maxBlocks: number) => ({
  image: zone.image ? importable : undefined,
  quote: zone.quote?.limits,
  maxBlocks,
});

const isIdentifier = (field: string, target: FieldTarget) =>
  IDENTIFIER_FIELDS.includes(field) || ['uid', 'email'].includes(target.attributeType ?? '');

/**
 * Turns contract fields into Strapi data for wherever the mapping stores them, choosing the
 * conversion from the target attribute's type. Only fields present in the input are written.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const config = () => pluginConfig(strapi);
  const transactions = (): { run<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> } =>
    getService(strapi, 'transactions');
  const maxBlocks = (): number => config().content.maxBlocks;

  /** `html` as Blocks whose images are not resolved yet. */
  const converted = (media: MediaMap, html: string): HtmlToBlocksResult =>
    blocksOnce(media, html, () => htmlToBlocks(html, { maxBlocks: maxBlocks() }));

  const convertedToMarkdown = (media: MediaMap, html: string): Promise<MarkdownConversion> =>
    markdownOnce(media, html, () => {
      const markdown = getService(strapi, 'markdown');
      let budget = MARKDOWN_BUDGETS.get(media);
      if (!budget) MARKDOWN_BUDGETS.set(media, (budget = markdown.requestBudget()));
      return markdown.convert(html, maxBlocks(), budget);
    });

  /** `kept`: where the HTML past the limit went. */
  const blockLimitNote = (field: string, kept: string) =>
    `${field}: the HTML is longer than content.maxBlocks lets the site convert (${maxBlocks()} blocks, or ${parseBudget(maxBlocks()).nodes} HTML elements); the first part was converted and the rest kept ${kept}. Raise content.maxBlocks in the plugin config to convert more.`;

  /** Whether `field`'s HTML goes into `target` as Markdown: a plain `richtext` on a Markdown site. */
  const storedAsMarkdown = (resource: Resource, field: string, target: FieldTarget) =>
    FIELD_ROLES[resource.kind][field] === 'html' &&
    target.attributeType === 'richtext' &&
    !target.customField &&
    config().richtextFormat === 'markdown';

  /** The zone's text component's attribute, as a target of its own. */
  const zoneTextTarget = (target: FieldTarget): FieldTarget => {
    const { text } = target.zone!;
    return { ...target, attributeType: text.attributeType, customField: text.customField };
  };

  /** Why `field`'s HTML was kept as it is in a Markdown attribute. */
  const markdownFailureNote = (field: string, failure: WorkerFailure) => {
    const limit = `content.markdownTimeoutMs (${config().content.markdownTimeoutMs} ms)`;
    const why = {
      timeout: `the request's conversions took longer than ${limit}`,
      busy: `the converter was busy with other requests for longer than twice ${limit}`,
      memory: 'its conversion needed more memory than the converter may use',
      crash: 'its conversion failed',
    }[failure];
    return `${field}: the HTML was stored as it is, not as Markdown: ${why}. Markdown renderers show HTML as it is.`;
  };

  function mediaId(media: MediaMap, url: string, field: string, notes: string[]): number | undefined {
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
  function mediaValue(target: FieldTarget, field: string, value: unknown, media: MediaMap, notes: string[]) {
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
  function blocksValue(field: string, html: string, media: MediaMap, notes: string[]) {
    const overLimit = new Set<string>();
    const failed = new Map<string, string>();
    const { blocks, fallbacks, nestingLimitReached, blockLimitReached } = resolveImages(
      converted(media, html),
      (src, alt) => {
        const result = media.get(src);
        if (result && !result.ok) {
          if (result.overLimit) overLimit.add(src);
          else failed.set(src, result.reason);
        }
        return result?.ok
          ? { ...result.file, alternativeText: alt || result.file.alternativeText }
          : undefined;
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
    if (blockLimitReached) notes.push(blockLimitNote(field, 'as one HTML code block'));
    if (overLimit.size > 0) {
      notes.push(
        `${field}: ${overLimit.size} images past the first ${config().media.maxInlineImages} of this request (media.maxInlineImages) were not imported and were kept as HTML.`
      );
    }
    return blocks;
  }

  /** The image URLs `input` refers to: its media fields' (with their alt text), then those in its HTML. */
  function wantedImages(resource: Resource, input: ContractInput, media: MediaMap) {
    const named = new Map<string, ImportOptions>();
    const inline = new Map<string, ImportOptions>();
    const name = input[NAME_FIELD[resource.kind]];
    const alt = typeof name === 'string' ? name : undefined;
    for (const [field, target] of Object.entries(resource.fields)) {
      const value = input[field];
      if (value === undefined) continue;
      if (target.adapter === 'media' && typeof value === 'string' && value) named.set(value, { alt });
      if (target.adapter === 'media' && Array.isArray(value)) {
        for (const image of value as Array<{ url: string; alt?: string }>)
          named.set(image.url, { alt: image.alt ?? alt });
      }
      if (target.adapter === 'blocks' && typeof value === 'string' && config().media.importInlineImages) {
        for (const src of imageSources(converted(media, value))) if (isWebUrl(src)) inline.set(src, {});
      }
    }
    for (const [url, options] of zoneImageSources(resource, input, media)) inline.set(url, options);
    return { named, inline: [...inline].filter(([src]) => !named.has(src)) };
  }

  /** Files this request uploaded, taken back after its write failed; reused files stay. */
  async function releaseFresh(media: MediaMap): Promise<void> {
    const fresh = [...media].flatMap(([url, result]) =>
      result.ok && !result.reused ? [{ url, file: result.file }] : []
    );
    await forEachLimited(fresh, config().media.concurrentDownloads, ({ url, file }) =>
      getService(strapi, 'media').release(url, file)
    );
  }

  /** The first of `names` for a relation that holds one entry; the others are noted as not stored. */
  function primaryName(field: string, target: FieldTarget, names: string[], notes: string[]): string[] {
    const taxonomy = getService(strapi, 'taxonomy');
    const [primary, ...others] = names;
    const dropped = others.filter((name) => taxonomy.nameKey(name) !== taxonomy.nameKey(primary));
    if (dropped.length > 0) {
      notes.push(
        `${field}: ${target.attribute} holds one entry, so the primary (first) "${primary}" was stored; not stored: ${dropped.map((name) => `"${name}"`).join(', ')}.`
      );
    }
    return primary === undefined ? [] : [primary];
  }

  /** The entry one name (or, for a `parent`, an existing id) refers to, as a list of none or one. */
  async function relatedIds(
    transaction: Transaction,
    field: string,
    kind: NamedKind,
    value: string,
    notes: string[]
  ): Promise<string[]> {
    if (!value.trim()) return [];
    const related: Resource = getService(strapi, 'mapping').resource(kind);
    if (
      field === 'parent' &&
      (await getService(strapi, 'identities').lockDocument(transaction.trx, related.uid, value))
    ) {
      return [value];
    }
    const { documentId } = await getService(strapi, 'taxonomy').findOrCreate(transaction, kind, value, {
      notes,
    });
    return [documentId];
  }

  /**
   * Images of HTML going into a dynamic zone: each standalone image becomes a media component
   * (imported with its alt text and caption); inline ones count when the text component is Blocks.
   */
  function zoneImageSources(resource: Resource, input: ContractInput, media: MediaMap) {
    const wanted = new Map<string, { alt?: string; caption?: string }>();
    if (!config().media.importInlineImages) return wanted;
    for (const [field, { zone }] of Object.entries(resource.fields)) {
      const html = input[field];
      if (!zone || typeof html !== 'string') continue;
      for (const section of htmlToSections(html, sectionOptions(zone, isWebUrl, maxBlocks()))) {
        if (section.type === 'image')
          wanted.set(section.src, { alt: section.alt || undefined, caption: section.caption });
        if (section.type === 'text' && zone.text.attributeType === 'blocks') {
          for (const src of imageSources(converted(media, section.html)))
            if (isWebUrl(src)) wanted.set(src, {});
        }
      }
    }
    return wanted;
  }

  return {
    /**
     * Downloads every image the input refers to into the Media Library, a few at a time. Runs
     * before the transaction: downloads are slow and must not hold database locks. Images in
     * the HTML past `media.maxInlineImages` are not downloaded.
     */
    async importMedia(resource: Resource, input: ContractInput): Promise<MediaMap> {
      const { maxInlineImages, concurrentDownloads } = config().media;
      const media: MediaMap = new Map();
      const { named, inline } = wantedImages(resource, input, media);
      for (const [src] of inline.slice(maxInlineImages)) {
        media.set(src, { ok: false, reason: 'over media.maxInlineImages', overLimit: true });
      }
      const wanted = [...named, ...inline.slice(0, maxInlineImages)];
      const budget = getService(strapi, 'media').requestBudget();
      await forEachLimited(wanted, concurrentDownloads, async ([url, options]) => {
        media.set(url, await getService(strapi, 'media').importImage(url, options, budget));
      });
      return media;
    },

    /**
     * Imports the input's images, then runs `work` in a transaction with them. When the work
     * fails, the files this request uploaded are taken back, so a refused write leaves no file
     * in the Media Library that nothing uses.
     */
    async withMedia<T>(
      resource: Resource,
      input: ContractInput,
      work: (transaction: Transaction, media: MediaMap) => Promise<T>
    ): Promise<T> {
      const media = await this.importMedia(resource, input);
      try {
        await this.convertToMarkdownAhead(resource, input, media);
        return await transactions().run((transaction) => work(transaction, media));
      } catch (error) {
        await releaseFresh(media);
        throw error;
      }
    },

    async toData(
      transaction: Transaction,
      resource: Resource,
      input: ContractInput,
      media: MediaMap,
      current?: Record<string, unknown> | null
    ): Promise<WriteResult> {
      const data: Record<string, unknown> = {};
      const notes: string[] = [];

      for (const [field, target] of Object.entries(resource.fields)) {
        const value = input[field];
        if (value === undefined || field === 'slug') continue;
        const attribute = target.attribute;
        switch (target.adapter) {
          case 'text': {
            const text =
              typeof value === 'string'
                ? await this.asStoredText(resource, field, target, value, media, notes)
                : value;
            if (typeof text !== 'string' || !text) {
              data[attribute] = text || null;
              break;
            }
            const stored = fittedText(field, target, text, notes, {
              identifier: isIdentifier(field, target),
              name: field === NAME_FIELD[resource.kind],
            });
            if (stored !== undefined) data[attribute] = stored;
            break;
          }
          case 'blocks':
            data[attribute] = blocksValue(field, value as string, media, notes);
            break;
          case 'dynamicZone':
            data[attribute] = await this.zoneValue(
              resource,
              field,
              target,
              value as string,
              media,
              notes,
              current
            );
            break;
          case 'datetime':
            data[attribute] = publishDateToIso(value as string, config().timezone);
            break;
          case 'date':
            data[attribute] = (value as string).slice(0, 10);
            break;
          case 'relation':
            data[attribute] = await this.relationValue(
              transaction,
              field,
              target,
              value as string | string[],
              notes
            );
            break;
          case 'names':
            data[attribute] = namesValue(field, value as string[], target, notes);
            break;
          case 'media': {
            const ids = mediaValue(target, field, value, media, notes);
            if (ids !== undefined) data[attribute] = ids;
            break;
          }
          case 'json':
            data[attribute] =
              field === 'seo' ? seoJsonValue(value as Seo, current?.[attribute] as object | null) : value;
            break;
          case 'seoComponent': {
            const existing = current?.[attribute] as Record<string, unknown> | null | undefined;
            const plainText = (html: string) => blocksToPlainText(converted(media, html).blocks);
            const fallbacks = seoFallbacks(resource, input, current, plainText);
            const component = seoComponentValue(target, value as Seo, existing, fallbacks, notes);
            if (component !== undefined) data[attribute] = component;
            break;
          }
          case 'seoFields':
            Object.assign(data, seoParts(target, value as Seo, notes));
            break;
        }
      }
      return { data, notes };
    },

    /**
     * `toData` for a partial update of a stored document, merged into the values it keeps: the
     * seo object, and a dynamic zone receiving HTML (its editor-added components stay). They are
     * read from the document's draft, only when the input needs them.
     */
    async toUpdateData(
      transaction: Transaction,
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      input: ContractInput,
      media: MediaMap
    ): Promise<WriteResult> {
      const populate = Object.entries(resource.fields)
        .filter(
          ([field, target]) =>
            input[field] !== undefined &&
            (target.adapter === 'dynamicZone' ||
              (field === 'seo' && ['json', 'seoComponent'].includes(target.adapter)))
        )
        .map(([, target]) => target.attribute);
      const current =
        populate.length > 0
          ? await documentsOf(strapi, resource.uid).findOne({ documentId, ...at, populate })
          : null;
      return this.toData(transaction, resource, input, media, current);
    },

    /**
     * HTML as the zone's components, in order. On update the components the plugin generates
     * (those of the zone's text, image and quote types) are replaced, and the others stay in place.
     */
    async zoneValue(
      resource: Resource,
      field: string,
      target: FieldTarget,
      html: string,
      media: MediaMap,
      notes: string[],
      current?: Record<string, unknown> | null
    ): Promise<ZoneEntry[]> {
      const { text, image, quote } = target.zone!;
      const imported = (src: string) => {
        const result = media.get(src);
        if (result && !result.ok)
          notes.push(
            `${field}: the image ${displayUrl(src)} was not imported (${result.reason}); it stays as HTML in the text.`
          );
        return result?.ok === true;
      };
      const textTarget = zoneTextTarget(target);
      const component = async (section: Section): Promise<ZoneEntry> => {
        if (section.type === 'image' && image) {
          return { __component: image.uid, [image.attribute]: mediaId(media, section.src, field, notes) };
        }
        if (section.type === 'quote' && quote) {
          const title = quote.title && section.title ? { [quote.title]: section.title } : {};
          return { __component: quote.uid, [quote.body]: section.body, ...title };
        }
        const source = section.type === 'text' ? section.html : '';
        const value =
          text.attributeType === 'blocks'
            ? blocksValue(field, source, media, notes)
            : await this.asStoredText(resource, field, textTarget, source, media, notes);
        return { __component: text.uid, [text.attribute]: value };
      };
      const sections = htmlToSections(html, sectionOptions(target.zone!, imported, maxBlocks()));
      const generated: ZoneEntry[] = [];
      for (const section of sections) generated.push(await component(section));
      const stored = (current?.[target.attribute] ?? []) as ZoneEntry[];
      const types = new Set([text.uid, image?.uid, quote?.uid]);
      return mergeZone(stored, generated, (uid) => types.has(uid));
    },

    /**
     * Starts the Markdown conversions the input needs before its transaction, which would
     * otherwise stay open for as long as content.markdownTimeoutMs and hold up every other write
     * (SQLite has a single connection). The transaction reuses their results.
     */
    async convertToMarkdownAhead(resource: Resource, input: ContractInput, media: MediaMap) {
      const conversions: Promise<unknown>[] = [];
      const convert = (field: string, target: FieldTarget, html: string) => {
        if (html && storedAsMarkdown(resource, field, target))
          conversions.push(convertedToMarkdown(media, html));
      };
      const imported = (src: string) => media.get(src)?.ok === true;
      for (const [field, target] of Object.entries(resource.fields)) {
        const value = input[field];
        if (typeof value !== 'string') continue;
        if (target.adapter === 'text') convert(field, target, value);
        if (target.adapter === 'dynamicZone' && target.zone!.text.attributeType !== 'blocks') {
          for (const section of htmlToSections(value, sectionOptions(target.zone!, imported, maxBlocks())))
            if (section.type === 'text') convert(field, zoneTextTarget(target), section.html);
        }
      }
      await Promise.all(conversions);
    },

    /** HTML goes into a plain `richtext` attribute as Markdown when the site asks for it. */
    async asStoredText(
      resource: Resource,
      field: string,
      target: FieldTarget,
      value: string,
      media: MediaMap,
      notes: string[]
    ): Promise<string> {
      if (!value || !storedAsMarkdown(resource, field, target)) return value;
      const converted = await convertedToMarkdown(media, value);
      if (converted.keptAsHtml) notes.push(markdownFailureNote(field, converted.keptAsHtml));
      else if (converted.blockLimitReached)
        notes.push(blockLimitNote(field, 'as HTML at the end of the Markdown'));
      return converted.markdown;
    },

    /**
     * Names become relations to entries found or created by name; a `parent` may also be given
     * by id. A single relation holds the primary (first) name, a list relation a list (of one
     * for an `author` or `parent`).
     */
    async relationValue(
      transaction: Transaction,
      field: string,
      target: FieldTarget,
      value: string | string[],
      notes: string[] = []
    ) {
      const taxonomy = getService(strapi, 'taxonomy');
      const kind = target.targetKind as NamedKind;
      const ids: string[] = Array.isArray(value)
        ? await taxonomy.resolveNames(
            transaction,
            kind,
            target.multiple ? value : primaryName(field, target, value, notes),
            notes
          )
        : await relatedIds(transaction, field, kind, value, notes);
      return target.multiple ? { set: ids } : (ids[0] ?? null);
    },
  };
};
