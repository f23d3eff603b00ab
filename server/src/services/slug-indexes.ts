import { createHash } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import { RESOURCE_KINDS } from '../mapping/catalogue';
import { getService } from '../plugin';
import { tableOf } from '../database/tables';
import { contentTypeOf } from '../database/schemas';

type Knex = any;
type SchemaIndex = { name: string; columns: string[] };
type SlugColumn = { uid: string; table: string; column: string };

/** Column types every supported database can index as they are (MySQL cannot index a TEXT column whole). */
const INDEXABLE_TYPES = new Set<string | undefined>(['uid', 'string']);
/** PostgreSQL cuts identifiers at 63 bytes, MySQL refuses names over 64. */
const MAX_INDEX_NAME = 63;

export const slugIndexName = (table: string, column: string) => {
  const name = `${table}_${column}_pb_idx`;
  if (name.length <= MAX_INDEX_NAME) return name;
  const digest = createHash('sha256').update(`${table}.${column}`).digest('hex').slice(0, 12);
  return `${table.slice(0, MAX_INDEX_NAME - digest.length - 8)}_${digest}_pb_idx`;
};

/**
 * Every publish looks a slug up by value twice: the plugin checks that it is free, and Strapi
 * checks that a published uid is unique. Strapi creates no index for uid fields, so on a site
 * with thousands of entries each lookup reads the whole table (measured: 17 ms per lookup at
 * 10,000 SQLite rows, most of a publish's time). At startup the plugin adds a plain, non-unique
 * index on each slug column it looks up, unless an index already starts with that column.
 * Strapi's schema sync leaves indexes it did not create alone, and one that a table rebuild
 * drops is added again at the next start.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = (): Knex => strapi.db.connection;

  function slugColumns(): SlugColumn[] {
    const mapping = getService(strapi, 'mapping');
    const columns = new Map<string, SlugColumn>();
    for (const kind of RESOURCE_KINDS) {
      const { uid, slugField } = mapping.resource(kind);
      if (!slugField) continue;
      const attribute = contentTypeOf(strapi, uid)?.attributes[slugField];
      if (!INDEXABLE_TYPES.has(attribute?.type)) continue;
      const table = tableOf(strapi, uid);
      const column = table.column(slugField);
      columns.set(`${table.name}.${column}`, { uid, table: table.name, column });
    }
    return [...columns.values()];
  }

  const indexed = async ({ table, column }: SlugColumn) => {
    const indexes = (await strapi.db.dialect.schemaInspector.getIndexes(table)) as SchemaIndex[];
    return indexes.some((index) => index.columns[0] === column);
  };

  return {
    slugColumns,

    /** Adds the missing indexes; a failure is logged, never fatal: lookups then stay correct, only slower. */
    async ensure(): Promise<void> {
      for (const slug of slugColumns()) {
        try {
          if (await indexed(slug)) continue;
          const name = slugIndexName(slug.table, slug.column);
          await knex().schema.alterTable(slug.table, (table: Knex) => table.index([slug.column], name));
          strapi.log.info(
            `[${PLUGIN_ID}] added index ${name} on ${slug.table}.${slug.column} for slug lookups`
          );
        } catch (error) {
          // Another instance starting at the same moment may have added it first.
          if (await indexed(slug).catch(() => false)) continue;
          strapi.log.warn(
            `[${PLUGIN_ID}] could not index ${slug.table}.${slug.column} (${(error as Error).message}); ` +
              `slug lookups on ${slug.uid} read the whole table until an index exists.`
          );
        }
      }
    },
  };
};
