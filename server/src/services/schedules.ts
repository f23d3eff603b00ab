import type { Core } from '@strapi/strapi';
import { PLUGIN_ID, UIDS } from '../constants';
import { publishDateToIso } from '../contract/dates';
import type { PostUpdate } from '../contract/schemas';
import { timingOf, type Timing } from '../contract/scheduling';
import { documentsOf } from '../database/documents';
import { contentTypeOf } from '../database/schemas';
import { storedInstant, tableOf } from '../database/tables';
import type { Knex } from '../database/knex';
import type { Resource } from '../resources';
import type { LocaleScope } from './locales';
import type { Transaction } from './transactions';
import { getService, pluginConfig } from '../plugin';

/** Due publishes one run takes on; the next run takes the rest. */
const BATCH = 100;

/**
 * Posts sent with `status: publish` and a future `date` stay drafts until then: the time waits in
 * the entry's managed-entry row (`scheduledAt`), written in the transaction of the write that
 * asked for it, under the entry's lock. A timer of each instance publishes the due ones; Strapi's
 * cron is not used, since sites often leave `server.cron.enabled` off.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi and the timer through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = (): Knex => strapi.db.connection;
  const table = () => tableOf(strapi, UIDS.managedEntry);
  const config = () => pluginConfig(strapi).scheduling;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  /**
   * Publishes one due entry, unless another instance did, or a write moved or cancelled it, since
   * it was listed. The entry's rows are locked first, as a write locks them before it changes the
   * schedule, and the UPDATE that clears the time only matches while it is still due: the one
   * instance whose UPDATE changed the row publishes.
   */
  async function publishDue(row: { id: number; uid: string; documentId: string; locale: string }) {
    const at: LocaleScope = row.locale ? { locale: row.locale } : {};
    const what = `${row.uid} ${row.documentId}${row.locale ? ` (${row.locale})` : ''}`;
    await getService(strapi, 'transactions').run(async ({ trx }: Transaction) => {
      const { name, column } = table();
      const exists =
        Boolean(contentTypeOf(strapi, row.uid)) &&
        (await getService(strapi, 'identities').lockDocument(trx, row.uid, row.documentId, at));
      const claimed: number = await knex()(name)
        .transacting(trx)
        .where(column('id'), row.id)
        .where(column('scheduledAt'), '<=', storedInstant(strapi, new Date()))
        // Published now, by the platform's request or by an editor before it: either way an
        // editor's unpublish from here on holds the platform's next publish (editor-changes).
        .update({ [column('scheduledAt')]: null, [column('publishedByPlatform')]: true });
      if (claimed !== 1 || !exists) return;
      const documents = documentsOf(strapi, row.uid);
      // An editor who published by hand meanwhile may have saved later, unreviewed changes in the
      // draft: publishing the draft now would publish them.
      if (
        await documents.findOne({ documentId: row.documentId, ...at, status: 'published', fields: ['id'] })
      ) {
        strapi.log.info(
          `[${PLUGIN_ID}] scheduled publish of ${what} dropped: an editor published it before its time`
        );
        return;
      }
      await documents.publish({ documentId: row.documentId, ...at });
      strapi.log.info(`[${PLUGIN_ID}] published ${what} at its scheduled time`);
    });
  }

  async function publishAllDue(): Promise<void> {
    const { name, column } = table();
    const due: Array<{ id: number; uid: string; documentId: string; locale: string }> = await knex()(name)
      .select({
        id: column('id'),
        uid: column('contentType'),
        documentId: column('entryDocumentId'),
        locale: column('entryLocale'),
      })
      .where(column('scheduledAt'), '<=', storedInstant(strapi, new Date()))
      .orderBy(column('scheduledAt'))
      .limit(BATCH);
    for (const row of due) {
      // One entry's failure (a validation its draft fails) must not hold back the others; it stays due.
      await publishDue(row).catch((error: Error) =>
        strapi.log.warn(
          `[${PLUGIN_ID}] scheduled publish of ${row.uid} ${row.documentId} failed, tried again at the next run: ${error.message}`
        )
      );
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
