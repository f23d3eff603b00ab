import type { Core } from '@strapi/strapi';
import { PLUGIN_ID, UIDS } from '../../constants';
import { componentOf, contentTypeOf } from '../../database/schemas';
import { instantFromStored, storedInstant, tableOf } from '../../database/tables';
import type { Knex, Trx } from '../../database/knex';
import { inBoundedTransaction } from '../../database/lock-waits';
import { pluginConfig } from '../../plugin';
import { changedFields, digestOf, type Fingerprints, type ShapesOf } from '../../mapping/fingerprints';
import type { Resource } from '../../resources';
import type { LocaleScope } from '../site/locales';
import type { WriteResult } from '../types';

type Values = Record<string, unknown>;

/** The columns that name an entry's managed-entry row: its type, its documentId, its locale ('' without i18n). */
export function managedEntryOf(strapi: Core.Strapi, uid: string, documentId: string, at: LocaleScope) {
  const { column } = tableOf(strapi, UIDS.managedEntry);
  return {
    [column('contentType')]: uid,
    [column('entryDocumentId')]: documentId,
    [column('entryLocale')]: at.locale ?? '',
  };
}

/** The locales a Document Service call's `locale` parameter names: one (and none, for a type without i18n), or every one. */
export const localesNamedBy = (locale: unknown): string[] | '*' =>
  typeof locale === 'string' && locale !== '*' ? [locale, ''] : '*';

/** The managed-entry rows of a document in `locales` ('' for a type without i18n), or in every locale. */
export function managedRowsOf(strapi: Core.Strapi, uid: string, documentId: string, locales: string[] | '*') {
  const { name, column } = tableOf(strapi, UIDS.managedEntry);
  const rows = strapi.db
    .connection(name)
    .where(column('contentType'), uid)
    .where(column('entryDocumentId'), documentId);
  return locales === '*' ? rows : rows.whereIn(column('entryLocale'), locales);
}

/**
 * An entry's managed-entry row as the plugin uses it; an entry without one has neither.
 * `publishedByPlatform`: the platform's last write left the entry published (null: not known,
 * an entry written before the plugin kept it). `draftSavedInStrapi`: someone saved the draft in
 * Strapi (the Content Manager, the site's code) since it was last published, whatever fields they
 * changed, also those the platform never sent and so never fingerprinted: the mark says so, or
 * the draft was saved after the plugin last wrote or noted the row (see `draftSavedSinceNoted`).
 */
export type ManagedEntry = {
  fingerprints: Fingerprints;
  scheduledAt: Date | null;
  publishedByPlatform: boolean | null;
  draftSavedInStrapi: boolean;
};

/**
 * Whether the entry's draft was saved after the plugin last wrote its managed-entry row or noted
 * a save of it (both move the row's `updatedAt`): a save the mark does not tell of yet (it is
 * written once the save committed, so a publish can come between) or never will (its UPDATE
 * failed). Fail closed: such a save counts as an editor's.
 */
function draftSavedSinceNoted(strapi: Core.Strapi, uid: string, documentId: string, at: LocaleScope) {
  const knex = strapi.db.connection;
  const managed = tableOf(strapi, UIDS.managedEntry);
  const entries = tableOf(strapi, uid);
  const entry = (attribute: string) => `${entries.name}.${entries.column(attribute)}`;
  const laterDraft = knex(entries.name)
    .select(knex.raw('1'))
    .where(entry('documentId'), documentId)
    .whereNull(entry('publishedAt'))
    .where(entry('updatedAt'), '>', knex.ref(`${managed.name}.${managed.column('updatedAt')}`));
  if (at.locale) laterDraft.where(entry('locale'), at.locale);
  return knex.raw('(case when exists ? then 1 else 0 end)', [laterDraft]);
}

