import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import { dropPluginIndex, isPluginIndexName, pluginIndexes } from '../../database/indexes';
import { getService } from '../../plugin';

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
  return {
    async prepare(): Promise<UninstallReport> {
      getService(strapi, 'availability').outOfService(
        'uninstall',
        `${PLUGIN_ID} is being removed from this site: it no longer accepts requests.`
      );
      // Every table's, not only those mapped now: an index made under an earlier mapping is the plugin's too.
      const indexes = (await pluginIndexes(strapi)).filter(({ table, name }) =>
        isPluginIndexName(table, name)
      );
      for (const index of indexes) await dropPluginIndex(strapi, index);
      // Before the rows go: a remembering still waiting, or run as Strapi stops, would write one back.
      await getService(strapi, 'role-permissions').forget();
      const { count } = await strapi.db
        .query('strapi::core-store')
        .deleteMany({ where: { key: { $startsWith: `plugin_${PLUGIN_ID}_` } } });
      // Last: until the tables leave the list, a failed step can simply be run again.
      const tables = await getService(strapi, 'kept-tables').release();
      return { tables, indexes: indexes.map(({ name }) => name).sort(), settings: count };
    },
  };
};
