import fc from 'fast-check';
import { cutAtWordBoundary, fitText } from '../../server/src/mapping/fit';
import { fitColumn } from '../../server/src/utils/column-text';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Where the grapheme clusters of `text` begin and end, as code unit offsets. */
function graphemeBoundaries(text: string): Set<number> {
  const boundaries = new Set([0, text.length]);
  for (const { index, segment } of segmenter.segment(text)) boundaries.add(index + segment.length);
  return boundaries;
}

/** `kept` is `text` itself or a prefix of it that ends between two of its graphemes. */
function expectWholeGraphemePrefix(text: string, kept: string) {
  expect(text.startsWith(kept)).toBe(true);
  expect(graphemeBoundaries(text).has(kept.length)).toBe(true);
  expect(/\p{Surrogate}/u.test(kept)).toBe(false);
}

/**
 * Text made to be cut badly: emoji ZWJ sequences, flags, skin tones, combining marks, Hangul jamo,
 * prepended marks and spaces among random code points of every plane (whole pairs only: a lone
 * surrogate never reaches a fitting function, the contract refuses it).
 */
const piece = fc.oneof(
  fc.constantFrom(
    '👩‍👩‍👧‍👦',
    '🏳️‍🌈',
    '🇫🇷',
    '👍🏽',
    'e\u0301',
    'a\u0308\u0323',
    '\u1100\u1161\u11A8',
    '\u0600 ',
    'ก\u0E33',
    '🧑🏿‍🚀',
    ' ',
    '  ',
    '.',
    ', ',
    '—',
    'word',
    '\u200D',
    '\uFE0F',
    '\u0301'
  ),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
  fc.string({ unit: 'binary', maxLength: 6 })
);
const unicodeText = fc.array(piece, { maxLength: 40 }).map((pieces) => pieces.join(''));
const limit = fc.integer({ min: 1, max: 80 });

describe('cutting text to a length limit', () => {
  it('cutAtWordBoundary keeps a prefix of whole graphemes within the limit', () => {
    fc.assert(
      fc.property(unicodeText, limit, (text, max) => {
        const kept = cutAtWordBoundary(text, max);
        expect(kept.length).toBeLessThanOrEqual(max);
        expectWholeGraphemePrefix(text, kept);
      }),
      { numRuns: 2_000 }
    );
  });

  it('fitText cuts a post field the same way, never empty, and refuses a cuttable value only when nothing of it fits', () => {
    fc.assert(
      fc.property(unicodeText, limit, (text, max) => {
        const fitted = fitText(text, { attributeType: 'string', limits: { max } });
        if (fitted.outcome === 'nothingFits') return expect(cutAtWordBoundary(text, max)).toBe('');
        expect(fitted.outcome === 'fits' || fitted.outcome === 'cut').toBe(true);
        if (fitted.outcome === 'cut') expect(fitted.value).not.toBe('');
        const value = 'value' in fitted ? fitted.value : '';
        expect(value.length).toBeLessThanOrEqual(max);
        expectWholeGraphemePrefix(text, value);
      }),
      { numRuns: 1_000 }
    );
  });

  it('fitColumn keeps whole graphemes before its ellipsis and fills the column at most', () => {
    fc.assert(
      fc.property(unicodeText, fc.integer({ min: 2, max: 80 }), (text, max) => {
        const fitted = fitColumn(text, max);
        const storable = text.replaceAll('\u0000', '\uFFFD');
        expect(fitted.length).toBeLessThanOrEqual(max);
        if (storable.length <= max) return expect(fitted).toBe(storable);
        expect(fitted.endsWith('…')).toBe(true);
        expectWholeGraphemePrefix(storable, fitted.slice(0, -1));
      }),
      { numRuns: 1_000 }
    );
  });

  it('cuts a title of emoji sequences before the sequence that does not fit whole', () => {
    const family = '👩‍👩‍👧‍👦'; // 11 code units
    expect(cutAtWordBoundary(family.repeat(3), 25)).toBe(family.repeat(2));
    expect(cutAtWordBoundary(`Caf${'e\u0301'.repeat(3)}`, 5)).toBe('Cafe\u0301');
    expect(fitColumn(`ab${'🇫🇷'.repeat(3)}`, 8)).toBe(`ab🇫🇷…`);
  });
});
