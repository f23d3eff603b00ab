import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from './constants';

/** The activity log is written in batches after each answer; the last batch is written before Strapi stops. */
export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await strapi.plugin(PLUGIN_ID).service('activity').flush();
};
