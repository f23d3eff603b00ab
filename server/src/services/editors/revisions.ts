import type { Core } from '@strapi/strapi';
import type { RestoredRevision, RevisionItem } from '#contract/admin/revisions';
import { UIDS } from '../../constants';
import { documentsOf } from '../../database/documents';
import { setCreatorFields } from '@strapi/utils';
import { contentTypeOf, rowsOf } from '../../database/schemas';
import type { FieldTarget } from '../../mapping/resolve';
import { relatedDocumentIds, withoutDanglingRelations, writableValues } from '../../mapping/revision-values';
import type { Resource } from '../../resources';
import type { LocaleScope } from '../site/locales';
import { getService, pluginConfig } from '../../plugin';

type Values = Record<string, unknown>;
type RevisionRow = {
  id: number;
  contentType: string;
  entryDocumentId: string;
  entryLocale: string;
  reason: RevisionItem['reason'];
  fields: Record<string, Values> | string | null;
  createdAt: string;
};

/** The attributes a contract field is stored in: one, or the seo object's parts. */
export const attributesOfField = (target: FieldTarget): string[] =>
  target.adapter === 'seoFields'
    ? Object.values(target.seo ?? {}).flatMap((part) => (part ? [part.attribute] : []))
    : [target.attribute];

/** The kept fields with what `readable` lets through of their values; a field left with none goes. */
async function readableFields(
  fields: Record<string, Values>,
  readable: (values: Values) => Promise<Values>
): Promise<Record<string, Values>> {
  // One judgement of all the revision's values: each attribute belongs to one field.
  const shown = await readable(Object.assign({}, ...Object.values(fields)));
  return Object.fromEntries(
    Object.entries(fields).flatMap(([field, values]) => {
      const kept = Object.keys(values).filter((attribute) => attribute in shown);
      return kept.length > 0
        ? [[field, Object.fromEntries(kept.map((attribute) => [attribute, shown[attribute]]))]]
        : [];
    })
  );
}

/** The admin a restore is done by: the entry's creator when it makes one, its last editor always. */
type Restorer = { id: number | string };

const parsed = (fields: RevisionRow['fields']): Record<string, Values> =>
  (typeof fields === 'string' ? JSON.parse(fields) : fields) ?? {};

