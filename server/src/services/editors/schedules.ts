import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import { publishDateToIso } from '../../contract/dates';
import type { PostUpdate } from '../../contract/schemas';
import { timingOf, type Timing } from '../../contract/scheduling';
import { documentsOf } from '../../database/documents';
import { contentTypeOf } from '../../database/schemas';
import { managedEntries, type DuePublish } from '../../database/managed-entries';
import type { Trx } from '../../database/knex';
import { inBoundedTransaction } from '../../database/lock-waits';
import { TransactionEnded } from '../../database/transactions';
import type { Resource } from '../../resources';
import type { LocaleScope } from '../site/locales';
import { entryOfScheduledPublish } from '../delivery/activity';
import { localesNamedBy, managedEntry } from './fingerprints';
import { isPluginWork, type Transaction } from '../delivery/transactions';
import { getService, pluginConfig } from '../../plugin';
import { connectionInScope, inConnection } from '../../utils/connection-scope';

/** Due publishes one run takes on; the run takes the next ones once they are settled. */
const BATCH = 100;
/** The wait before a failed publish is tried again, doubled at each failure up to the longest. */
const FIRST_RETRY_MS = 60_000;
const LONGEST_RETRY_MS = 3_600_000;

const retryDelayMs = (failures: number) =>
  Math.min(FIRST_RETRY_MS * 2 ** Math.min(failures - 1, 16), LONGEST_RETRY_MS);

/** What became of a due entry: taken by another instance or a write, cancelled, or published. */
type Outcome = { skipped: true } | { cancelled: string } | { published: true };

