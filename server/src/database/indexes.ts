import { createHash } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import { unionAllOf, type Trx } from './knex';

type SchemaIndex = { name: string; columns: string[] };

/** An index the plugin adds to a site's table, and what it is for (named in the log). */
export type WantedIndex = { uid: string; table: string; columns: string[]; purpose: string };

/** PostgreSQL cuts identifiers at 63 bytes, MySQL refuses names over 64. */
const MAX_INDEX_NAME = 63;

/** The plugin's name for its index on `table`, `label` saying which (a column, or a purpose). */
export const indexName = (table: string, label: string) => {
  const name = `${table}_${label}_pb_idx`;
  if (name.length <= MAX_INDEX_NAME) return name;
  const digest = createHash('sha256').update(`${table}.${label}`).digest('hex').slice(0, 12);
  return `${table.slice(0, MAX_INDEX_NAME - digest.length - 8)}_${digest}_pb_idx`;
};

/**
 * Whether `name` is one `indexName` gives an index on `table`: the plugin's on that table under
 * whatever mapping made it, while an index a site named `…_pb_idx` some other way is the site's.
 */
export const isPluginIndexName = (table: string, name: string) =>
  name.endsWith('_pb_idx') &&
  (name.startsWith(`${table}_`) ||
    (name.startsWith(`${table.slice(0, MAX_INDEX_NAME - 20)}_`) && /_[0-9a-f]{12}_pb_idx$/.test(name)));

/** True when some index of the table starts with the wanted columns, in order: it serves the same reads. */
export async function hasIndex(strapi: Core.Strapi, { table, columns }: WantedIndex): Promise<boolean> {
  const indexes = (await strapi.db.dialect.schemaInspector.getIndexes(table)) as SchemaIndex[];
  return indexes.some((index) => columns.every((column, i) => index.columns[i] === column));
}

/**
 * Whether the database has an index named `name` (on any table), read from its catalogue: Strapi's
 * inspector omits expression indexes on PostgreSQL, and under two instances starting at once it
 * can miss one just added.
 */
async function indexNamed(strapi: Core.Strapi, name: string): Promise<boolean> {
  const knex = strapi.db.connection;
  switch (strapi.db.dialect.client) {
    case 'postgres': {
      const { rows } = await knex.raw(
        'SELECT 1 FROM pg_indexes WHERE schemaname = COALESCE(?, current_schema()) AND indexname = ?',
        [strapi.db.getSchemaName() ?? null, name]
      );
      return rows.length > 0;
    }
    case 'sqlite':
      return (
        (await knex.raw("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?", [name])).length > 0
      );
    default: {
      const [rows] = await knex.raw(
        'SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME = ? LIMIT 1',
        [name]
      );
      return rows.length > 0;
    }
  }
}

/**
 * Adds the index `name` with `create` unless `present` finds one that serves; answers whether it
 * added it (the start-up summary counts them). A failure is logged, never fatal: reads stay
 * correct, only slower.
 */
async function addIndex(
  strapi: Core.Strapi,
  wanted: WantedIndex,
  name: string,
  where: string,
  { present, create }: { present: () => Promise<boolean>; create: () => Promise<unknown> }
): Promise<boolean> {
  try {
    if (await present()) return false;
    await create();
    strapi.log.debug(`[${PLUGIN_ID}] added index ${name} on ${where} for ${wanted.purpose}`);
    return true;
  } catch (error) {
    // Another instance starting at the same moment may have added it first.
    if (await indexNamed(strapi, name).catch(() => false)) return false;
    strapi.log.warn(
      `[${PLUGIN_ID}] could not index ${where} (${(error as Error).message}); ` +
        `${wanted.purpose} on ${wanted.uid} read the whole table until an index exists.`
    );
    return false;
  }
}

/**
 * Adds a plain, non-unique index named `name` unless one already serves (whoever made it: the
 * plugin never drops or replaces an index the site owns). Strapi's schema sync leaves indexes it
 * did not create alone, and one that a table rebuild drops is added again at the next start.
 */
export async function ensureIndex(strapi: Core.Strapi, wanted: WantedIndex, name: string): Promise<boolean> {
  return addIndex(strapi, wanted, name, `${wanted.table} (${wanted.columns.join(', ')})`, {
    present: async () => (await indexNamed(strapi, name)) || (await hasIndex(strapi, wanted)),
    create: () =>
      strapi.db.connection.schema.alterTable(wanted.table, (table) => table.index(wanted.columns, name)),
  });
}

/**
 * How each database finds a name without regard to case, and the index that serves it, side by
 * side so they cannot drift apart. Both compare as Strapi's `$eqi` does (`LOWER()` folds ASCII
 * letters only in SQLite, as its NOCASE collation does).
 * - SQLite: an index on the column itself, collated NOCASE. When a column is dropped or renamed,
 *   knex rebuilds the table and re-creates its indexes, leaving out those on the column that is
 *   gone; an index on an expression (`LOWER(name)`) it copies as it is, and the rebuild fails with
 *   "no such column", stopping the site even in a start without the plugin.
 * - PostgreSQL: the expression `$eqi` compares. PostgreSQL drops an index with its column and
 *   rebuilds it when the column's type changes; Strapi's schema sync does not see it.
 * - MariaDB cannot index an expression, and its `=` goes through the column's collation, which a
 *   site may make case-sensitive, and which even as the default `utf8mb4_general_ci` holds the
 *   Kelvin, Ohm and Angstrom signs unequal to their `LOWER()` (an indexed `=` would miss an
 *   editor's "\u212Aelvin" that `$eqi` finds for "kelvin"): the lookup stays `$eqi`'s and reads the table.
 */
