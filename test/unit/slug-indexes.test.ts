import { indexName } from '../../server/src/database/indexes';

describe('indexName', () => {
  test('names the index after its table and column', () => {
    expect(indexName('articles', 'slug')).toBe('articles_slug_pb_idx');
  });

  test('stays within the 63 characters PostgreSQL keeps, and two long tables get two names', () => {
    const long = 'components_' + 'very_long_collection_name_'.repeat(3);
    const first = indexName(`${long}a`, 'slug');
    const second = indexName(`${long}b`, 'slug');
    expect(first.length).toBeLessThanOrEqual(63);
    expect(second.length).toBeLessThanOrEqual(63);
    expect(first).not.toBe(second);
    expect(indexName(`${long}a`, 'slug')).toBe(first);
  });
});
