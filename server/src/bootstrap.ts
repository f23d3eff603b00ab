import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from './constants';

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
  strapi.plugin(PLUGIN_ID).service('transactions').refuseAbandonedWork();
  await strapi.plugin(PLUGIN_ID).service('slug-indexes').ensure();
  await strapi.plugin(PLUGIN_ID).service('activity').prune();
  await strapi.plugin(PLUGIN_ID).service('locales').warnIfMissing();
};
