import { withoutDanglingRelations, writableValues } from '../../server/src/mapping/revision-values';
import type { AttributeShape } from '../../server/src/mapping/fingerprints';

const shapeOf: Record<string, AttributeShape> = {
  title: { type: 'string' },
  categories: { type: 'relation' },
  author: { type: 'relation' },
  cover: { type: 'media' },
  gallery: { type: 'media', multiple: true },
  seo: { type: 'component', component: 'shared.seo' },
  zone: { type: 'dynamiczone' },
};

describe("a revision's values as they are written back", () => {
  test('related entries go back by documentId, files by id, text as it was', () => {
    const kept = {
      title: 'Kept',
      categories: [
        { id: 3, documentId: 'a' },
        { id: 4, documentId: 'b' },
      ],
      author: null,
      cover: { id: 12 },
      gallery: [{ id: 2 }, { id: 1 }],
    };
    expect(writableValues(kept, shapeOf, null)).toEqual({
      title: 'Kept',
      categories: { set: ['a', 'b'] },
      author: { set: [] },
      cover: 12,
      gallery: [2, 1],
    });
  });

  test('a component still held by the entry is updated in place; one it no longer holds is made anew', () => {
    const kept = {
      seo: { id: 40, metaTitle: 'Kept' },
      zone: [
        { id: 5, __component: 'shared.quote', body: 'Still there' },
        { id: 6, __component: 'shared.quote', body: 'Gone since' },
      ],
    };
    const current = {
      seo: { id: 41, metaTitle: 'New' },
      zone: [{ id: 5, __component: 'shared.quote', body: 'Edited' }],
    };
    expect(writableValues(kept, shapeOf, current)).toEqual({
      seo: { metaTitle: 'Kept' },
      zone: [
        { id: 5, __component: 'shared.quote', body: 'Still there' },
        { __component: 'shared.quote', body: 'Gone since' },
      ],
    });
  });

  test('a zone entry whose id the entry now holds in another component type is made anew', () => {
    const kept = { zone: [{ id: 1, __component: 'shared.quote', body: 'Kept' }] };
    const current = { zone: [{ id: 1, __component: 'shared.rich-text', body: 'Other' }] };
    expect(writableValues(kept, shapeOf, current)).toEqual({
      zone: [{ __component: 'shared.quote', body: 'Kept' }],
    });
  });

  test('an attribute the type no longer has is left out', () => {
    expect(writableValues({ removed: 'x', title: 'T' }, shapeOf, null)).toEqual({ title: 'T' });
  });
});

describe('relations to entries deleted since, left out of a restore', () => {
  const gone = new Set(['deleted-category', 'deleted-author']);
  const exists = (_attribute: string, documentId: string) => !gone.has(documentId);

  test('a relation left with no entry is not written; one that lost some keeps the rest; both are named', () => {
    const kept = {
      title: 'Kept',
      author: { id: 1, documentId: 'deleted-author' },
      categories: [
        { id: 3, documentId: 'deleted-category' },
        { id: 4, documentId: 'still-here' },
      ],
    };
    expect(withoutDanglingRelations(kept, shapeOf, exists)).toEqual({
      kept: { title: 'Kept', categories: [{ id: 4, documentId: 'still-here' }] },
      leftOut: [
        { field: 'author', reason: 'the related entry no longer exists' },
        { field: 'categories', reason: 'a related entry no longer exists' },
      ],
    });
  });

  test('relations whose entries all exist, and an empty one, are kept as they are', () => {
    const kept = { author: null, categories: [{ id: 4, documentId: 'still-here' }] };
    expect(withoutDanglingRelations(kept, shapeOf, exists)).toEqual({ kept, leftOut: [] });
  });
});