/**
 * An entry's previous values, kept before the plugin overwrites what an editor changed and
 * before it deletes an entry, so an editor can see and restore them (Strapi's own Content
 * History is a paid feature). Written in the transaction of the write they precede: a write
 * that fails keeps no revision. At most `revisions.keepPerEntry` per entry and locale.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = () => rowsOf<RevisionRow>(strapi, UIDS.revision);
  const entryOf = (uid: string, documentId: string, at: LocaleScope) => ({
    contentType: uid,
    entryDocumentId: documentId,
    entryLocale: at.locale ?? '',
  });

  /** Deletes the revisions `where` selects past the newest `keep` (at most 1,000 at a time). */
  async function dropPast(where: Record<string, unknown>, keep: number) {
    const older = await rows().findMany({
      where,
      select: ['id'],
      orderBy: [{ id: 'desc' }],
      offset: keep,
      limit: 1000,
    });
    if (older.length > 0) await rows().deleteMany({ where: { id: { $in: older.map(({ id }) => id) } } });
  }

  return {
    /** Keeps `fields` (contract field → attribute → value as read) and drops the oldest past the limit. */
    async keep(
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      reason: RevisionItem['reason'],
      fields: Record<string, Values>
    ): Promise<void> {
      if (Object.keys(fields).length === 0) return;
      const entry = entryOf(resource.uid, documentId, at);
      await rows().create({ data: { ...entry, reason, fields } });
      const { keepPerEntry, keepDeleted } = pluginConfig(strapi).revisions;
      await dropPast(entry, keepPerEntry);
      // The per-entry cap never reaches revisions of deleted entries (each delete leaves an entry
      // that is gone), so they are capped across all entries.
      if (reason === 'delete') await dropPast({ reason: 'delete' }, keepDeleted);
    },

    /** The values of the given fields in `stored` (a document read with those attributes). */
    valuesOf(resource: Resource, fields: string[], stored: Values | null): Record<string, Values> {
      return Object.fromEntries(
        fields.map((field) => [
          field,
          Object.fromEntries(
            attributesOfField(resource.fields[field])
              .filter((attribute) => stored !== null && attribute in stored)
              .map((attribute) => [attribute, stored![attribute]])
          ),
        ])
      );
    },

    /** Keeps every mapped field's values of the document's draft before it is deleted. */
    async keepBeforeDelete(resource: Resource, documentId: string, at: LocaleScope): Promise<void> {
      const fields = Object.keys(resource.fields);
      const attributes = fields.flatMap((field) => attributesOfField(resource.fields[field]));
      const stored = await getService(strapi, 'fields').storedValues(
        resource,
        documentId,
        at,
        {},
        attributes
      );
      if (stored)
        await this.keep(resource, documentId, at, 'delete', this.valuesOf(resource, fields, stored));
    },

    /**
     * The entry's revisions, newest first, with what `readable` lets through of their values; a
     * revision of which it lets nothing through is left out: an empty one tells only that
     * unreadable fields changed.
     */
    async list(
      uid: string,
      documentId: string,
      locale: string | undefined,
      readable: (values: Values) => Promise<Values>
    ): Promise<RevisionItem[]> {
      const found = await rows().findMany({
        where: entryOf(uid, documentId, { locale }),
        orderBy: [{ id: 'desc' }],
      });
      const listed = await Promise.all(
        found.map(async ({ id, createdAt, reason, fields }) => ({
          id,
          createdAt: new Date(createdAt).toISOString(),
          reason,
          fields: await readableFields(parsed(fields), readable),
        }))
      );
      return listed.filter(({ fields }) => Object.keys(fields).length > 0);
    },

    /**
     * What a restore of the revision would write, and where: its entry and the values it holds
     * (attribute → value). None for a revision that does not exist, or whose type the site no longer has.
     */
    async targetOf(
      id: number
    ): Promise<{ uid: string; documentId: string; locale?: string; values: Values } | null> {
      const revision = await rows().findOne({ where: { id } });
      if (!revision || !contentTypeOf(strapi, revision.contentType)) return null;
      const values = Object.assign({}, ...Object.values(parsed(revision.fields))) as Values;
      const { contentType: uid, entryDocumentId: documentId, entryLocale } = revision;
      return { uid, documentId, locale: entryLocale || undefined, values };
    },

    /**
     * The entries the kept relations point at that still exist, by attribute (any locale, any
     * status: a related entry deleted since has no row left).
     */
    async existingRelated(
      uid: string,
      kept: Values
    ): Promise<(attribute: string, documentId: string) => boolean> {
      const attributes = contentTypeOf(strapi, uid)?.attributes ?? {};
      const existing = new Set<string>();
      // One after the other: in the restore's transaction they share one connection, which runs
      // one query at a time (pg warns of a second sent while one runs, and pg 9 refuses it).
      for (const [attribute, value] of Object.entries(kept)) {
        const target = (attributes[attribute] as { type?: string; target?: string } | undefined) ?? {};
        const documentIds = relatedDocumentIds(value);
        if (target.type !== 'relation' || !target.target || documentIds.length === 0) continue;
        const rows = await rowsOf<{ documentId: string }>(strapi, target.target).findMany({
          where: { documentId: { $in: documentIds } },
          select: ['documentId'],
        });
        for (const { documentId } of rows) existing.add(`${attribute}#${documentId}`);
      }
      return (attribute, documentId) => existing.has(`${attribute}#${documentId}`);
    },

    /**
     * Writes the revision's values back into the entry's draft, as an editor's save would (the
     * entry then shows as Modified until someone publishes it), by `restorer` as its last editor.
     * An entry that was deleted comes back as a draft, which is the editor's, not the plugin's,
     * created by `restorer`: in its document when other locales of it remain, else as a new
     * document. A relation to an entry deleted since is left out, and named.
     */
    async restore(id: number, restorer: Restorer): Promise<RestoredRevision> {
      const revision = await rows().findOne({ where: { id } });
      if (!revision) throw new Error(`Revision ${id} does not exist.`);
      const { contentType: uid, entryDocumentId: documentId, entryLocale } = revision;
      const at: LocaleScope = entryLocale ? { locale: entryLocale } : {};
      const shapeOf = getService(strapi, 'fingerprints').shapeOf(uid);
      const documents = documentsOf(strapi, uid);
      return getService(strapi, 'transactions').run(async () => {
        const everything = Object.assign({}, ...Object.values(parsed(revision.fields))) as Values;
        const exists = await this.existingRelated(uid, everything);
        const { kept, leftOut } = withoutDanglingRelations(everything, shapeOf, exists);
        const populate = getService(strapi, 'fingerprints').populateOf(uid, Object.keys(kept));
        const current = await documents.findOne({ documentId, ...at, populate });
        const data = writableValues(kept, shapeOf, current);
        const user = { id: Number(restorer.id) };
        if (current) {
          const updated = await documents.update({
            documentId,
            ...at,
            data: setCreatorFields({ user, isEdition: true })(data),
          });
          // An admin's decision, as a save in the Content Manager is: the platform's status-only
          // or scheduled publish must not publish it unreviewed.
          await getService(strapi, 'editor-changes').noteDraftSave(uid, documentId, updated, true);
          return { documentId, recreated: false, leftOut };
        }
        const anew = setCreatorFields({ user })(data);
        // A locale deleted while others remain comes back into its document (Strapi's update
        // makes a missing locale, with the values the locales share); a document gone from every
        // locale answers none, and comes back as a new one.
        const created =
          (await documents.update({ documentId, ...at, data: anew })) ??
          (await documents.create({ ...at, data: anew }));
        // Spent: restoring it again would make the entry a second time.
        await rows().delete({ where: { id } });
        return { documentId: created.documentId, recreated: true, leftOut };
      });
    },
  };
};
