import type { Core } from '@strapi/strapi';
import { publishDateToIso } from '../../contract/dates';
import type { Seo } from '../../contract/schemas';
import { FIELD_ROLES, IDENTIFIER_FIELDS, NAME_FIELD, type Adapter } from '../../mapping/catalogue';
import { safeHtml } from '../../mapping/content-safety';
import { blocksToPlainText } from '../../mapping/blocks';
import { htmlToBlocks, imageSources, type HtmlToBlocksResult } from '../../mapping/html-to-blocks';
import { htmlToSections } from '../../mapping/html-to-sections';
import type { FieldTarget } from '../../mapping/resolve';
import { seoComponentValue, seoFallbacks, seoJsonValue, seoParts } from '../../mapping/seo-values';
import { fittedText, namesValue } from '../../mapping/text-values';
import {
  blockLimitNote,
  blocksValue,
  isWebUrl,
  mediaValue,
  zoneImageSources,
  zoneSectionOptions,
  zoneTextTarget,
  zoneValue,
} from '../../mapping/zone-values';
import type { Resource } from '../../resources';
import type { TimeBudget, WorkerFailure } from '../../utils/time-boxed-worker';
import type { LocaleScope } from '../site/locales';
import type { MarkdownConversion } from './markdown';
import { richtextFormatOf } from '../../mapping/richtext-format';
import type { ImportOptions } from './media';
import type { Transaction } from '../delivery/transactions';
import type { ContractInput, MediaMap, MediaResult, WriteResult } from '../types';
import { getService, pluginConfig } from '../../plugin';
import { documentsOf } from '../../database/documents';

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

/** Each request's input with its HTML made safe, read by every step that converts or stores it. */
type SafeInput = { input: ContractInput; notes: string[] };
const safeInputs = new WeakMap<ContractInput, SafeInput>();

