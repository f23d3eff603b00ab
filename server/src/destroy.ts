import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from './constants';

/**
 * The activity log and the answers kept for replays are written in batches: the last ones before
 * Strapi stops. The Markdown worker thread ends with it.
 */
export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await strapi.plugin(PLUGIN_ID).service('markdown').stop();
  await strapi.plugin(PLUGIN_ID).service('receipts').flush();
  await strapi.plugin(PLUGIN_ID).service('activity').flush();
};
