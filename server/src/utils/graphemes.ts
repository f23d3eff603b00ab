/**
 * Text cut by whole user-perceived characters (Unicode grapheme clusters), so a cut never leaves
 * half of a surrogate pair, a combining mark without its letter, or part of an emoji sequence.
 * Lengths are UTF-16 code units, as JavaScript and Strapi's maxLength count them: never fewer than
 * the characters a PostgreSQL or MariaDB (utf8mb4) varchar counts, so a cut never overflows one.
 */
const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export type Grapheme = { segment: string; index: number };

/** The grapheme clusters of `text` that start before code unit `end`, in order. */
export function graphemesBefore(text: string, end: number): Grapheme[] {
  const graphemes: Grapheme[] = [];
  for (const { segment, index } of segmenter.segment(text)) {
    if (index >= end) break;
    graphemes.push({ segment, index });
  }
  return graphemes;
}

/** The longest prefix of `text` of at most `max` code units that ends between two graphemes. */
export function graphemePrefix(text: string, max: number): string {
  if (text.length <= max) return text;
  return text.slice(0, endOf(endingBy(graphemesBefore(text, max), max)));
}

/** Those of `graphemes` that end by code unit `max`, so all of each fits in `max` units. */
export const endingBy = (graphemes: Grapheme[], max: number) =>
  graphemes.filter(({ segment, index }) => index + segment.length <= max);

/** Where the last of `graphemes` ends (0 for none). */
export const endOf = (graphemes: Grapheme[]) => {
  const last = graphemes.at(-1);
  return last ? last.index + last.segment.length : 0;
};