/** Runs `work` on every item, at most `limit` at a time. */
async function forEachLimited<T>(items: T[], limit: number, work: (item: T) => Promise<void>) {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

const isIdentifier = (field: string, target: FieldTarget) =>
  IDENTIFIER_FIELDS.includes(field) || ['uid', 'email'].includes(target.attributeType ?? '');

/** One input field being written by `toData`, with what its adapter may read. */
type FieldWrite = {
  transaction: Transaction;
  resource: Resource;
  input: ContractInput;
  media: MediaMap;
  current: Record<string, unknown> | null | undefined;
  field: string;
  target: FieldTarget;
  value: unknown;
  notes: string[];
};
/** The attributes one field's value is stored in; none when it is left as it is. */
type FieldAdapter = (write: FieldWrite) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** `{ [attribute]: value }`, or nothing when the value is left out (undefined). */
const storedIn = (attribute: string, value: unknown): Record<string, unknown> =>
  value === undefined ? {} : { [attribute]: value };

/**
 * Turns contract fields into Strapi data for wherever the mapping stores them, choosing the
 * conversion from the target attribute's type. Only fields present in the input are written.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const config = () => pluginConfig(strapi);
  const transactions = (): { run<R>(work: (transaction: Transaction) => Promise<R>): Promise<R> } =>
    getService(strapi, 'transactions');
  const maxBlocks = (): number => config().content.maxBlocks;

  /**
   * `input` with each HTML field (content, descriptions), and each text field stored in a
   * `richtext` attribute, under the content-safety policy, made once per input: every form it is
   * stored in (Blocks, Markdown, HTML) is converted from this. The notes name what the policy
   * dropped, for the activity log.
   */
  function safeInput(resource: Resource, input: ContractInput): SafeInput {
    let safe = safeInputs.get(input);
    if (safe) return safe;
    const policy = { allowedEmbedHosts: config().content.allowedEmbedHosts };
    safe = { input: { ...input }, notes: [] };
    for (const [field, role] of Object.entries(FIELD_ROLES[resource.kind])) {
      const value = input[field];
      if (typeof value !== 'string' || !resource.fields[field]) continue;
      // A text field (an excerpt) in a richtext attribute is rendered as Markdown with its HTML:
      // what the platform sends there is as live as the body, so it passes the same policy.
      const rendered = role === 'html' || resource.fields[field].attributeType === 'richtext';
      if (!rendered) continue;
      const { html, dropped } = safeHtml(value, policy);
      safe.input[field] = html;
      if (dropped.length > 0)
        safe.notes.push(
          `${field}: not stored, as a browser would run or load it (the content-safety policy): ${dropped.join(', ')}. The text around it was stored.`
        );
    }
    safeInputs.set(input, safe);
    return safe;
  }

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

  /** `html` as Blocks with the request's imported images in place, shortfalls noted. */
  const resolvedBlocks = (field: string, html: string, media: MediaMap, notes: string[]) =>
    blocksValue(field, converted(media, html), media, notes, {
      maxBlocks: maxBlocks(),
      maxInlineImages: config().media.maxInlineImages,
    });

  /**
   * Whether a value goes into `target` as Markdown: a plain `richtext` on a Markdown site. Text
   * fields too: as written, their brackets and angle brackets would be read as links
   * (`[x](javascript:…)`, `<javascript:…>`); converted like the body, they stay text.
   */
  const storedAsMarkdown = (target: FieldTarget) =>
    target.attributeType === 'richtext' &&
    !target.customField &&
    richtextFormatOf(config().richtextFormat, () => Object.keys(strapi.plugins)) === 'markdown';

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

  /** The URL as the media service keys it; an unparsable one stays itself (its import refuses it). */
  function sameImageKey(url: string): string {
    try {
      return new URL(url).href;
    } catch {
      return url;
    }
  }

  /** The image URLs `input` refers to: its media fields' (with their alt text), then those in its HTML. */
  function wantedImages(resource: Resource, input: ContractInput, media: MediaMap) {
    const named = new Map<string, ImportOptions>();
    const inline = new Map<string, ImportOptions>();
    const name = input[NAME_FIELD[resource.kind]];
    const alt = typeof name === 'string' ? name : undefined;
    const { importInlineImages } = config().media;
    for (const [field, target] of Object.entries(resource.fields)) {
      const value = input[field];
      if (value === undefined) continue;
      if (target.adapter === 'media' && typeof value === 'string' && value) named.set(value, { alt });
      if (target.adapter === 'media' && Array.isArray(value)) {
        for (const image of value as Array<{ url: string; alt?: string }>)
          named.set(image.url, { alt: image.alt ?? alt });
      }
      if (target.adapter === 'blocks' && typeof value === 'string' && importInlineImages) {
        for (const src of imageSources(converted(media, value))) if (isWebUrl(src)) inline.set(src, {});
      }
    }
    if (importInlineImages) {
      const inZones = zoneImageSources(resource, input, maxBlocks(), (html) => converted(media, html));
      for (const [url, options] of inZones) inline.set(url, options);
    }
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

  /** HTML (and text) goes into a plain `richtext` attribute as Markdown when the site asks for it. */
  async function asStoredText(
    field: string,
    target: FieldTarget,
    value: string,
    media: MediaMap,
    notes: string[]
  ): Promise<string> {
    if (!value || !storedAsMarkdown(target)) return value;
    const markdown = await convertedToMarkdown(media, value);
    if (markdown.keptAsHtml) notes.push(markdownFailureNote(field, markdown.keptAsHtml));
    else if (markdown.blockLimitReached)
      notes.push(blockLimitNote(field, 'as HTML at the end of the Markdown', maxBlocks()));
    return markdown.markdown;
  }

  /** Text fitted to its attribute; an empty value clears it. HTML may first become Markdown. */
  const textAdapter: FieldAdapter = async ({ resource, field, target, value, media, notes }) => {
    const text = typeof value === 'string' ? await asStoredText(field, target, value, media, notes) : value;
    if (typeof text !== 'string' || !text) return { [target.attribute]: text || null };
    const stored = fittedText(field, target, text, notes, {
      identifier: isIdentifier(field, target),
      name: field === NAME_FIELD[resource.kind],
    });
    return storedIn(target.attribute, stored);
  };

  /** A dynamic zone's text component holds Blocks, or text (Markdown when the site asks for it). */
  const dynamicZoneAdapter: FieldAdapter = async ({ field, target, value, media, notes, current }) => {
    const textTarget = zoneTextTarget(target);
    const textValue = (html: string) =>
      textTarget.attributeType === 'blocks'
        ? resolvedBlocks(field, html, media, notes)
        : asStoredText(field, textTarget, html, media, notes);
    const entries = await zoneValue(field, target, value as string, media, notes, current, {
      maxBlocks: maxBlocks(),
      textValue,
    });
    return { [target.attribute]: entries };
  };

  /** How each kind of target attribute is written, by the adapter the mapping chose for it. */
  const adapters: Record<Adapter, FieldAdapter> = {
    text: textAdapter,
    blocks: ({ field, target, value, media, notes }) => ({
      [target.attribute]: resolvedBlocks(field, value as string, media, notes),
    }),
    dynamicZone: dynamicZoneAdapter,
    datetime: ({ target, value }) => ({
      [target.attribute]: publishDateToIso(value as string, config().timezone),
    }),
    date: ({ target, value }) => ({ [target.attribute]: (value as string).slice(0, 10) }),
    relation: async ({ transaction, field, target, value, notes }) => ({
      [target.attribute]: await getService(strapi, 'taxonomy').relationValue(
        transaction,
        field,
        target,
        value as string | string[],
        notes
      ),
    }),
    names: ({ field, target, value, notes }) => ({
      [target.attribute]: namesValue(field, value as string[], target, notes),
    }),
    media: ({ field, target, value, media, notes }) =>
      storedIn(target.attribute, mediaValue(target, field, value, media, notes)),
    json: ({ field, target, value, current }) => ({
      [target.attribute]:
        field === 'seo' ? seoJsonValue(value as Seo, current?.[target.attribute] as object | null) : value,
    }),
    seoComponent: ({ resource, input, target, value, media, current, notes }) => {
      const existing = current?.[target.attribute] as Record<string, unknown> | null | undefined;
      const plainText = (html: string) => blocksToPlainText(converted(media, html).blocks);
      const fallbacks = seoFallbacks(resource, input, current, plainText);
      return storedIn(target.attribute, seoComponentValue(target, value as Seo, existing, fallbacks, notes));
    },
    seoFields: ({ target, value, notes }) => seoParts(target, value as Seo, notes),
  };

  return {
    /**
     * Downloads every image the input refers to into the Media Library, a few at a time. Runs
     * before the transaction: downloads are slow and must not hold database locks. Images in
     * the HTML past `media.maxInlineImages` are not downloaded.
     */
    async importMedia(resource: Resource, input: ContractInput): Promise<MediaMap> {
      const { maxInlineImages, concurrentDownloads } = config().media;
      const media: MediaMap = new Map();
      const { named, inline } = wantedImages(resource, safeInput(resource, input).input, media);
      for (const [src] of inline.slice(maxInlineImages)) {
        media.set(src, { ok: false, reason: 'over media.maxInlineImages', overLimit: true });
      }
      const wanted = [...named, ...inline.slice(0, maxInlineImages)];
      if (wanted.length > 0) await getService(strapi, 'media').claimRequest();
      const budget = getService(strapi, 'media').requestBudget();
      // Keyed by the parsed URL: "HTTP://host/a/./b.png" in the body and "http://host/a/b.png" as
      // the cover are one image, which two concurrent imports would both download (issue 40).
      const imports = new Map<string, Promise<MediaResult>>();
      await forEachLimited(wanted, concurrentDownloads, async ([url, options]) => {
        const key = sameImageKey(url);
        const first = imports.get(key);
        if (first) {
          // The first spelling owns the file: a failed write takes it back once, under that URL.
          const result = await first;
          return void media.set(url, result.ok ? { ...result, reused: true } : result);
        }
        const imported = getService(strapi, 'media').importImage(url, options, budget);
        imports.set(key, imported);
        media.set(url, await imported);
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

    /** The input's fields as the attributes they are stored in, one field after the other, with notes. */
    async toData(
      transaction: Transaction,
      resource: Resource,
      input: ContractInput,
      media: MediaMap,
      current?: Record<string, unknown> | null
    ): Promise<WriteResult> {
      const data: Record<string, unknown> = {};
      const { input: safe, notes: policyNotes } = safeInput(resource, input);
      const notes = [...policyNotes];
      const attributesOf: Record<string, string[]> = {};
      for (const [field, target] of Object.entries(resource.fields)) {
        const value = safe[field];
        if (value === undefined || field === 'slug') continue;
        const write = { transaction, resource, input: safe, media, current, field, target, value, notes };
        const values = await adapters[target.adapter](write);
        attributesOf[field] = Object.keys(values);
        Object.assign(data, values);
      }
      return { data, notes, attributesOf };
    },

    /**
     * The values of the document's draft that a partial update of it reads: the attributes
     * `compared` (as fingerprints compare them), and those the input's values merge into (the
     * seo object; a dynamic zone receiving HTML, whose editor-added components stay). Null
     * when there are none to read.
     */
    async storedValues(
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      input: ContractInput,
      compared: string[] = [],
      status: 'draft' | 'published' = 'draft'
    ): Promise<Record<string, unknown> | null> {
      const merged = Object.entries(resource.fields)
        .filter(
          ([field, target]) =>
            input[field] !== undefined &&
            (target.adapter === 'dynamicZone' ||
              (field === 'seo' && ['json', 'seoComponent'].includes(target.adapter)))
        )
        .map(([, target]) => target.attribute);
      if (merged.length === 0 && compared.length === 0) return null;
      const populate = {
        ...getService(strapi, 'fingerprints').populateOf(resource.uid, compared),
        ...Object.fromEntries(merged.map((attribute) => [attribute, true])),
      };
      return documentsOf(strapi, resource.uid).findOne({ documentId, ...at, status, populate });
    },

    /**
     * `toData` for a partial update of a stored document, merged into the values it keeps (see
     * `storedValues`), which are read here unless the caller read them.
     */
    async toUpdateData(
      transaction: Transaction,
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      input: ContractInput,
      media: MediaMap,
      stored?: Record<string, unknown> | null,
      status: 'draft' | 'published' = 'draft'
    ): Promise<WriteResult> {
      const current =
        stored === undefined ? await this.storedValues(resource, documentId, at, input, [], status) : stored;
      return this.toData(transaction, resource, input, media, current);
    },

    /**
     * Starts the Markdown conversions the input needs before its transaction, which would
     * otherwise stay open for as long as content.markdownTimeoutMs and hold up every other write
     * (SQLite has a single connection). The transaction reuses their results.
     */
    async convertToMarkdownAhead(resource: Resource, input: ContractInput, media: MediaMap) {
      const conversions: Promise<unknown>[] = [];
      const convert = (target: FieldTarget, html: string) => {
        if (html && storedAsMarkdown(target)) conversions.push(convertedToMarkdown(media, html));
      };
      const imported = (src: string) => media.get(src)?.ok === true;
      const safe = safeInput(resource, input).input;
      for (const [field, target] of Object.entries(resource.fields)) {
        const value = safe[field];
        if (typeof value !== 'string') continue;
        if (target.adapter === 'text') convert(target, value);
        if (target.adapter === 'dynamicZone' && target.zone!.text.attributeType !== 'blocks') {
          const options = zoneSectionOptions(target.zone!, imported, maxBlocks());
          for (const section of htmlToSections(value, options))
            if (section.type === 'text') convert(zoneTextTarget(target), section.html);
        }
      }
      await Promise.all(conversions);
    },
  };
};
