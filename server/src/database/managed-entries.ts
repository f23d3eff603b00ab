import type { Core } from '@strapi/strapi';
import { UIDS } from '../constants';
import type { Fingerprints } from '../mapping/fingerprints';
import type { Trx } from './knex';
import { contentTypeOf } from './schemas';
import { instantFromStored, storedInstant, tableOf } from './tables';
import { inSavepoint } from './transactions';

/** An entry in one locale, as its managed-entry row names it: no locale for a type without i18n. */
export type EntryLocale = { locale?: string };

/**
 * An entry's managed-entry row as stored, read as values (an entry without one reads as empty).
 * `savedSinceNoted`: the entry's draft was saved after the row's `updatedAt` (`draftSavedSinceNoted`).
 */
export type StoredManagedEntry = {
  fingerprints: Fingerprints;
  scheduledAt: Date | null;
  publishedByPlatform: boolean | null;
  draftSavedInStrapi: boolean;
  savedSinceNoted: boolean;
};

/** What a write keeps in an entry's managed-entry row; the columns not given stay as they were. */
export type ManagedEntryChange = Partial<
  Pick<StoredManagedEntry, 'fingerprints' | 'scheduledAt' | 'publishedByPlatform'>
>;

/** A publish that came due, as listed: the row it waits in, its entry, its time as stored, its failures so far. */
export type DuePublish = {
  id: number;
  uid: string;
  documentId: string;
  locale: string;
  scheduledAt: unknown;
  failures: number | string | null;
};

/**
 * The managed-entry rows' table (one row per entry and locale the plugin manages): every
 * statement the fingerprints and schedules services run on it. A statement given a transaction
 * runs in it; the others run on the site's connection, each on its own.
 */
