import type { Core } from '@strapi/strapi';
import { publishDateToIso } from '../contract/dates';
import { ContractError } from '../contract/errors';
import type { Seo } from '../contract/schemas';
import { PLUGIN_ID } from '../constants';
import { FIELD_ROLES, NAME_FIELD } from '../mapping/catalogue';
import { fitToLength } from '../mapping/fit';
import { collectImageSources, htmlToBlocks, type BlocksImage } from '../mapping/html-to-blocks';
import { htmlToMarkdown } from '../mapping/html-to-markdown';
import { htmlToSections, mergeZone, type Section, type ZoneEntry } from '../mapping/html-to-sections';
import type { FieldTarget, SeoPart, ZoneComponents } from '../mapping/resolve';
import type { Resource } from '../resources';
import type { Transaction } from './transactions';

/** Varchar(255) on every database Strapi supports. */
const STRING_COLUMN_MAX = 255;

type UploadedFile = BlocksImage & { id: number };
type MediaResult = { ok: true; file: UploadedFile } | { ok: false; reason: string };
export type MediaMap = Map<string, MediaResult>;

const isWebUrl = (src: string) => /^https?:\/\//i.test(src);

const sectionOptions = (zone: ZoneComponents, importable: (src: string) => boolean) => ({
  image: zone.image ? importable : undefined,
  quote: zone.quote?.limits,
});

/** Contract input keyed by contract field names (the schemas' output). */
export type ContractInput = Record<string, unknown>;

export type WriteResult = { data: Record<string, unknown>; notes: string[] };