/**
 * Posts sent with `status: publish` and a future `date` stay drafts until then: the time waits in
 * the entry's managed-entry row (`scheduledAt`), written in the transaction of the write that
 * asked for it, under the entry's lock. A timer of each instance publishes the due ones; Strapi's
 * cron is not used, since sites often leave `server.cron.enabled` off.
 *
 * The editors' decisions win: an editor who publishes or unpublishes the post by hand, or changes
 * a field the platform sent, cancels the waiting publish (a schedule publishes only what the
 * platform sent). A publish Strapi refuses is tried again after a growing wait (`publishRetryAt`)
 * and skipped until then, so it never holds the others back; it is reported once.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi and the timer through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const rows = managedEntries(strapi);
  const config = () => pluginConfig(strapi).scheduling;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  /** How the logs name one entry's waiting publish. */
  const publishOf = (uid: string, documentId: string, locale: string) =>
    `scheduled publish of ${uid} ${documentId}${locale ? ` (${locale})` : ''}`;

  /** The posts' resource of the connection in scope when `uid` stores them: only posts are scheduled. */
  function postsIn(uid: string): Resource | undefined {
    const resource = getService(strapi, 'mapping').resolve().resources.post;
    return resource?.uid === uid ? getService(strapi, 'mapping').resource('post') : undefined;
  }

  /** One activity log row and one server log line for a scheduled publish that did not happen. */
  function report(documentId: string, what: string, result: 'cancelled' | 'failed', reason: string) {
    getService(strapi, 'activity-writer').recordEntry(
      entryOfScheduledPublish(documentId, result, reason, connectionInScope()?.name)
    );
    const line = `[${PLUGIN_ID}] ${what}: ${reason}`;
    if (result === 'failed') strapi.log.warn(line);
    else strapi.log.info(line);
  }

  /**
   * Why the draft must not be published at its time, if it must not: the editors published it by
   * hand (the draft may hold their later, unreviewed changes), or changed a field the platform sent.
   */
  async function editorsDecision(trx: Trx, row: DuePublish, at: LocaleScope): Promise<string | undefined> {
    const documents = documentsOf(strapi, row.uid);
    if (await documents.findOne({ documentId: row.documentId, ...at, status: 'published', fields: ['id'] }))
      return 'scheduled publish cancelled: an editor published the post by hand before its date';
    const resource = postsIn(row.uid);
    if (!resource) return undefined;
    const { fingerprints, draftSavedInStrapi } = await managedEntry(strapi, trx, row.uid, row.documentId, at);
    const changed = await getService(strapi, 'editor-changes').changedSince(
      resource,
      row.documentId,
      at,
      fingerprints
    );
    const unchanged = `the draft stays as the editor left it, unpublished (publish it in Strapi, or send the post again)`;
    if (changed.length > 0)
      return `scheduled publish cancelled: ${changed.join(', ')} changed in Strapi since the platform sent ${changed.length > 1 ? 'them' : 'it'}; ${unchanged}`;
    // Changes to fields the platform never sent have no fingerprint; under `overwrite` the platform's publish wins.
    if (draftSavedInStrapi && (await getService(strapi, 'settings').editorChangePolicy()) !== 'overwrite')
      return `scheduled publish cancelled: an editor saved the draft in Strapi and did not publish it; ${unchanged}`;
    return undefined;
  }

  /**
   * Publishes one due entry, in the scope of the connection that wrote it (its editor-changes
   * policy, its options), unless another instance did, or a write moved or cancelled it, since
   * it was listed, or the editors decided otherwise. The entry's rows are locked first, as a write
   * locks them before it changes the schedule, and the UPDATE that clears the time only matches
   * while it is still due: the one instance whose UPDATE changed the row publishes, or reports.
   */
  async function publishDue(row: DuePublish) {
    const connection = await getService(strapi, 'managed-entries').connectionOf(
      row.uid,
      row.documentId,
      row.locale || undefined
    );
    return connection ? inConnection(connection, () => publishDueHere(row)) : publishDueHere(row);
  }

  async function publishDueHere(row: DuePublish) {
    const at: LocaleScope = row.locale ? { locale: row.locale } : {};
    const what = publishOf(row.uid, row.documentId, row.locale);
    const outcome = await getService(strapi, 'transactions').run(
      async ({ trx }: Transaction): Promise<Outcome> => {
        const exists =
          Boolean(contentTypeOf(strapi, row.uid)) &&
          (await getService(strapi, 'identities').lockDocument(trx, row.uid, row.documentId, at));
        const claimed = await rows.claimDue(trx, row.id);
        if (claimed !== 1 || !exists) return { skipped: true };
        const cancelled = await editorsDecision(trx, row, at);
        if (cancelled) return { cancelled };
        await documentsOf(strapi, row.uid).publish({ documentId: row.documentId, ...at });
        // Published at the platform's request: an editor's unpublish from here on holds the
        // platform's next publish (editor-changes.publishHeldBy).
        await rows.markPublishedByPlatform(trx, row.id);
        return { published: true };
      }
    );
    // Once committed: a run rolled back reported nothing, and another instance may take the entry.
    if ('cancelled' in outcome) report(row.documentId, what, 'cancelled', outcome.cancelled);
    if ('published' in outcome) strapi.log.info(`[${PLUGIN_ID}] ${what} done`);
  }

  /**
   * Cancels the publish waiting for the entry, reported with `reason`; returns whether one waited.
   * One locale's cancel cancels that locale's schedule ('' without i18n); all locales' otherwise.
   */
  async function cancelWaiting(
    uid: string,
    documentId: string,
    locale: unknown,
    reason: string
  ): Promise<boolean> {
    const locales = localesNamedBy(locale);
    // Bounded: an editor's publish must not hang behind a lock on the plugin's table.
    const cancelled = await inBoundedTransaction(strapi, pluginConfig(strapi).lockTimeoutMs, (trx) =>
      rows.cancelWaiting(trx, uid, documentId, locales)
    );
    if (cancelled === 0) return false;
    const what = publishOf(uid, documentId, typeof locale === 'string' ? locale : '');
    report(documentId, what, 'cancelled', reason);
    return true;
  }

  /**
   * Sets the next attempt of a publish that failed, unless a write or another instance changed
   * its row since it was listed; the first failure of a schedule is reported, the later ones only
   * logged at debug level. Returns whether the row took the failure.
   */
  async function retryLater(row: DuePublish, error: Error): Promise<boolean> {
    const failures = Number(row.failures ?? 0) + 1;
    const retryAt = new Date(Date.now() + retryDelayMs(failures));
    const updated = await rows.retryLater(row, failures, retryAt);
    if (updated !== 1) return false;
    const what = publishOf(row.uid, row.documentId, row.locale);
    const reason = `could not publish the post at its scheduled time; tried again from ${retryAt.toISOString()}, then at growing intervals up to an hour: ${error.message}`;
    if (failures === 1) report(row.documentId, what, 'failed', reason);
    else strapi.log.debug(`[${PLUGIN_ID}] ${what}, attempt ${failures}: ${reason}`);
    return true;
  }

  /**
   * Takes due entries a batch at a time until none is left. Each entry of a batch leaves the
   * list (published, cancelled, or waiting for its retry); a batch in which one could not even
   * record its failure (the database is away) ends the run, which the next poll takes up again.
   */
  async function publishAllDue(): Promise<void> {
    for (;;) {
      const due = await rows.listDue(BATCH);
      let allLeft = true;
      for (const row of due) {
        const left = await publishDue(row).then(
          () => true,
          (error: Error) =>
            retryLater(row, error).catch((recording: Error) => {
              strapi.log.warn(
                `[${PLUGIN_ID}] ${publishOf(row.uid, row.documentId, row.locale)} failed (${error.message}), and its next attempt could not be stored: ${recording.message}`
              );
              return false;
            })
        );
        allLeft &&= left;
      }
      if (due.length < BATCH || !allLeft) return;
    }
  }

  function runOnce() {
    running ??= publishAllDue()
      .catch((error: Error) => {
        strapi.log.warn(`[${PLUGIN_ID}] could not read the scheduled publishes: ${error.message}`);
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  return {
    /**
     * The status a post write applies now and the publish it leaves waiting, for `input` on an
     * entry whose publish waits for `scheduled` (null: none, or no entry yet). The caller reads
     * it with the entry's fingerprints, in one read of its managed-entry row. Without scheduling,
     * or in a type without draft & publish, the status is applied as sent.
     */
    timing(
      resource: Resource,
      input: Pick<PostUpdate, 'status' | 'date'>,
      scheduled: Date | null
    ): Timing | undefined {
      if (!config().enabled || !resource.draftAndPublish) return undefined;
      const date = input.date
        ? new Date(publishDateToIso(input.date, pluginConfig(strapi).timezone))
        : undefined;
      return timingOf(input.status, date, scheduled, new Date());
    },

    /** The note that says `timing` leaves a publish waiting, if it does. */
    noteOf: ({ publishAt }: Timing): string | undefined =>
      publishAt ? `scheduled for ${publishAt.toISOString()}` : undefined,

    /** Lets an editor's publish or unpublish by hand cancel the post's waiting publish: their decision wins. */
    followEditors() {
      strapi.documents.use(async (context, next) => {
        const result = await next();
        const { action, uid } = context;
        const documentId = (context.params as { documentId?: unknown }).documentId;
        if (
          (action === 'publish' || action === 'unpublish') &&
          typeof documentId === 'string' &&
          !isPluginWork() &&
          getService(strapi, 'mapping').storesPostsIn(uid)
        ) {
          // In the editor's transaction when there is one; otherwise right after it committed.
          await cancelWaiting(
            uid,
            documentId,
            (context.params as { locale?: unknown }).locale,
            `scheduled publish cancelled: an editor ${action}ed the post by hand before its date`
          ).catch((error: Error) => {
            // A failure that ended the editor's transaction (a deadlock on MySQL and MariaDB) is theirs.
            if (error instanceof TransactionEnded) throw error;
            strapi.log.warn(
              `[${PLUGIN_ID}] could not cancel the scheduled publish of ${uid} ${documentId} after an editor's ${action}: ${error.message}`
            );
          });
        }
        return result;
      });
    },

    /**
     * Cancels the entry's waiting publish at an admin's request from the Content Manager's side
     * panel (the caller judged that the admin may publish the entry); false when none waited.
     */
    cancelByAdmin: (uid: string, documentId: string, locale: string | undefined, adminName: string) =>
      cancelWaiting(
        uid,
        documentId,
        locale,
        `scheduled publish cancelled by ${adminName} in the Content Manager`
      ),

    /** Publishes what is due now and then every `pollMs`; a start after downtime publishes what came due meanwhile. */
    start() {
      if (!config().enabled) return;
      void runOnce();
      timer = setInterval(() => void runOnce(), config().pollMs);
      // The timer alone must not keep a process alive that has nothing else to do.
      timer.unref();
    },

    /** Publishes what is due now; resolves once done (a run under way is joined, not doubled). */
    runDue: () => runOnce(),

    async stop() {
      clearInterval(timer);
      await running;
    },
  };
};
