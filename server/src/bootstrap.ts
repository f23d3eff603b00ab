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
  await getService(strapi, 'kept-tables').keep();
  await keepRolePermissions(strapi);
  getService(strapi, 'transactions').refuseAbandonedWork();
  dropInternalEvents(strapi);
  await getService(strapi, 'activity-writer').prune();
  // What follows works on the mapped types: nothing to do while the mapping does not fit them.
  if (getService(strapi, 'availability').problem() !== undefined) return;
  await getService(strapi, 'slug-indexes').ensure();
  await getService(strapi, 'pages').ensureIndexes();
  await getService(strapi, 'locales').warnIfMissing();
  getService(strapi, 'schedules').start();
};

/** Puts back what a start without the plugin took from the roles, then follows the admins' changes. */
async function keepRolePermissions(strapi: Core.Strapi) {
  const rolePermissions = getService(strapi, 'role-permissions');
  const restored = await rolePermissions.restore();
  if (restored > 0)
    strapi.log.info(
      `[${PLUGIN_ID}] gave back ${restored} role permission(s) that a start without the plugin removed`
    );
  await rolePermissions.remember();
  rolePermissions.watch();
}
