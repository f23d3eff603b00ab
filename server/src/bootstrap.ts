import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from './constants';
import { getService, pluginConfig } from './plugin';

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
  const permissionsGivenBack = await keepMemory(strapi);
  getService(strapi, 'transactions').shareTheThread();
  getService(strapi, 'transactions').refuseAbandonedWork();
  getService(strapi, 'schedules').followEditors();
  getService(strapi, 'editor-changes').followDraftSaves();
  await getService(strapi, 'activity-writer').prune();
  // What follows works on the mapped types: nothing to do while no connection's mapping fits them.
  if (getService(strapi, 'mapping').fittingConnections().length === 0) return;
  const indexesAdded =
    (await getService(strapi, 'slug-indexes').ensure()) + (await getService(strapi, 'pages').ensureIndexes());
  await getService(strapi, 'locales').warnIfMissing();
  getService(strapi, 'mapping').showUsedTypes(
    await getService(strapi, 'settings').capabilitiesOfAnyConnection()
  );
  getService(strapi, 'schedules').start();
  getService(strapi, 'pages').start();
  strapi.log.info(startupSummary(strapi, { indexesAdded, permissionsGivenBack }));
};

/** The one line a start logs at info level: where the content goes, and what this start changed. */
function startupSummary(
  strapi: Core.Strapi,
  { indexesAdded, permissionsGivenBack }: { indexesAdded: number; permissionsGivenBack: number }
): string {
  const mapped = new Set(
    getService(strapi, 'mapping')
      .everyResource()
      .filter(({ resource }) => !resource.uid.startsWith(`plugin::${PLUGIN_ID}.`))
      .map(({ resource: { label, uid } }) => `${label} in ${uid}`)
  );
  const changes = [
    indexesAdded > 0 ? `${indexesAdded} index(es) added` : '',
    permissionsGivenBack > 0
      ? `${permissionsGivenBack} role permission(s) given back after a start without the plugin`
      : '',
  ].filter(Boolean);
  return [
    `[${PLUGIN_ID}] serving ${pluginConfig(strapi).prefix}`,
    mapped.size > 0 ? `${[...mapped].join(', ')}, the rest in its own types` : 'everything in its own types',
    ...changes,
  ].join('; ');
}

/**
 * Keeps the plugin's tables through a start without it, puts back what such a start took from
 * the roles, then follows the admins' changes; answers how many permissions it gave back. A
 * failure here (a store row that no longer parses) is logged, never fatal: the site starts.
 */
async function keepMemory(strapi: Core.Strapi): Promise<number> {
  try {
    await getService(strapi, 'kept-tables').keep();
  } catch (error) {
    strapi.log.error(
      `[${PLUGIN_ID}] could not list its tables among those Strapi keeps (${(error as Error).message}): a start without the plugin would drop them`
    );
  }
  const rolePermissions = getService(strapi, 'role-permissions');
  let givenBack = 0;
  try {
    givenBack = await rolePermissions.restore();
    await rolePermissions.remember();
  } catch (error) {
    strapi.log.error(
      `[${PLUGIN_ID}] could not read or keep the roles' permissions on the plugin (${(error as Error).message})`
    );
  }
  rolePermissions.watch();
  return givenBack;
}
