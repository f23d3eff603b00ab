import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import { componentOf, contentTypeOf } from '../../database/schemas';
import { managedEntries, type StoredManagedEntry } from '../../database/managed-entries';
import type { Trx } from '../../database/knex';
import { inBoundedTransaction } from '../../database/lock-waits';
import { pluginConfig } from '../../plugin';
import { isPluginWork } from '../delivery/transactions';
import { TransactionEnded } from '../../database/transactions';
import { changedFields, digestOf, type Fingerprints, type ShapesOf } from '../../mapping/fingerprints';
import type { Resource } from '../../resources';
import type { LocaleScope } from '../site/locales';
import type { WriteResult } from '../types';

type Values = Record<string, unknown>;

/** The locales a Document Service call's `locale` parameter names: one (and none, for a type without i18n), or every one. */
export const localesNamedBy = (locale: unknown): string[] | '*' =>
  typeof locale === 'string' && locale !== '*' ? [locale, ''] : '*';

/**
 * An entry's managed-entry row as the plugin uses it; an entry without one has neither.
 * `publishedByPlatform`: the platform's last write left the entry published (null: not known,
 * an entry written before the plugin kept it). `draftSavedInStrapi`: someone saved the draft in
 * Strapi (the Content Manager, the site's code) since it was last published, whatever fields they
 * changed, also those the platform never sent and so never fingerprinted: the mark says so, or
 * the draft was saved after the plugin last wrote or noted the row (`savedSinceNoted` in database/managed-entries.ts).
 */
export type ManagedEntry = Omit<StoredManagedEntry, 'savedSinceNoted'>;

/**
 * The entry's managed-entry row, both columns in one SELECT: an update needs the fingerprints
 * and the waiting publish alike. Outside a transaction when `trx` is null (a read for display).
 * In a transaction (a write follows), a save found by `savedSinceNoted` alone is written
 * into the mark first: the write moves the row's `updatedAt` past that draft, and the save would
 * be forgotten.
 */
export async function managedEntry(
  strapi: Core.Strapi,
  trx: Trx | null,
  uid: string,
  documentId: string,
  at: LocaleScope
): Promise<ManagedEntry> {
  const rows = managedEntries(strapi);
  const { savedSinceNoted, ...row } = await rows.read(trx, uid, documentId, at);
  const savedUnmarked = !row.draftSavedInStrapi && savedSinceNoted;
  if (trx && savedUnmarked) {
    // A mark the database refuses must not fail the write, which the answer below holds back all
    // the same; a failure that ended the write's transaction does (the write is tried again).
    await rows.markDraftSavedInSavepoint(trx, uid, documentId, at).catch((error: Error) => {
      if (error instanceof TransactionEnded) throw error;
      strapi.log.warn(
        `[${PLUGIN_ID}] could not note the editor's save of ${uid} ${documentId}'s draft: ${error.message}`
      );
    });
  }
  return { ...row, draftSavedInStrapi: row.draftSavedInStrapi || savedUnmarked };
}