const CASE_INSENSITIVE: Partial<Record<string, { label: string; indexed: string; equals: string }>> = {
  postgres: {
    label: 'lower',
    indexed: '(LOWER(CAST(?? AS VARCHAR)))',
    equals: 'LOWER(CAST(?? AS VARCHAR)) = LOWER(?)',
  },
  sqlite: { label: 'nocase', indexed: '(?? COLLATE NOCASE)', equals: '?? = ? COLLATE NOCASE' },
};
const UNINDEXED_EQUALS = 'LOWER(??) = LOWER(?)';

/** The name of the plugin's index for case-insensitive lookups of `column` on `table`, on this database. */
export const caseInsensitiveIndexName = (strapi: Core.Strapi, table: string, column: string) =>
  indexName(table, `${column}_${CASE_INSENSITIVE[strapi.db.dialect.client]?.label ?? 'lower'}`);

/** A query of `table`'s rows whose `column` equals `value` without regard to case, served by that index. */
export const whereEqualsIgnoringCase = (strapi: Core.Strapi, table: string, column: string, value: string) =>
  strapi.db
    .connection(table)
    .whereRaw(CASE_INSENSITIVE[strapi.db.dialect.client]?.equals ?? UNINDEXED_EQUALS, [column, value]);

/**
 * For each of `values`, the documents of `table` with a row whose `column` equals it without
 * regard to case, as whereEqualsIgnoringCase finds them: one query, a UNION ALL of one indexed
 * lookup per value, each row tagged with the position of the value it matched (a number the code
 * makes, written into the query as it is), so each value gets exactly the rows its own lookup would.
 * SQLite refuses a union of over 500 members; the contract's NAMES_MAX (100 names a field) keeps
 * `values` below that.
 */
export async function documentIdsEqualIgnoringCase(
  strapi: Core.Strapi,
  trx: Trx,
  table: { name: string; documentId: string; column: string },
  values: string[]
): Promise<Array<{ documentId: string; wanted: number }>> {
  const lookups = values.map((value, position) =>
    whereEqualsIgnoringCase(strapi, table.name, table.column, value)
      .distinct({ documentId: table.documentId })
      .select(strapi.db.connection.raw(`${Number(position)} as ??`, ['wanted']))
  );
  if (lookups.length === 0) return [];
  const rows: Array<{ documentId: string; wanted: number | string }> =
    await unionAllOf(lookups).transacting(trx);
  return rows.map((row) => ({ documentId: row.documentId, wanted: Number(row.wanted) }));
}

/**
 * Adds the index named `name` that serves whereEqualsIgnoringCase on the column (PostgreSQL and
 * SQLite). Idempotent by name; like `ensureIndex`, never drops or replaces an index.
 */
export async function ensureCaseInsensitiveIndex(
  strapi: Core.Strapi,
  wanted: WantedIndex,
  name: string
): Promise<boolean> {
  const indexed = CASE_INSENSITIVE[strapi.db.dialect.client]?.indexed;
  const [column] = wanted.columns;
  if (!indexed) return false;
  return addIndex(strapi, wanted, name, `${wanted.table} (${column}, case-insensitive)`, {
    present: () => indexNamed(strapi, name),
    create: () =>
      strapi.db.connection.raw(`CREATE INDEX IF NOT EXISTS ?? ON ?? ${indexed}`, [
        name,
        wanted.table,
        column,
      ]),
  });
}

/**
 * Drops the `LOWER(name)` indexes that earlier builds of the plugin added on SQLite: each one
 * stops any rebuild of its table after its column is renamed or removed. Run before Strapi's schema sync,
 * so the first start after an upgrade can already carry a schema change.
 */
export async function dropExpressionIndexesOnSqlite(strapi: Core.Strapi): Promise<string[]> {
  if (strapi.db.dialect.client !== 'sqlite') return [];
  const rows: { name: string }[] = await strapi.db.connection.raw(
    "SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE '%\\_lower\\_pb\\_idx' ESCAPE '\\' AND sql LIKE '%LOWER(%'"
  );
  for (const { name } of rows) await strapi.db.connection.raw('DROP INDEX IF EXISTS ??', [name]);
  return rows.map(({ name }) => name);
}

/** Every index the plugin added (named `…_pb_idx`) and its table, read from the database's catalogue. */
export async function pluginIndexes(strapi: Core.Strapi): Promise<{ table: string; name: string }[]> {
  const knex = strapi.db.connection;
  switch (strapi.db.dialect.client) {
    case 'postgres':
      return (
        await knex.raw(
          "SELECT tablename AS table, indexname AS name FROM pg_indexes WHERE schemaname = COALESCE(?, current_schema()) AND indexname LIKE '%\\_pb\\_idx'",
          [strapi.db.getSchemaName() ?? null]
        )
      ).rows;
    case 'sqlite':
      return knex.raw(
        "SELECT tbl_name AS \"table\", name FROM sqlite_master WHERE type = 'index' AND name LIKE '%\\_pb\\_idx' ESCAPE '\\'"
      );
    default:
      return (
        await knex.raw(
          "SELECT DISTINCT TABLE_NAME AS `table`, INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME LIKE '%\\_pb\\_idx'"
        )
      )[0];
  }
}

/** Drops one of the plugin's indexes, as each database drops an index. */
export async function dropPluginIndex(strapi: Core.Strapi, { table, name }: { table: string; name: string }) {
  await strapi.db.connection.schema.alterTable(table, (builder) => builder.dropIndex([], name));
}