/**
 * The entry's managed-entry row, both columns in one SELECT: an update needs the fingerprints
 * and the waiting publish alike. Outside a transaction when `trx` is null (a read for display).
 * In a transaction (a write follows), a save found by `draftSavedSinceNoted` alone is written
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
  const { name, column } = tableOf(strapi, UIDS.managedEntry);
  const query = strapi.db
    .connection(name)
    .select({
      fingerprints: column('fingerprints'),
      scheduledAt: column('scheduledAt'),
      publishedByPlatform: column('publishedByPlatform'),
      draftSavedInStrapi: column('draftSavedInStrapi'),
      ...(contentTypeOf(strapi, uid)
        ? { draftSavedSince: draftSavedSinceNoted(strapi, uid, documentId, at) }
        : {}),
    })
    .where(managedEntryOf(strapi, uid, documentId, at))
    .first();
  const row = await (trx ? query.transacting(trx) : query);
  const savedUnmarked = !row?.draftSavedInStrapi && Boolean(Number(row?.draftSavedSince ?? 0));
  if (trx && savedUnmarked) {
    // In a savepoint: a mark the database refuses must not fail the write, which the answer
    // below holds back all the same.
    await trx
      .transaction((savepoint) =>
        strapi.db
          .connection(name)
          .transacting(savepoint)
          .where(managedEntryOf(strapi, uid, documentId, at))
          .update({ [column('draftSavedInStrapi')]: true })
      )
      .catch((error: Error) =>
        strapi.log.warn(
          `[${PLUGIN_ID}] could not note the editor's save of ${uid} ${documentId}'s draft: ${error.message}`
        )
      );
  }
  const fingerprints =
    typeof row?.fingerprints === 'string' ? JSON.parse(row.fingerprints) : row?.fingerprints;
  return {
    fingerprints: fingerprints ?? {},
    scheduledAt: instantFromStored(row?.scheduledAt),
    // SQLite and MariaDB answer a boolean column with 0 or 1.
    publishedByPlatform: row?.publishedByPlatform == null ? null : Boolean(row.publishedByPlatform),
    draftSavedInStrapi: Boolean(row?.draftSavedInStrapi) || savedUnmarked,
  };
}

/**
 * What the plugin last wrote into each entry it manages, kept as a fingerprint per contract field
 * (see mapping/fingerprints.ts), one row per entry and locale. Written in the transaction of the
 * write it describes, and read under the lock that write holds on the entry.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = (): Knex => strapi.db.connection;
  const table = () => tableOf(strapi, UIDS.managedEntry);
  const shapes: ShapesOf = (uid) => (contentTypeOf(strapi, uid) ?? componentOf(strapi, uid))?.attributes;

  const entryOf = (resource: Resource, documentId: string, at: LocaleScope) =>
    managedEntryOf(strapi, resource.uid, documentId, at);

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
      const { name, column } = table();
      const now = new Date();
      await knex()(name)
        .transacting(trx)
        .insert({
          ...entryOf(resource, documentId, at),
          [column('fingerprints')]: JSON.stringify(fingerprints ?? {}),
          [column('scheduledAt')]: scheduledAt ? storedInstant(strapi, scheduledAt) : null,
          // A schedule the platform sets (or cancels) starts without the failures of the one before.
          [column('publishRetryAt')]: null,
          [column('publishFailures')]: 0,
          [column('publishedByPlatform')]: publishedByPlatform ?? null,
          [column('createdAt')]: now,
          [column('updatedAt')]: now,
          [column('publishedAt')]: now,
        })
        .onConflict([column('contentType'), column('entryDocumentId'), column('entryLocale')])
        // updatedAt moves with the fingerprints only, as it did while the two were written apart.
        .merge([
          ...(fingerprints === undefined ? [] : [column('fingerprints'), column('updatedAt')]),
          ...(scheduledAt === undefined
            ? []
            : [column('scheduledAt'), column('publishRetryAt'), column('publishFailures')]),
          ...(publishedByPlatform === undefined ? [] : [column('publishedByPlatform')]),
        ]);
    },

    /**
     * Notes that the document's draft in `locales` was saved in Strapi (`saved`), or published or
     * discarded, or written by the plugin itself (null: the mark stays as it is). Each note moves
     * the row's `updatedAt` past the draft's, so that `draftSavedSinceNoted` tells of later saves
     * only. Bounded: an editor's save must not hang behind a lock on the plugin's table.
     */
    async markDraftSaved(
      uid: string,
      documentId: string,
      locales: string[] | '*',
      saved: boolean | null
    ): Promise<void> {
      if (locales !== '*' && locales.length === 0) return;
      const { column } = table();
      await inBoundedTransaction(strapi, pluginConfig(strapi).lockTimeoutMs, (trx) =>
        managedRowsOf(strapi, uid, documentId, locales)
          .transacting(trx)
          .update({
            [column('updatedAt')]: new Date(),
            ...(saved === null ? {} : { [column('draftSavedInStrapi')]: saved }),
          })
      );
    },

    /** Forgets the entry in the plugin's locale: it was deleted there. */
    async forget(trx: Trx, resource: Resource, documentId: string, at: LocaleScope): Promise<void> {
      await knex()(table().name)
        .transacting(trx)
        .where(entryOf(resource, documentId, at))
        .delete();
    },
  };
};
