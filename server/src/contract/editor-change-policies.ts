/**
 * What an update does to the fields it carries that an editor changed in Strapi since the
 * platform last sent them: `overwrite` them, `keep` the editor's values (the other fields
 * update), or write the whole update to the `draft` for review, the published version left as
 * it is. Shared by the admin API's schema and the settings page; no import, so the page's
 * bundle takes only this list.
 */
export const EDITOR_CHANGE_POLICIES = ['overwrite', 'keep', 'draft'] as const;
export type EditorChangePolicy = (typeof EDITOR_CHANGE_POLICIES)[number];
