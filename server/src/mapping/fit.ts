import { endingBy, endOf, graphemesBefore } from '../utils/graphemes';
import type { LengthLimits } from './resolve';

/** Varchar(255) on every database Strapi supports, for `string`, `uid` and `email` attributes. */
export const STRING_COLUMN_MAX = 255;
const COLUMN_TYPES = ['string', 'uid', 'email'];

/** A grapheme after which a cut looks unfinished: whitespace or a separating punctuation mark. */
const TRAILING_SEPARATOR = /^[\s,;:.\-–—]+$/;

/**
 * Cuts text to a length limit at its last word boundary, so values that are too long for a site's
 * attribute are shortened readably instead of failing the publish. It cuts between whole graphemes
 * only (utils/graphemes), so what is kept is always a prefix of `text` made of whole characters.
 */
export function cutAtWordBoundary(text: string, max: number): string {
  if (text.length <= max) return text;
  // The grapheme starting at `max` counts: a word ending right at the limit is kept whole.
  const graphemes = graphemesBefore(text, max + 1);
  let lastSpace = graphemes.length - 1;
  while (lastSpace >= 0 && !/^\s/.test(graphemes[lastSpace].segment)) lastSpace -= 1;
  const atWord = lastSpace !== -1 && graphemes[lastSpace].index > max / 2;
  const kept = atWord ? graphemes.slice(0, lastSpace) : endingBy(graphemes, max);
  while (kept.length > 0 && TRAILING_SEPARATOR.test(kept.at(-1)!.segment)) kept.pop();
  return text.slice(0, endOf(kept));
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
  | { outcome: 'nothingFits'; max: number }
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
    // Its first character alone (one grapheme, a letter with many combining marks) is too long:
    // a cut would store the field empty, and a grapheme is never split.
    if (!fitted) return { outcome: 'nothingFits', max };
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
