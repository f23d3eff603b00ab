import { randomUUID } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import type { Resource } from '../resources';
import type { WriteResult } from './types';
import type { LocaleScope } from './locales';
import { documentsOf, type DocumentEntry } from '../database/documents';
import { rowsOf } from '../database/schemas';
import { withoutEvents } from '../database/internal-events';

export type EditedDraft = { id: number };
export type VersionState = { published: boolean; editedDraft: EditedDraft | null };
/**
 * A version's row, as far as this service reads it: the drivers give a datetime as a Date, its
 * text, or epoch milliseconds.
 */
type VersionRow = {
  id: number;
  publishedAt: Date | string | number | null;
  updatedAt: Date | string | number | null;
};

/**
 * Strapi 5 publishes a document by copying its whole draft, and offers no way to write the
 * published version alone. When an editor saved changes in the Content Manager without
 * publishing them (the entry shows "Modified"), publishing the draft would publish those
 * unreviewed changes along with the fields the platform sent. In a type with i18n on, all of
 * this happens in the plugin's locale (`at`); the other locales' rows are never read or moved.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const documents = (resource: Resource) => documentsOf(strapi, resource.uid);
  const rows = (resource: Resource) => rowsOf<VersionRow>(strapi, resource.uid);
  /** A documentId no document holds: Strapi's are 24 lowercase letters and digits. */
  const asideId = () => `publish-bridge-aside-${randomUUID()}`;

  return {
    /**
     * The document's versions (in `at`), from one read of its rows: whether it has a published
     * version (types without draft and publish have none), and its draft when that was saved after
     * the published version (the Content Manager's "Modified" rule).
     */
    async state(resource: Resource, documentId: string, at: LocaleScope): Promise<VersionState> {
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
      return { published: Boolean(published), editedDraft: savedAfter ? { id: draft.id } : null };
    },

    /**
     * Publishes the data `forPublished` computes, written as a draft over a copy of the published
     * version instead of over the editor's draft. The editor's draft row is set aside under another
     * documentId meanwhile, so Strapi's discardDraft and publish do not see it, and then comes back
     * as it was: its relations, components and media hang on its row id, so none of them moves.
     * The copy is deleted through the Document Service, components included. Runs in the caller's
     * transaction: a failure puts every documentId back.
     *
     * The copy's events (a draft-discard, an update, a delete under the aside documentId) are
     * dropped: the site's webhooks hear the publish, as after Strapi's own update with status
     * published (entry.update of the draft, then entry.publish); the caller's update of the
     * editor's draft is that entry.update. `forPublished` runs outside the silence, so a category
     * or tag it creates is heard.
     */
    async publishBesideDraft(
      resource: Resource,
      documentId: string,
      draft: EditedDraft,
      at: LocaleScope,
      forPublished: () => Promise<Record<string, unknown>>
    ): Promise<void> {
      const editorDraftAside = asideId();
      await rows(resource).update({ where: { id: draft.id }, data: { documentId: editorDraftAside } });
      const { entries } = await withoutEvents(strapi, () =>
        documents(resource).discardDraft({ documentId, ...at })
      );
      const data = await forPublished();
      await withoutEvents(strapi, () => documents(resource).update({ documentId, ...at, data }));
      await documents(resource).publish({ documentId, ...at });
      const copyAside = asideId();
      for (const copy of entries as Array<{ id: number }>)
        await rows(resource).update({ where: { id: copy.id }, data: { documentId: copyAside } });
      await rows(resource).update({ where: { id: draft.id }, data: { documentId } });
      await withoutEvents(strapi, () => documents(resource).delete({ documentId: copyAside, ...at }));
    },

    /**
     * Writes a partial update: `forDraft` to the draft, published with it when `publish`. When the
     * document is published, stays so, and an editor saved unpublished changes, the published
     * version is written beside the editor's draft instead: it takes `forPublished()`, computed
     * once it is the draft, so that sent values merge into its own seo and zone, not into the
     * editor's. Returns the draft as written and the notes only the published version's data had.
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
      await this.publishBesideDraft(resource, documentId, editedDraft, at, async () => {
        const { data, notes } = await forPublished();
        addedNotes = notes.filter((note) => !forDraft.notes.includes(note));
        return data;
      });
      // Last, so the draft stays newer than the published version: the entry still shows "Modified".
      const written = await documents(resource).update({ documentId, ...at, data: forDraft.data });
      return { written, addedNotes };
    },
  };
};
