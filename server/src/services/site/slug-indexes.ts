import type { Core } from '@strapi/strapi';
import { RESOURCE_KINDS, type ResourceKind } from '../../mapping/catalogue';
import { getService } from '../../plugin';
import { tableOf } from '../../database/tables';
import { contentTypeOf } from '../../database/schemas';
import {
  caseInsensitiveIndexName,
  ensureCaseInsensitiveIndex,
  ensureIndex,
  indexName,
} from '../../database/indexes';

type SlugColumn = { uid: string; table: string; column: string };

/** The kinds found by name (case-insensitive) when a post or product refers to a missing one. */
const NAMED_KINDS = RESOURCE_KINDS.filter((kind) => kind !== 'post' && kind !== 'product');

/** Column types every supported database can index as they are (MySQL cannot index a TEXT column whole). */
const INDEXABLE_TYPES = new Set<string | undefined>(['uid', 'string']);

/**
 * Every publish looks a slug up by value twice: the plugin checks that it is free, and Strapi
 * checks that a published uid is unique. Strapi creates no index for uid fields, so on a site
 * with thousands of entries each lookup reads the whole table (measured: 17 ms per lookup at
 * 10,000 SQLite rows, most of a publish's time). At startup the plugin adds a plain, non-unique
 * index on each slug column it looks up, unless an index already starts with that column.
 * A category, tag or author the registry does not know yet is looked up by name without regard
 * to case, which reads the whole table too: each name column gets an index that serves that
 * lookup (on MariaDB and MySQL only under LOWER_EQUAL_COLLATIONS; see ensureCaseInsensitiveIndex).
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  /** The indexable columns that hold `field` (the slug field, or the name field) of each of `kinds`. */
  function columnsOf(kinds: readonly ResourceKind[], field: 'slugField' | 'nameField'): SlugColumn[] {
    const columns = new Map<string, SlugColumn>();
    for (const { resource } of getService(strapi, 'mapping').everyResource(kinds)) {
      const { uid } = resource;
      const attributeName = resource[field];
      if (!attributeName) continue;
      const attribute = contentTypeOf(strapi, uid)?.attributes[attributeName];
      if (!INDEXABLE_TYPES.has(attribute?.type)) continue;
      const table = tableOf(strapi, uid);
      const column = table.column(attributeName);
      columns.set(`${table.name}.${column}`, { uid, table: table.name, column });
    }
    return [...columns.values()];
  }

  const slugColumns = () => columnsOf(RESOURCE_KINDS, 'slugField');
  const nameColumns = () => columnsOf(NAMED_KINDS, 'nameField');

  return {
    slugColumns,
    nameColumns,

    /** Adds the missing indexes; answers how many it added. */
    async ensure(): Promise<number> {
      let added = 0;
      for (const { uid, table, column } of slugColumns()) {
        added += +(await ensureIndex(
          strapi,
          { uid, table, columns: [column], purpose: 'slug lookups' },
          indexName(table, column)
        ));
      }
      for (const { uid, table, column } of nameColumns()) {
        added += +(await ensureCaseInsensitiveIndex(
          strapi,
          { uid, table, columns: [column], purpose: 'case-insensitive name lookups' },
          caseInsensitiveIndexName(strapi, table, column)
        ));
      }
      return added;
    },
  };
};
