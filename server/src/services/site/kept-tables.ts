import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import { allContentTypes } from '../../database/schemas';
import { joinTablesOf, tableOf } from '../../database/tables';

/** Strapi's list of tables its schema sync never drops (how the Enterprise audit log survives a downgrade). */
const PERSISTED_TABLES = { type: 'core', key: 'persisted_tables' } as const;

/** An entry of that list: Strapi reads a name, or an object with one. */
type PersistedTable = string | { name: string };

const nameOf = (table: PersistedTable) => (typeof table === 'string' ? table : table.name);

/**
 * Strapi's schema sync drops the tables of content types that are gone, and the plugin's types
 * are gone in any start without it (disabled while debugging, or its package removed): one such
 * start erased which entries are the platform's, their revisions, schedules and receipts, and
 * the next publish duplicated content. So the plugin lists its tables among Strapi's persisted
 * tables at every start: a start without it leaves them, and the next start with it finds them
 * as they were. Uninstalling therefore means dropping them (README, "Upgrade and uninstall").
 */
export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** The plugin's tables: its content types' own and their relations' join tables. */
  tables(): string[] {
    const uids = Object.keys(allContentTypes(strapi)).filter((uid) =>
      uid.startsWith(`plugin::${PLUGIN_ID}.`)
    );
    return [
      ...new Set(uids.flatMap((uid) => [tableOf(strapi, uid).name, ...joinTablesOf(strapi, uid)])),
    ].sort();
  },

  /** Adds the plugin's tables that Strapi's list lacks, keeping every other entry as it is. */
  async keep(): Promise<void> {
    const listed = ((await strapi.store.get(PERSISTED_TABLES)) as PersistedTable[] | null) ?? [];
    const known = new Set(listed.map(nameOf));
    const missing = this.tables().filter((name) => !known.has(name));
    if (missing.length === 0) return;
    await strapi.store.set({ ...PERSISTED_TABLES, value: [...listed, ...missing.map((name) => ({ name }))] });
  },

  /** Takes the plugin's tables off Strapi's list, so the next start without the plugin drops them; answers which. */
  async release(): Promise<string[]> {
    const listed = ((await strapi.store.get(PERSISTED_TABLES)) as PersistedTable[] | null) ?? [];
    const ours = new Set(this.tables());
    await strapi.store.set({
      ...PERSISTED_TABLES,
      value: listed.filter((table) => !ours.has(nameOf(table))),
    });
    return listed.map(nameOf).filter((name) => ours.has(name));
  },
});