/**
 * Turns contract fields into Strapi data for wherever the mapping stores them, choosing the
 * conversion from the target attribute's type. Only fields present in the input are written.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const plugin = () => strapi.plugin(PLUGIN_ID);
  const config = () => plugin().service('settings').config();

  function checkedText(field: string, value: string, attributeType?: string) {
    if (attributeType === 'string' && value.length > STRING_COLUMN_MAX) {
      throw new ContractError(
        400,
        `Invalid request: ${field}: this site stores it in a field of at most ${STRING_COLUMN_MAX} characters (got ${value.length}).`
      );
    }
    return value;
  }

  const namesValue = (names: string[], target: { attributeType?: string }) =>
    target.attributeType === 'json' ? names : names.join(', ');

  function seoValue(part: SeoPart, value: string | string[], label: string, notes: string[]): unknown {
    if (Array.isArray(value)) return namesValue(value, part);
    const { min, max = part.attributeType === 'string' ? STRING_COLUMN_MAX : undefined } = part.limits;
    const fitted = max !== undefined ? fitToLength(value, max) : value;
    if (fitted !== value)
      notes.push(
        `seo.${label} was cut to ${fitted.length} characters to fit ${part.attribute} (at most ${max}).`
      );
    if (min !== undefined && fitted.length < min) {
      notes.push(
        `seo.${label} was not stored: ${part.attribute} needs at least ${min} characters (got ${fitted.length}).`
      );
      return undefined;
    }
    return fitted;
  }

  function seoParts(target: FieldTarget, seo: Seo, notes: string[]) {
    const values: Record<string, unknown> = {};
    for (const part of ['title', 'description', 'keywords'] as const) {
      const mapped = target.seo?.[part];
      const value = seo[part];
      if (!mapped || value === undefined) continue;
      const stored = seoValue(mapped, value, part, notes);
      if (stored !== undefined) values[mapped.attribute] = stored;
    }
    return values;
  }

  function mediaId(media: MediaMap, url: string, field: string, notes: string[]): number | undefined {
    const result = media.get(url);
    if (result?.ok) return result.file.id;
    notes.push(
      `${field}: the image ${url} was not imported (${result ? result.reason : 'not attempted'}); the rest was saved.`
    );
    return undefined;
  }

  function blocksValue(html: string, field: string, media: MediaMap, notes: string[]) {
    const { blocks, fallbacks } = htmlToBlocks(html, {
      resolveImage: (src, alt) => {
        const result = media.get(src);
        return result?.ok
          ? { ...result.file, alternativeText: alt || result.file.alternativeText }
          : undefined;
      },
    });
    if (fallbacks.length > 0) {
      notes.push(
        `${field}: kept as HTML code blocks: ${[...new Set(fallbacks.map((fallback) => `<${fallback.tag}>`))].join(', ')}.`
      );
    }
    return blocks;
  }

  /**
   * Images of HTML going into a dynamic zone: each standalone image becomes a media component
   * (imported with its alt text and caption); inline ones count when the text component is Blocks.
   */
  function zoneImageSources(resource: Resource, input: ContractInput) {
    const wanted = new Map<string, { alt?: string; caption?: string }>();
    if (!config().media.importInlineImages) return wanted;
    for (const [field, { zone }] of Object.entries(resource.fields)) {
      const html = input[field];
      if (!zone || typeof html !== 'string') continue;
      for (const section of htmlToSections(html, sectionOptions(zone, isWebUrl))) {
        if (section.type === 'image')
          wanted.set(section.src, { alt: section.alt || undefined, caption: section.caption });
        if (section.type === 'text' && zone.text.attributeType === 'blocks') {
          for (const src of collectImageSources(section.html)) if (isWebUrl(src)) wanted.set(src, {});
        }
      }
    }
    return wanted;
  }

  return {
    /**
     * Downloads every image the input refers to into the Media Library. Runs before the
     * transaction: downloads are slow and must not hold database locks.
     */
    async importMedia(resource: Resource, input: ContractInput): Promise<MediaMap> {
      const wanted = new Map<string, { alt?: string }>();
      const name = input[NAME_FIELD[resource.kind]];
      const alt = typeof name === 'string' ? name : undefined;
      for (const [field, target] of Object.entries(resource.fields)) {
        const value = input[field];
        if (value === undefined) continue;
        if (target.adapter === 'media' && typeof value === 'string' && value) wanted.set(value, { alt });
        if (target.adapter === 'media' && Array.isArray(value)) {
          for (const image of value as Array<{ url: string; alt?: string }>)
            wanted.set(image.url, { alt: image.alt ?? alt });
        }
        if (target.adapter === 'blocks' && typeof value === 'string' && config().media.importInlineImages) {
          for (const src of collectImageSources(value)) if (/^https?:\/\//i.test(src)) wanted.set(src, {});
        }
      }
      for (const [url, options] of zoneImageSources(resource, input)) wanted.set(url, options);
      const media: MediaMap = new Map();
      await Promise.all(
        [...wanted].map(async ([url, options]) => {
          media.set(url, await plugin().service('media').importImage(url, options));
        })
      );
      return media;
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
          case 'text':
            data[attribute] =
              typeof value === 'string'
                ? checkedText(field, this.asStoredText(resource, field, target, value), target.attributeType) || null
                : value;
            break;
          case 'blocks':
            data[attribute] = blocksValue(value as string, field, media, notes);
            break;
          case 'dynamicZone':
            data[attribute] = this.zoneValue(resource, field, target, value as string, media, notes, current);
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
              value as string | string[]
            );
            break;
          case 'names': {
            const names = namesValue(value as string[], target);
            data[attribute] =
              typeof names === 'string' ? checkedText(field, names, target.attributeType) : names;
            break;
          }
          case 'media': {
            if (Array.isArray(value)) {
              data[attribute] = (value as Array<{ url: string }>)
                .map((image) => mediaId(media, image.url, field, notes))
                .filter((id) => id !== undefined);
            } else if (value === '') {
              data[attribute] = null;
            } else {
              const id = mediaId(media, value as string, field, notes);
              if (id !== undefined) data[attribute] = target.multiple ? [id] : id;
            }
            break;
          }
          case 'json':
            data[attribute] =
              field === 'seo'
                ? { ...((current?.[attribute] as object | null) ?? {}), ...(value as object) }
                : value;
            break;
          case 'seoComponent': {
            const existing = current?.[attribute] as { id?: number } | null | undefined;
            const parts = seoParts(target, value as Seo, notes);
            // With its id, the stored component is updated in place and its other fields stay.
            data[attribute] = existing?.id ? { id: existing.id, ...parts } : parts;
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
     * HTML as the zone's components, in order. On update the components the plugin generates
     * (those of the zone's text, image and quote types) are replaced, and the others stay in place.
     */
    zoneValue(
      resource: Resource,
      field: string,
      target: FieldTarget,
      html: string,
      media: MediaMap,
      notes: string[],
      current?: Record<string, unknown> | null
    ): ZoneEntry[] {
      const { text, image, quote } = target.zone!;
      const imported = (src: string) => {
        const result = media.get(src);
        if (result && !result.ok)
          notes.push(
            `${field}: the image ${src} was not imported (${result.reason}); it stays as HTML in the text.`
          );
        return result?.ok === true;
      };
      const textTarget = { ...target, attributeType: text.attributeType, customField: text.customField };
      const component = (section: Section): ZoneEntry => {
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
            ? blocksValue(source, field, media, notes)
            : this.asStoredText(resource, field, textTarget, source);
        return { __component: text.uid, [text.attribute]: value };
      };
      const generated = htmlToSections(html, sectionOptions(target.zone!, imported)).map(component);
      const stored = (current?.[target.attribute] ?? []) as ZoneEntry[];
      const types = new Set([text.uid, image?.uid, quote?.uid]);
      return mergeZone(stored, generated, (uid) => types.has(uid));
    },

    /** HTML goes into a plain `richtext` attribute as Markdown when the site asks for it. */
    asStoredText(resource: Resource, field: string, target: FieldTarget, value: string): string {
      const markdown =
        FIELD_ROLES[resource.kind][field] === 'html' &&
        target.attributeType === 'richtext' &&
        !target.customField &&
        config().richtextFormat === 'markdown';
      return markdown ? htmlToMarkdown(value) : value;
    },

    /** Names become relations to entries found or created by name; a `parent` may also be given by id. */
    async relationValue(
      transaction: Transaction,
      field: string,
      target: FieldTarget,
      value: string | string[]
    ) {
      const taxonomy = plugin().service('taxonomy');
      const kind = target.targetKind!;
      if (Array.isArray(value)) return { set: await taxonomy.resolveNames(transaction, kind, value) };
      if (!value.trim()) return null;
      const related: Resource = plugin().service('mapping').resource(kind);
      if (
        field === 'parent' &&
        (await plugin().service('identities').lockDocument(transaction.trx, related.uid, value))
      ) {
        return value;
      }
      return (await taxonomy.findOrCreate(transaction, kind, value)).documentId;
    },
  };
};
