import { richtextFormatOf } from '../../server/src/mapping/richtext-format';

describe('the format HTML takes in a richtext attribute', () => {
  test("is Markdown by default, as Strapi's own richtext editor is a Markdown editor", () => {
    expect(richtextFormatOf(undefined, () => ['upload', 'users-permissions', 'publish-bridge'])).toBe(
      'markdown'
    );
  });

  test.each(['richtext-editor', 'strapi-tiptap-editor'])(
    'is HTML when %s, a plugin that makes every richtext attribute an HTML editor, is installed',
    (plugin) => {
      expect(richtextFormatOf(undefined, () => ['upload', plugin])).toBe('html');
    }
  );

  test.each(['html', 'markdown'] as const)(
    'is %s when richtextFormat says so, whatever is installed',
    (format) => {
      expect(richtextFormatOf(format, () => ['richtext-editor'])).toBe(format);
      expect(richtextFormatOf(format, () => [])).toBe(format);
    }
  );

  test("a custom-field editor such as CKEditor's is not one of them: it leaves plain richtext attributes to Strapi", () => {
    expect(richtextFormatOf(undefined, () => ['ckeditor'])).toBe('markdown');
  });
});
