import type { Core } from '@strapi/strapi';
import { getService } from './plugin';

/**
 * Writes under way end first, while Strapi's lifecycle subscribers, HTTP server and connections
 * are still there (see transactions.settle). The activity log and the answers kept for replays
 * are written in batches, the roles' permissions remembered a moment after a change: the last
 * ones before Strapi stops. The Markdown worker thread ends with it, and a run of scheduled
 * publishes finishes while the database is still open.
 */
export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await getService(strapi, 'transactions').settle();
  await getService(strapi, 'schedules').stop();
  await getService(strapi, 'markdown').stop();
  await getService(strapi, 'receipts').stop();
  await getService(strapi, 'activity-writer').flush();
  await getService(strapi, 'role-permissions').flush();
  await getService(strapi, 'pages').stop();
};
