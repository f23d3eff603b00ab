import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import { dropPluginIndex, pluginIndexes } from '../database/indexes';
import { getService } from '../plugin';
import { tableOf } from '../database/tables';

export type UninstallReport = { tables: string[]; indexes: string[]; settings: number };

/**
 * Readies the database for the plugin's removal (README, "Upgrade and uninstall"): run from
 * `strapi console` while the plugin is still enabled and no server of the site runs (a running
 * one would go on writing), then remove the plugin and start. Its
 * tables leave Strapi's persisted list, so that start drops them as Strapi drops the tables of
 * any type that is gone (and cleans the roles' permissions on them); its indexes on the site's
 * tables and its core-store rows (settings, connection key, remembered permissions) go now, and
 * its routes answer 503 meanwhile. What it wrote into the site's own types, and images in the
 * Media Library, stay: they are the site's content.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  /** The tables the plugin indexes: its own and those of the site's types it writes into, not any other a site has. */
  function indexedTables(): Set<string> {
    const mapped = Object.values(getService(strapi, 'mapping').resolve().resources);
    return new Set([
      ...getService(strapi, 'kept-tables').tables(),
      ...mapped.map(({ uid }) => tableOf(strapi, uid).name),
    ]);
  }

  return {
    async prepare(): Promise<UninstallReport> {
      getService(strapi, 'availability').outOfService(
        'uninstall',
        `${PLUGIN_ID} is being removed from this site: it no longer accepts requests.`
      );
      const indexes = (await pluginIndexes(strapi)).filter(({ table }) => indexedTables().has(table));
      for (const index of indexes) await dropPluginIndex(strapi, index);
      const { count } = await strapi.db
        .query('strapi::core-store')
        .deleteMany({ where: { key: { $startsWith: `plugin_${PLUGIN_ID}_` } } });
      // Last: until the tables leave the list, a failed step can simply be run again.
      const tables = await getService(strapi, 'kept-tables').release();
      return { tables, indexes: indexes.map(({ name }) => name).sort(), settings: count };
    },
  };
};
