import type { LengthLimits } from './resolve';

/** Varchar(255) on every database Strapi supports, for `string`, `uid` and `email` attributes. */
export const STRING_COLUMN_MAX = 255;
const COLUMN_TYPES = ['string', 'uid', 'email'];

/**
 * Cuts text to a length limit at its last word boundary, so values that are too
 * long for a site's attribute are shortened readably instead of failing the publish.
 */
export function cutAtWordBoundary(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max + 1);
  const boundary = cut.search(/\s+\S*$/);
  const fitted = (boundary > max / 2 ? cut.slice(0, boundary) : text.slice(0, max)).trimEnd();
  return fitted.replace(/[\s,;:.\-–—]+$/, '');
}

/** The slice of a mapped attribute that bounds its text. */
export type TextBounds = { attributeType?: string; limits: LengthLimits };

/** The most characters an attribute holds: its own maxLength, and never more than its column. */
export function maxLengthOf({ attributeType, limits }: TextBounds): number | undefined {
  const column = attributeType && COLUMN_TYPES.includes(attributeType) ? STRING_COLUMN_MAX : undefined;
  if (limits.max === undefined) return column;
  return column === undefined ? limits.max : Math.min(limits.max, column);
}

export type Fitted =
  | { outcome: 'fits'; value: string }
  | { outcome: 'cut'; value: string; max: number }
  | { outcome: 'tooLong'; max: number }
  | { outcome: 'tooShort'; min: number };

/**
 * What of `value` an attribute can store: as it is, cut at a word boundary, or nothing when it
 * is shorter than the attribute's minLength. An identifier (`cuttable: false`) is never cut: a
 * shortened id, email or URL would name something else.
 */
export function fitText(value: string, bounds: TextBounds, { cuttable = true } = {}): Fitted {
  const max = maxLengthOf(bounds);
  let fitted = value;
  if (max !== undefined && value.length > max) {
    if (!cuttable) return { outcome: 'tooLong', max };
    fitted = cutAtWordBoundary(value, max);
  }
  const { min } = bounds.limits;
  if (min !== undefined && fitted.length < min) return { outcome: 'tooShort', min };
  return fitted === value ? { outcome: 'fits', value } : { outcome: 'cut', value: fitted, max: max! };
}

/**
 * Names joined into one text attribute: as many whole names, in order, as fit; a name is never
 * cut in the middle, so what is stored is still a list of real names.
 */
export function fitNames(names: string[], separator: string, bounds: TextBounds) {
  const max = maxLengthOf(bounds) ?? Infinity;
  const kept: string[] = [];
  for (const name of names) {
    if ([...kept, name].join(separator).length > max) break;
    kept.push(name);
  }
  return { value: kept.join(separator), dropped: names.slice(kept.length) };
}
