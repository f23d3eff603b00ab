import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from './constants';
import { getService } from './plugin';
import { dropInternalEvents } from './database/internal-events';

/** Admin permissions of the settings page; Super Admins get them all, other roles none until granted. */
const ACTIONS = [
  {
    section: 'settings',
    category: 'publish bridge',
    subCategory: 'connection',
    displayName: 'Read the connection settings and test the connection',
    uid: 'settings.read',
    pluginName: PLUGIN_ID,
  },
  {
    section: 'settings',
    category: 'publish bridge',
    subCategory: 'connection',
    displayName: 'Change the connection key, capabilities and platform settings',
    uid: 'settings.update',
    pluginName: PLUGIN_ID,
  },
  {
    section: 'settings',
    category: 'publish bridge',
    subCategory: 'logs',
    displayName: 'Read the activity log and the platform delivery log',
    uid: 'logs.read',
    pluginName: PLUGIN_ID,
  },
];

export default async ({ strapi }: { strapi: Core.Strapi }) => {
  await strapi.admin.services.permission.actionProvider.registerMany(ACTIONS);
  getService(strapi, 'transactions').refuseAbandonedWork();
  dropInternalEvents(strapi);
  await getService(strapi, 'slug-indexes').ensure();
  await getService(strapi, 'pages').ensureIndexes();
  await getService(strapi, 'activity-writer').prune();
  await getService(strapi, 'locales').warnIfMissing();
  getService(strapi, 'schedules').start();
};
