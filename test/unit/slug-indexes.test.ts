import { indexName, isPluginIndexName } from '../../server/src/database/indexes';

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

describe('isPluginIndexName', () => {
  test("knows every name indexName gives on a table, short or cut to a digest, and no other table's", () => {
    const long = 'components_' + 'very_long_collection_name_'.repeat(3);
    expect(isPluginIndexName('articles', indexName('articles', 'slug'))).toBe(true);
    expect(isPluginIndexName('articles', indexName('articles', 'name_nocase'))).toBe(true);
    expect(isPluginIndexName(long, indexName(long, 'slug'))).toBe(true);
    expect(isPluginIndexName('authors', indexName('articles', 'slug'))).toBe(false);
  });

  test('leaves an index the site named …_pb_idx in its own way', () => {
    expect(isPluginIndexName('articles', 'search_pb_idx')).toBe(false);
    expect(isPluginIndexName('articles', 'articles_slug_idx')).toBe(false);
  });
});
