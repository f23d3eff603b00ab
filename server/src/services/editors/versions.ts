import type { Core } from '@strapi/strapi';
import type { Resource } from '../../resources';
import type { WriteResult } from '../types';
import type { LocaleScope } from '../site/locales';
import { documentsOf, type DocumentEntry } from '../../database/documents';
import { rowsOf } from '../../database/schemas';
import {
  announcePublish,
  shareNonLocalizedValues,
  writePublishedVersion,
} from '../../database/published-version';

export type EditedDraft = { id: number };
export type VersionState = { published: boolean; editedDraft: EditedDraft | null };
/**
 * A version's row, as far as this service reads it: the drivers give a datetime as a Date, its
 * text, or epoch milliseconds.
 */
type VersionRow = {
  id: number;
  locale?: string | null;
  publishedAt: Date | string | number | null;
  updatedAt: Date | string | number | null;
};

/**
 * Strapi 5 publishes a document by copying its whole draft, and offers no way to write the
 * published version alone. When an editor saved changes in the Content Manager without
 * publishing them (the entry shows "Modified"), publishing the draft would publish those
 * unreviewed changes along with the fields the platform sent. In a type with i18n on, all of
 * this happens in the plugin's locale (`at`); the other locales' rows take only the non-localized
 * values, as after Strapi's own publish.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const documents = (resource: Resource) => documentsOf(strapi, resource.uid);
  const rows = (resource: Resource) => rowsOf<VersionRow>(strapi, resource.uid);

  return {
    /**
     * The document's versions (in `at`), from one read of its rows: whether it has a published
     * version (types without draft and publish have none), and its draft when that was saved after
     * the published version (the Content Manager's "Modified" rule) or an editor saved it since it
     * was last published (`draftSavedInStrapi`: a write that bypasses the Document Service, as
     * i18n's sharing of non-localized values into the published version, moves the published
     * version's time past the draft's).
     */
    async state(
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      draftSavedInStrapi = false
    ): Promise<VersionState> {
      if (!resource.draftAndPublish) return { published: false, editedDraft: null };
      const versions = await rows(resource).findMany({
        select: ['id', 'publishedAt', 'updatedAt'],
        where: { documentId, ...(at.locale ? { locale: at.locale } : {}) },
      });
      const draft = versions.find((version) => version.publishedAt == null);
      const published = versions.find((version) => version.publishedAt != null);
      const savedAfter =
        draft?.updatedAt &&
        published &&
        new Date(draft.updatedAt).getTime() > new Date(published.updatedAt ?? 0).getTime();
      const edited = draft && published && (savedAfter || draftSavedInStrapi);
      return { published: Boolean(published), editedDraft: edited ? { id: draft.id } : null };
    },

    /**
     * Publishes the data `forPublished` computes (from the published version's own values) by
     * writing the published version in place, beside the editor's draft, which no step reads or
     * moves. Runs in the caller's transaction; the site's webhooks hear entry.publish once it
     * commits, and the caller's update of the editor's draft is the entry.update that follows, as
     * after Strapi's own update with status published.
     */
    async publishBesideDraft(
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      forPublished: () => Promise<Record<string, unknown>>
    ): Promise<void> {
      const published = await rows(resource).findOne({
        select: ['id', 'locale'],
        where: { documentId, publishedAt: { $notNull: true }, ...(at.locale ? { locale: at.locale } : {}) },
      });
      if (!published) throw new Error(`${resource.uid} ${documentId} has no published version to write`);
      const data = await forPublished();
      await writePublishedVersion(strapi, resource.uid, published, data);
      await shareNonLocalizedValues(strapi, resource.uid, published.id, data);
      await announcePublish(strapi, resource.uid, published.id);
    },

    /**
     * Writes a partial update: `forDraft` to the draft, published with it when `publish`. When the
     * document is published, stays so, and an editor saved unpublished changes, the published
     * version is written beside the editor's draft instead: it takes `forPublished()`, computed
     * from the published version's values, so that sent values merge into its own seo and zone,
     * not into the editor's. Returns the draft as written and the notes only the published version's data had.
     */
    async writeUpdate(
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      { state, publish }: { state: VersionState; publish: boolean },
      forDraft: WriteResult,
      forPublished: () => Promise<WriteResult>
    ): Promise<{ written: DocumentEntry | null; addedNotes: string[] }> {
      const editedDraft = publish ? state.editedDraft : null;
      if (!editedDraft) {
        const written = await documents(resource).update({
          documentId,
          ...at,
          data: forDraft.data,
          ...(publish ? { status: 'published' } : {}),
        });
        return { written, addedNotes: [] };
      }
      let addedNotes: string[] = [];
      await this.publishBesideDraft(resource, documentId, at, async () => {
        const { data, notes } = await forPublished();
        addedNotes = notes.filter((note) => !forDraft.notes.includes(note));
        return data;
      });
      // Last, so the draft stays newer than the published version: the entry still shows "Modified".
      const written = await documents(resource).update({ documentId, ...at, data: forDraft.data });
      // Strapi's i18n shares a draft's non-localized values when they changed, judged against a
      // row it picks by documentId alone: it may pick the published row that just took them.
      if (written) await shareNonLocalizedValues(strapi, resource.uid, written.id, forDraft.data);
      return { written, addedNotes };
    },
  };
};
