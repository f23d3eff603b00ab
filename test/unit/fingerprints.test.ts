import { createHash } from 'node:crypto';
import fc from 'fast-check';
import {
  changedFields,
  digestOf,
  type AttributeShape,
  type ShapesOf,
} from '../../server/src/mapping/fingerprints';

const SEO = 'shared.seo';
const QUOTE = 'shared.quote';
const EMBED = 'shared.embed';
const components: Record<string, Record<string, AttributeShape>> = {
  [SEO]: {
    metaTitle: { type: 'string' },
    metaDescription: { type: 'text' },
    noIndex: { type: 'boolean', default: false },
    shareImage: { type: 'media' },
  },
  [QUOTE]: { title: { type: 'string' }, body: { type: 'text' } },
  [EMBED]: { label: { type: 'string' }, options: { type: 'json' } },
};
const shapes: ShapesOf = (uid) => components[uid];
const post: Record<string, AttributeShape> = {
  title: { type: 'string' },
  publishDate: { type: 'datetime' },
  day: { type: 'date' },
  content: { type: 'blocks' },
  categories: { type: 'relation' },
  author: { type: 'relation' },
  cover: { type: 'media' },
  seo: { type: 'component', component: SEO },
  zone: { type: 'dynamiczone' },
  data: { type: 'json' },
  embed: { type: 'component', component: EMBED },
};

const digest = (attribute: string, values: Record<string, unknown>, stored?: Record<string, unknown>) =>
  digestOf(attribute, values, post, shapes, stored);

/** What the plugin sent and what the Document Service reads back afterwards fingerprint alike. */
describe('a value fingerprints alike as sent and as read back', () => {
  test.each([
    [
      'relation set by documentIds',
      'categories',
      { set: ['b', 'a'] },
      [
        { id: 7, documentId: 'a' },
        { id: 9, documentId: 'b' },
      ],
    ],
    ['one related entry', 'author', 'a', { id: 3, documentId: 'a' }],
    ['no related entry', 'author', null, null],
    ['a file', 'cover', 12, { id: 12 }],
    [
      'a datetime, read back with MariaDB’s whole seconds',
      'publishDate',
      '2026-01-02T03:04:05.678Z',
      '2026-01-02T03:04:05.000Z',
    ],
    ['a date read back as a Date', 'day', '2026-01-02', new Date('2026-01-02T00:00:00Z')],
    [
      'JSON whose keys jsonb reordered',
      'content',
      [{ type: 'paragraph', children: [{ type: 'text', text: 'x' }] }],
      [{ children: [{ text: 'x', type: 'text' }], type: 'paragraph' }],
    ],
    [
      'a component given its id, read back with nested media left out',
      'seo',
      { metaTitle: 'T', shareImage: 4 },
      { id: 40, metaTitle: 'T', metaDescription: null, noIndex: false },
    ],
    [
      'a dynamic zone, read back with ids',
      'zone',
      [{ __component: QUOTE, body: 'Q' }],
      [{ id: 5, __component: QUOTE, title: null, body: 'Q' }],
    ],
  ])('%s', (_name, attribute, sent, readBack) => {
    expect(digest(attribute, { [attribute]: readBack })).toBe(digest(attribute, { [attribute]: sent }));
  });

  test('a component updated in place keeps the stored keys the write left out', () => {
    const stored = { seo: { id: 40, metaTitle: 'Old', metaDescription: 'Kept' } };
    const sent = { seo: { id: 40, metaTitle: 'New' } };
    const readBack = { seo: { id: 40, metaTitle: 'New', metaDescription: 'Kept', noIndex: false } };
    expect(digest('seo', sent, stored)).toBe(digest('seo', readBack));
    expect(digest('seo', sent)).not.toBe(digest('seo', readBack));
  });
});

describe('what an editor changes fingerprints differently', () => {
  test.each([
    ['a title', 'title', 'Platform', 'Editor'],
    ['a related entry', 'categories', { set: ['a', 'b'] }, [{ documentId: 'a' }]],
    ['a date by a minute', 'publishDate', '2026-01-02T03:04:05Z', '2026-01-02T03:05:05Z'],
    ['a component’s own value', 'seo', { metaTitle: 'T' }, { id: 1, metaTitle: 'T', noIndex: true }],
    [
      'the order of a zone',
      'zone',
      [
        { __component: QUOTE, body: 'A' },
        { __component: QUOTE, body: 'B' },
      ],
      [
        { __component: QUOTE, body: 'B' },
        { __component: QUOTE, body: 'A' },
      ],
    ],
  ])('%s', (_name, attribute, sent, edited) => {
    expect(digest(attribute, { [attribute]: edited })).not.toBe(digest(attribute, { [attribute]: sent }));
  });
});

