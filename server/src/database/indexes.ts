import { createHash } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import { unionAllOf, type Knex, type Query, type Trx } from './knex';

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
 * - MySQL and MariaDB cannot index an expression, but `=` goes through the column's collation.
 *   Under a pair of LOWER_EQUAL_COLLATIONS every text is equal to its `LOWER()`, so the rows
 *   `$eqi` finds are among those `=` finds through a plain index on the column, and the lookup
 *   asks for both. Under any other (a case-sensitive one; `utf8mb4_general_ci`, MariaDB 10.11's
 *   default, which holds the Kelvin, Ohm and Angstrom signs unequal to their `LOWER()`, so that `=`
 *   would miss an editor's "\u212Aelvin" that `$eqi` finds for "kelvin") the column gets no index
 *   and the lookup stays `$eqi`'s alone and reads the table. The collation is read at each lookup
 *   (one small catalogue query), so a column altered while the site runs is never compared wrongly.
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
export const caseInsensitiveIndexName = (strapi: Core.Strapi, table: string, column: string) => {
  const label = CASE_INSENSITIVE[strapi.db.dialect.client]?.label;
  return label ? indexName(table, `${column}_${label}`) : indexName(table, column);
};

/**
 * MySQL and MariaDB: the collations of a name column under which `=` finds every row that
 * `LOWER(name) = LOWER(?)` finds, each with the connection collations (`@@collation_connection`,
 * which `LOWER(?)` folds the value's case by) it holds that for. Under such a pair every text is
 * equal to its `LOWER()` of either kind: the rows `$eqi` finds are among those `=` finds.
 * mapping.test checks each pair on the server it runs on for every code point from U+0000 to
 * U+10FFFF, and for every cased letter followed by a combining mark (where contractions weigh
 * characters together). Not `utf8mb4_general_ci` (the Kelvin, Ohm and Angstrom signs), nor
 * `utf8mb4_unicode_ci` beside a connection that folds case by a newer Unicode (U+023A Ⱥ and
 * others), nor an accent- or case-sensitive collation.
 */
export const LOWER_EQUAL_COLLATIONS: Readonly<Record<string, readonly string[]>> = {
  utf8mb4_unicode_ci: ['utf8mb4_unicode_ci', 'utf8mb4_general_ci', 'utf8mb4_bin'],
  utf8mb4_unicode_520_ci: [
    'utf8mb4_unicode_520_ci',
    'utf8mb4_unicode_ci',
    'utf8mb4_general_ci',
    'utf8mb4_bin',
  ],
  utf8mb4_uca1400_ai_ci: [
    'utf8mb4_uca1400_ai_ci',
    'utf8mb4_unicode_520_ci',
    'utf8mb4_unicode_ci',
    'utf8mb4_general_ci',
    'utf8mb4_bin',
  ],
};

/**
 * MySQL and MariaDB: the longest value (in characters) that `column` of `table` may be looked up
 * by through an index with `=`, or undefined when none may: the column and the connection must
 * compare as a pair of LOWER_EQUAL_COLLATIONS, and no index may hold a prefix of the column.
 * MariaDB cuts a value to an index's length before searching it, where a read of the table
 * compares the value whole, and equal texts may differ in length (a decomposed "é" is two
 * characters): a value longer than the column is looked up by reading the table, and a prefix
 * index (`KEY (name(6))`), which the optimiser may choose and which would cut every value, keeps
 * every lookup of the column a read of the table (both found by an attack review). Asked through
 * `knex`, the caller's transaction when it has one: a second connection taken from the pool while
 * holding one would wait for itself once every connection is held so.
 */
async function indexedLookupLength(
  knex: Knex | Trx,
  table: string,
  column: string
): Promise<number | undefined> {
  const [rows] = await knex.raw(
    `SELECT c.COLLATION_NAME AS name, @@collation_connection AS connection, c.CHARACTER_MAXIMUM_LENGTH AS length,
      (SELECT COUNT(*) FROM information_schema.STATISTICS s WHERE s.TABLE_SCHEMA = c.TABLE_SCHEMA
        AND s.TABLE_NAME = c.TABLE_NAME AND s.COLUMN_NAME = c.COLUMN_NAME AND s.SUB_PART IS NOT NULL) AS prefixes
    FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = DATABASE() AND c.TABLE_NAME = ? AND c.COLUMN_NAME = ?`,
    [table, column]
  );
  const [found] = rows as Array<{
    name: string | null;
    connection: string;
    length: unknown;
    prefixes: unknown;
  }>;
  const paired = found?.name != null && LOWER_EQUAL_COLLATIONS[found.name]?.includes(found.connection);
  return paired && Number(found.prefixes) === 0 ? Number(found.length) : undefined;
}

/**
 * How rows of `table` whose `column` equals a value without regard to case are asked for, served
 * by that index: a query for each value. `knex`: the caller's transaction, when it has one (see
 * indexedLookupLength).
 */
export async function rowsEqualIgnoringCase(
  strapi: Core.Strapi,
  knex: Knex | Trx,
  table: string,
  column: string
): Promise<(value: string) => Query> {
  const client = strapi.db.dialect.client;
  const rows = () => strapi.db.connection(table);
  const equals = CASE_INSENSITIVE[client]?.equals ?? UNINDEXED_EQUALS;
  const indexed = client === 'mysql' ? await indexedLookupLength(knex, table, column) : undefined;
  return (value) =>
    indexed !== undefined && [...value].length <= indexed
      ? rows().where(column, value).whereRaw(equals, [column, value])
      : rows().whereRaw(equals, [column, value]);
}

/**
 * For each of `values`, the documents of `table` with a row whose `column` equals it without
 * regard to case, as rowsEqualIgnoringCase finds them: one query, a UNION ALL of one indexed
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
  if (values.length === 0) return [];
  const rowsEqualTo = await rowsEqualIgnoringCase(strapi, trx, table.name, table.column);
  const lookups = values.map((value, position) =>
    rowsEqualTo(value)
      .distinct({ documentId: table.documentId })
      .select(strapi.db.connection.raw(`${Number(position)} as ??`, ['wanted']))
  );
  const rows: Array<{ documentId: string; wanted: number | string }> =
    await unionAllOf(lookups).transacting(trx);
  return rows.map((row) => ({ documentId: row.documentId, wanted: Number(row.wanted) }));
}

/**
 * Adds the index named `name` that serves rowsEqualIgnoringCase on the column (on MySQL and
 * MariaDB a plain one, under a pair of LOWER_EQUAL_COLLATIONS only). Idempotent by name; like
 * `ensureIndex`, never drops or replaces an index.
 */
export async function ensureCaseInsensitiveIndex(
  strapi: Core.Strapi,
  wanted: WantedIndex,
  name: string
): Promise<boolean> {
  const client = strapi.db.dialect.client;
  const [column] = wanted.columns;
  if (client === 'mysql') {
    // Read as addIndex reads: a failure costs the index, never the site's start.
    const indexable = await indexedLookupLength(strapi.db.connection, wanted.table, column).catch((error) => {
      strapi.log.warn(
        `[${PLUGIN_ID}] could not read ${wanted.table}.${column}'s collation: ${(error as Error).message}`
      );
      return undefined;
    });
    return indexable === undefined ? false : ensureIndex(strapi, wanted, name);
  }
  const indexed = CASE_INSENSITIVE[client]?.indexed;
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