// Over 50 lines: a repository factory; its statements, each short, share strapi through this closure.
export function managedEntries(strapi: Core.Strapi) {
  const knex = () => strapi.db.connection;
  const table = () => tableOf(strapi, UIDS.managedEntry);

  /** The columns that name an entry's row: its type, its documentId, its locale ('' without i18n). */
  function rowOf(uid: string, documentId: string, at: EntryLocale) {
    const { column } = table();
    return {
      [column('contentType')]: uid,
      [column('entryDocumentId')]: documentId,
      [column('entryLocale')]: at.locale ?? '',
    };
  }

  /** The rows of a document in `locales` ('' for a type without i18n), or in every locale. */
  function rowsOf(trx: Trx, uid: string, documentId: string, locales: string[] | '*') {
    const { name, column } = table();
    const rows = knex()(name)
      .transacting(trx)
      .where(column('contentType'), uid)
      .where(column('entryDocumentId'), documentId);
    return locales === '*' ? rows : rows.whereIn(column('entryLocale'), locales);
  }

  /**
   * Whether the entry's draft was saved after the plugin last wrote its managed-entry row or noted
   * a save of it (both move the row's `updatedAt`), as a column of the row's SELECT (1 or 0): a
   * save the mark does not tell of yet (it is written once the save committed, so a publish can
   * come between) or never will (its UPDATE failed). Fail closed: such a save counts as an editor's.
   */
  function draftSavedSinceNoted(uid: string, documentId: string, at: EntryLocale) {
    const managed = table();
    const entries = tableOf(strapi, uid);
    const entry = (attribute: string) => `${entries.name}.${entries.column(attribute)}`;
    const laterDraft = knex()(entries.name)
      .select(knex().raw('1'))
      .where(entry('documentId'), documentId)
      .whereNull(entry('publishedAt'))
      .where(entry('updatedAt'), '>', knex().ref(`${managed.name}.${managed.column('updatedAt')}`));
    if (at.locale) laterDraft.where(entry('locale'), at.locale);
    return knex().raw('(case when exists ? then 1 else 0 end)', [laterDraft]);
  }

  /** The columns a publish that is settled (done or cancelled) leaves: nothing waits, nothing failed. */
  const settled = () => {
    const { column } = table();
    return {
      [column('scheduledAt')]: null,
      [column('publishRetryAt')]: null,
      [column('publishFailures')]: 0,
    };
  };

  return {
    /** The entry's row, every column in one SELECT; outside a transaction when `trx` is null. */
    async read(
      trx: Trx | null,
      uid: string,
      documentId: string,
      at: EntryLocale
    ): Promise<StoredManagedEntry> {
      const { name, column } = table();
      const query = knex()(name)
        .select({
          fingerprints: column('fingerprints'),
          scheduledAt: column('scheduledAt'),
          publishedByPlatform: column('publishedByPlatform'),
          draftSavedInStrapi: column('draftSavedInStrapi'),
          ...(contentTypeOf(strapi, uid)
            ? { draftSavedSince: draftSavedSinceNoted(uid, documentId, at) }
            : {}),
        })
        .where(rowOf(uid, documentId, at))
        .first();
      const row = await (trx ? query.transacting(trx) : query);
      const fingerprints =
        typeof row?.fingerprints === 'string' ? JSON.parse(row.fingerprints) : row?.fingerprints;
      return {
        fingerprints: fingerprints ?? {},
        scheduledAt: instantFromStored(row?.scheduledAt),
        // SQLite and MariaDB answer a boolean column with 0 or 1.
        publishedByPlatform: row?.publishedByPlatform == null ? null : Boolean(row.publishedByPlatform),
        draftSavedInStrapi: Boolean(row?.draftSavedInStrapi),
        savedSinceNoted: Boolean(Number(row?.draftSavedSince ?? 0)),
      };
    },

    /**
     * Marks the entry's draft as saved in Strapi, in a savepoint of `trx`: an UPDATE the database
     * refuses rolls back alone, and the caller's transaction goes on (unless the failure ended it:
     * inSavepoint).
     */
    async markDraftSavedInSavepoint(trx: Trx, uid: string, documentId: string, at: EntryLocale) {
      const { name, column } = table();
      await inSavepoint(strapi, trx, (savepoint) =>
        knex()(name)
          .transacting(savepoint)
          .where(rowOf(uid, documentId, at))
          .update({ [column('draftSavedInStrapi')]: true })
      );
    },

    /** Writes `change` into the entry's row in one upsert; the columns not given stay as they were. */
    async upsert(
      trx: Trx,
      uid: string,
      documentId: string,
      at: EntryLocale,
      { fingerprints, scheduledAt, publishedByPlatform }: ManagedEntryChange
    ): Promise<void> {
      const { name, column } = table();
      const now = new Date();
      await knex()(name)
        .transacting(trx)
        .insert({
          ...rowOf(uid, documentId, at),
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
     * Moves the `updatedAt` of the document's rows in `locales` to now and, unless `saved` is
     * null, sets their mark of a draft saved in Strapi to `saved`.
     */
    async noteDraftSave(
      trx: Trx,
      uid: string,
      documentId: string,
      locales: string[] | '*',
      saved: boolean | null
    ): Promise<void> {
      const { column } = table();
      await rowsOf(trx, uid, documentId, locales).update({
        [column('updatedAt')]: new Date(),
        ...(saved === null ? {} : { [column('draftSavedInStrapi')]: saved }),
      });
    },

    async delete(trx: Trx, uid: string, documentId: string, at: EntryLocale): Promise<void> {
      await knex()(table().name)
        .transacting(trx)
        .where(rowOf(uid, documentId, at))
        .delete();
    },

    /** Publishes due now by date, at most `limit`, those waiting for a retry left out. */
    listDue(limit: number): Promise<DuePublish[]> {
      const { name, column } = table();
      const now = storedInstant(strapi, new Date());
      return knex()(name)
        .select({
          id: column('id'),
          uid: column('contentType'),
          documentId: column('entryDocumentId'),
          locale: column('entryLocale'),
          scheduledAt: column('scheduledAt'),
          failures: column('publishFailures'),
        })
        .where(column('scheduledAt'), '<=', now)
        .where((retry) =>
          retry.whereNull(column('publishRetryAt')).orWhere(column('publishRetryAt'), '<=', now)
        )
        .orderBy(column('scheduledAt'))
        .limit(limit);
    },

    /**
     * Settles the row's publish if it is still due: 1 when this call did, 0 when another
     * instance or a write settled or moved it first.
     */
    claimDue(trx: Trx, id: number): Promise<number> {
      const { name, column } = table();
      return knex()(name)
        .transacting(trx)
        .where(column('id'), id)
        .where(column('scheduledAt'), '<=', storedInstant(strapi, new Date()))
        .update(settled());
    },

    async markPublishedByPlatform(trx: Trx, id: number): Promise<void> {
      const { name, column } = table();
      await knex()(name)
        .transacting(trx)
        .where(column('id'), id)
        .update({ [column('publishedByPlatform')]: true });
    },

    /** Settles the publishes waiting for the document in `locales`; the number of rows that had one. */
    cancelWaiting(trx: Trx, uid: string, documentId: string, locales: string[] | '*'): Promise<number> {
      return rowsOf(trx, uid, documentId, locales)
        .whereNotNull(table().column('scheduledAt'))
        .update(settled());
    },

    /**
     * Sets the next attempt of the listed publish and its failures so far, unless its row changed
     * since it was listed (another time, another failure count); 1 when it took them, 0 otherwise.
     */
    retryLater(due: DuePublish, failures: number, retryAt: Date): Promise<number> {
      const { name, column } = table();
      return knex()(name)
        .where(column('id'), due.id)
        .where(column('scheduledAt'), due.scheduledAt as Date)
        .where(column('publishFailures'), failures - 1)
        .update({
          [column('publishRetryAt')]: storedInstant(strapi, retryAt),
          [column('publishFailures')]: failures,
        });
    },
  };
}