/**
 * What the plugin last wrote into each entry it manages, kept as a fingerprint per contract field
 * (see mapping/fingerprints.ts), one row per entry and locale. Written in the transaction of the
 * write it describes, and read under the lock that write holds on the entry.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = managedEntries(strapi);
  const shapes: ShapesOf = (uid) => (contentTypeOf(strapi, uid) ?? componentOf(strapi, uid))?.attributes;

  return {
    /** The entry's managed-entry row: its fingerprints and the publish waiting for it. */
    entry: (
      trx: Trx | null,
      resource: Resource,
      documentId: string,
      at: LocaleScope
    ): Promise<ManagedEntry> => managedEntry(strapi, trx, resource.uid, documentId, at),

    /** The shapes of a content type's attributes, as fingerprints and revisions read them. */
    shapeOf: (uid: string) => shapes(uid) ?? {},

    /**
     * How the Document Service reads `attributes` of `uid` for a comparison: related entries by
     * documentId, files by id, components and zones one level deep.
     */
    populateOf(uid: string, attributes: string[]): Record<string, unknown> {
      const shapeOf = shapes(uid) ?? {};
      const how = (type: string) => {
        if (type === 'relation') return { fields: ['documentId'] };
        if (type === 'media') return { fields: ['id'] };
        return true;
      };
      return Object.fromEntries(
        attributes.flatMap((attribute) => {
          const type = shapeOf[attribute]?.type ?? '';
          return ['relation', 'media', 'component', 'dynamiczone'].includes(type)
            ? [[attribute, how(type)]]
            : [];
        })
      );
    },

    /** The sent fields whose stored values someone changed since the plugin wrote them. */
    changed(resource: Resource, fields: string[], fingerprints: Fingerprints, current: Values): string[] {
      return changedFields(fields, fingerprints, current, this.shapeOf(resource.uid), shapes);
    },

    /**
     * The fingerprints of the fields `written` wrote beside those `kept` for the fields it did not
     * send. `stored` holds the values the write replaced, when they were read.
     */
    of(
      resource: Resource,
      written: WriteResult,
      { kept = {}, stored }: { kept?: Fingerprints; stored?: Values | null } = {}
    ): Fingerprints {
      const fingerprints: Fingerprints = { ...kept };
      for (const [field, attributes] of Object.entries(written.attributesOf)) {
        const digests = attributes.map((attribute) => [
          attribute,
          digestOf(attribute, written.data, this.shapeOf(resource.uid), shapes, stored),
        ]);
        fingerprints[field] = { ...kept[field], ...Object.fromEntries(digests) };
      }
      return fingerprints;
    },

    /**
     * Keeps what a write changed of the entry's managed-entry row (its fingerprints, the publish
     * it left waiting, whether it left the entry published) in one upsert; the columns not given stay as they were. Nothing
     * given, nothing is written.
     */
    async record(
      trx: Trx,
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      { fingerprints, scheduledAt, publishedByPlatform }: Partial<ManagedEntry>
    ): Promise<void> {
      if (fingerprints === undefined && scheduledAt === undefined && publishedByPlatform === undefined)
        return;
      await rows.upsert(trx, resource.uid, documentId, at, {
        fingerprints,
        scheduledAt,
        publishedByPlatform,
      });
    },

    /**
     * Notes that the document's draft in `locales` was saved in Strapi (`saved`), or published or
     * discarded, or written by the plugin itself (null: the mark stays as it is). Each note moves
     * the row's `updatedAt` past the draft's, so that `savedSinceNoted` tells of later saves
     * only. Bounded: an editor's save must not hang behind a lock on the plugin's table.
     */
    async markDraftSaved(
      uid: string,
      documentId: string,
      locales: string[] | '*',
      saved: boolean | null
    ): Promise<void> {
      if (locales !== '*' && locales.length === 0) return;
      const note = (trx: Trx) => rows.noteDraftSave(trx, uid, documentId, locales, saved);
      // The plugin's own work (a publish, an update, a restore) runs in its transaction, whose lock
      // waits it bounds: the note is one more statement of it (a savepoint of its own would cost
      // two more), and the work commits with it or fails with it, so a publish never leaves
      // behind the mark it should have cleared. Work abandoned after its transaction ended (a
      // lost connection) has none: its note is bounded on its own, as an editor's.
      if (isPluginWork() && strapi.db.inTransaction())
        await strapi.db.transaction(({ trx }: { trx: Trx }) => note(trx));
      else await inBoundedTransaction(strapi, pluginConfig(strapi).lockTimeoutMs, note);
    },

    /** Forgets the entry in the plugin's locale: it was deleted there. */
    async forget(trx: Trx, resource: Resource, documentId: string, at: LocaleScope): Promise<void> {
      await rows.delete(trx, resource.uid, documentId, at);
    },
  };
};