describe('changedFields', () => {
  const fingerprints = {
    title: { title: digest('title', { title: 'Platform' }) },
    seo: { seo: digest('seo', { seo: { metaTitle: 'T' } }) },
    gone: { removedAttribute: 'x' },
  };
  const current = { title: 'Platform', seo: { id: 1, metaTitle: 'Edited' } };

  test('names the fields whose stored values differ, among those asked about', () => {
    expect(changedFields(['title', 'seo'], fingerprints, current, post, shapes)).toEqual(['seo']);
    expect(changedFields(['title'], fingerprints, current, post, shapes)).toEqual([]);
  });

  test('a field never fingerprinted, or stored in an attribute the type lost, is not called changed', () => {
    expect(changedFields(['excerpt', 'gone'], fingerprints, current, post, shapes)).toEqual([]);
  });
});

/**
 * Sites keep the digests the plugin wrote since fingerprints began: a digest written otherwise
 * today would read every entry as changed by an editor, and no update would touch it again.
 */
describe('digests stay the ones written before', () => {
  const values = {
    content: [
      {
        type: 'paragraph',
        children: [
          { type: 'text', text: 'Café “quoted” \u2028 \\ / \n\t', bold: true },
          { url: 'https://x.example/?a=1&b=2', type: 'link', children: [{ type: 'text', text: '' }] },
        ],
      },
      { type: 'heading', level: 2, children: [{ text: 'Größe 😀 \ud800', type: 'text' }] },
    ],
    data: {
      b: 1,
      a: [3, { z: null, y: -0, x: 1e21 }],
      10: 'ten',
      2: 'two',
      '01': 'zero-one',
      '-1': 'minus',
      '4294967295': 'max',
      '4294967294': 'last index',
      B: true,
      é: 'e',
      '1.5': 'float',
    },
    embed: { label: 'Map', options: { zoom: 3, 1: 'one', center: { lng: 2.35, lat: 48.85 } } },
  };

  // Digests written by the plugin as released up to 7f158dd.
  test.each([
    ['Blocks', 'content', 'to1E7FqVrsgl10yEIx5qefBheZoBZ4ZX'],
    ['JSON with integer-like keys', 'data', 'vkdm11MDjzZylmzNji57IeC8naz3BaZ5'],
    ['JSON in a component', 'embed', 'LHFbZZWc-amKe38GXNNU_TktQpmTtymu'],
  ])('%s', (_name, attribute, written) => {
    expect(digest(attribute, values)).toBe(written);
  });

  /** The form digests were first written in: a copy with sorted keys, serialised. */
  const sortedCopy = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sortedCopy)
      : typeof value === 'object' && value !== null
        ? Object.fromEntries(
            Object.keys(value)
              .sort()
              .map((key) => [key, sortedCopy((value as Record<string, unknown>)[key])])
          )
        : value;
  const firstDigest = (value: unknown) =>
    createHash('sha256').update(JSON.stringify(value)).digest('base64url').slice(0, 32);

  const key = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 4 }),
    fc.nat().map(String),
    fc.constantFrom('01', '-1', '1.5', '1e3', '4294967294', '4294967295', '99999999999')
  );
  const { json } = fc.letrec<{ json: unknown }>((tie) => ({
    json: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      fc.double(),
      fc.string({ unit: 'binary', maxLength: 8 }),
      fc.array(tie('json'), { maxLength: 4 }),
      fc.dictionary(key, tie('json'), { maxKeys: 6, noNullPrototype: true })
    ),
  }));

  test('any JSON value, alone or in a component, digests as its sorted copy did', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(digest('data', { data: value })).toBe(firstDigest(sortedCopy(value)));
        expect(digest('embed', { embed: { label: 'L', options: value } })).toBe(
          firstDigest({ label: 'L', options: sortedCopy(value) })
        );
      }),
      { numRuns: 500 }
    );
  });
});
