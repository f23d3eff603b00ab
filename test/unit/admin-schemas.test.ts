import { settingsUpdateSchema } from '#contract/admin/settings';
import { safeParseInPlainWords } from '../../server/src/contract/errors';

/** The messages per field, as the settings form shows them under each field. */
const problems = (body: unknown) => {
  const result = safeParseInPlainWords(settingsUpdateSchema, body);
  return result.success ? [] : result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
};

describe('the settings update schema, which the settings form also validates with', () => {
  test.each(['cms.example.com', 'ftp://cms.example.com'])(
    'names what a malformed address %s lacks',
    (url) => {
      expect(problems({ publicUrl: url })).toEqual([
        'publicUrl must be an absolute http(s) URL, e.g. https://cms.example.com',
      ]);
    }
  );

  test('checks the parts of an address only once it parses', () => {
    expect(problems({ platform: { url: 'https://user:secret@platform.example.com' } })).toEqual([
      'platform.url must not contain a user name or password',
    ]);
    expect(problems({ publicUrl: 'https://cms.example.com/?next=1' })).toEqual([
      'publicUrl must not contain a query (?) or a fragment (#)',
    ]);
    expect(problems({ publicUrl: '' })).toEqual([]);
  });

  test('refuses a key longer than 512 characters', () => {
    expect(problems({ connectionKey: { value: 'k'.repeat(513) } })).toEqual([
      'connectionKey.value is too long (at most 512 characters)',
    ]);
  });
});
