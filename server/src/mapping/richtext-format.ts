/**
 * What post HTML becomes in a plain `richtext` attribute. Strapi's own editor for that type is a
 * Markdown editor, so HTML stored as sent shows up there as raw tags: Markdown is the default.
 * A few plugins replace that editor for every `richtext` attribute with one that saves HTML; on
 * those sites HTML is what the editor reads. Custom fields (CKEditor's Strapi 5 plugin) are not
 * among them: they leave plain `richtext` attributes to Strapi and always get HTML elsewhere.
 */
export type RichtextFormat = 'html' | 'markdown';

/**
 * Plugins, by their name in Strapi's registry, that swap the editor of every `richtext`
 * attribute for an HTML one: `strapi-plugin-rich-text` ("richtext-editor") and
 * `strapi-tiptap-editor`. Both say in their README that they store HTML.
 */
export const HTML_RICHTEXT_EDITORS = ['richtext-editor', 'strapi-tiptap-editor'];

/**
 * The config's choice, else what the site's richtext editor edits. The installed plugins are
 * only asked for when the config leaves the choice to the site.
 */
export function richtextFormatOf(
  configured: RichtextFormat | undefined,
  installedPlugins: () => readonly string[]
): RichtextFormat {
  if (configured) return configured;
  const installed = installedPlugins();
  return HTML_RICHTEXT_EDITORS.some((name) => installed.includes(name)) ? 'html' : 'markdown';
}
