/**
 * The contract's seo object as the site stores it: its parts fitted to their attributes, and the
 * parts the site's component requires filled when they were not sent. Pure: the caller gives the
 * post's content as plain text, and the notes go back with the request's answer.
 */
import { isAbsoluteHttpUrl } from '../contract/addresses';
import type { Seo } from '../contract/schemas';
import { SEO_PART_NAMES, seoPartSpec, type SeoFillSource, type SeoPartName } from '../contract/seo-parts';
import type { Resource } from '../resources';
import type { ContractInput } from '../services/types';
import { fitText } from './fit';
import type { FieldTarget, SeoPart } from './resolve';
import { fittedText, namesValue } from './text-values';

type StoredValues = Record<string, unknown>;

/** A candidate for a required part the publisher did not send, named for the note. */
type SeoFallback = { source: SeoFillSource; value: unknown };
export type SeoFallbacks = Record<SeoPartName, SeoFallback[]>;

function seoValue(mapped: SeoPart, value: string | string[], part: SeoPartName, notes: string[]): unknown {
  const label = `seo.${part}`;
  if (Array.isArray(value)) return namesValue(label, value, mapped, notes);
  // An empty value clears the part; any other must be an address a browser would follow.
  if (seoPartSpec(part).kind === 'url' && value !== '' && !isAbsoluteHttpUrl(value)) {
    notes.push(`${label} was not stored: it is not an absolute http(s) URL.`);
    return undefined;
  }
  return fittedText(label, mapped, value, notes, {
    identifier: seoPartSpec(part).kind === 'url',
    optional: true,
  });
}

/** The sent parts by the attribute each goes into; a part cut away to nothing is left out. */
export function seoParts(target: FieldTarget, seo: Seo, notes: string[]): StoredValues {
  const values: StoredValues = {};
  for (const part of SEO_PART_NAMES) {
    const mapped = target.seo?.[part];
    const value = seo[part];
    if (!mapped || value === undefined) continue;
    const stored = seoValue(mapped, value, part, notes);
    if (stored !== undefined) values[mapped.attribute] = stored;
  }
  return values;
}

/**
 * What each required seo part falls back to, best first, as SEO_PARTS says: the post's title;
 * its excerpt, then the text of its content. A field not sent is read from the stored document
 * when it holds text.
 */
export function seoFallbacks(
  resource: Resource,
  input: ContractInput,
  current: StoredValues | null | undefined,
  plainText: (html: string) => string
): SeoFallbacks {
  const stored = (field: string) => {
    const target = resource.fields[field];
    return input[field] ?? (target?.adapter === 'text' ? current?.[target.attribute] : undefined);
  };
  const content = input.content;
  const valueOf = (source: SeoFillSource) =>
    source === 'content' ? (typeof content === 'string' ? plainText(content) : undefined) : stored(source);
  return Object.fromEntries(
    SEO_PART_NAMES.map((part) => [
      part,
      (seoPartSpec(part).fill?.from ?? []).map((source) => ({ source, value: valueOf(source) })),
    ])
  ) as SeoFallbacks;
}

/** The first fallback that fits the part's attribute (cut if need be). */
function firstFitting(mapped: SeoPart, fallbacks: SeoFallback[]) {
  return fallbacks
    .filter((candidate) => typeof candidate.value === 'string' && candidate.value.trim())
    .map((candidate) => ({ source: candidate.source, fitted: fitText(candidate.value as string, mapped) }))
    .find(({ fitted }) => fitted.outcome === 'fits' || fitted.outcome === 'cut');
}

/**
 * The seo parts with every part the site's component requires: sent, else kept from the stored
 * component, else filled from the post. When one cannot be filled the component is not written
 * (noted): seo is optional, so it never costs the post.
 */
export function withRequiredSeo(
  target: FieldTarget,
  parts: StoredValues,
  existing: StoredValues | null | undefined,
  fallbacks: SeoFallbacks,
  notes: string[]
): StoredValues | undefined {
  for (const part of SEO_PART_NAMES) {
    const mapped = target.seo?.[part];
    if (!mapped?.required || parts[mapped.attribute] !== undefined) continue;
    if (existing?.[mapped.attribute]) {
      parts[mapped.attribute] = existing[mapped.attribute];
      continue;
    }
    const where = `${target.attribute}.${mapped.attribute}`;
    const filled = firstFitting(mapped, fallbacks[part]);
    if (!filled || !('value' in filled.fitted)) {
      const min = mapped.limits.min ? ` of at least ${mapped.limits.min} characters` : '';
      const orSend = seoPartSpec(part).fill?.orSend;
      const what = orSend ? `seo.${part} or ${orSend}` : `seo.${part}`;
      notes.push(`seo was not stored: this site requires ${where}; send ${what}${min}.`);
      return undefined;
    }
    parts[mapped.attribute] = filled.fitted.value;
    notes.push(`seo.${part} was not sent; ${where} is required, so it holds the post's ${filled.source}.`);
  }
  return parts;
}

/**
 * An seo component's value: the sent parts, completed as `withRequiredSeo` does. With the stored
 * component's id it is updated in place, so its other fields stay; undefined leaves it as it is.
 */
export function seoComponentValue(
  target: FieldTarget,
  seo: Seo,
  existing: StoredValues | null | undefined,
  fallbacks: SeoFallbacks,
  notes: string[]
): StoredValues | undefined {
  const parts = withRequiredSeo(target, seoParts(target, seo, notes), existing, fallbacks, notes);
  if (!parts) return undefined;
  return existing?.id ? { id: existing.id, ...parts } : parts;
}

/** The seo object in a JSON attribute: the sent keys over the stored ones, which stay. */
export function seoJsonValue(seo: Seo, existing: object | null | undefined): object {
  return { ...(existing ?? {}), ...seo };
}
