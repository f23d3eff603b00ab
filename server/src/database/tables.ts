import type { Core } from '@strapi/strapi';

/**
 * Table and column names for the few raw queries (locking reads, the identity registry,
 * receipts, one-query slug lookups, the page list), read from Strapi's metadata, which knows
 * the names it gave (snake_case, shortened identifiers). Strapi types its metadata by the uids
 * an app generates; a type named at run time needs the one cast below.
 */
type Metadata = {
  tableName: string;
  attributes: Record<
    string,
    {
      columnName?: string;
      target?: string;
      joinTable?: {
        name: string;
        joinColumn: { name: string };
        inverseJoinColumn?: { name: string };
        orderColumnName?: string;
      };
    }
  >;
};

const metadataOf = (strapi: Core.Strapi, uid: string) => strapi.db.metadata.get(uid) as unknown as Metadata;

/** A content type's table as knex addresses it: its name, and each attribute's column. */
export type Table = { name: string; column(attribute: string): string };

export function tableOf(strapi: Core.Strapi, uid: string): Table {
  const meta = metadataOf(strapi, uid);
  return { name: meta.tableName, column: (attribute) => meta.attributes[attribute]?.columnName ?? attribute };
}

/** Every join table behind the type's relations (Strapi's `…_lnk` tables). */
export const joinTablesOf = (strapi: Core.Strapi, uid: string): string[] =>
  Object.values(metadataOf(strapi, uid).attributes).flatMap((attribute) =>
    attribute.joinTable ? [attribute.joinTable.name] : []
  );

/** The join table behind a relation attribute, and the column that holds this type's side. */
export function joinTableOf(strapi: Core.Strapi, uid: string, attribute: string) {
  const joinTable = metadataOf(strapi, uid).attributes[attribute]?.joinTable;
  if (!joinTable) throw new Error(`${uid}.${attribute} is not a relation with a join table`);
  return { name: joinTable.name, joinColumn: joinTable.joinColumn.name };
}

/**
 * An instant as a datetime column keeps it for a raw query to write or compare. Strapi creates
 * datetime columns without a time zone, and the PostgreSQL and MySQL drivers write a Date as the
 * process's local wall time: instances in different time zones (or one across a DST change)
 * would store one instant as different times. So every instance writes UTC wall time. SQLite
 * keeps a Date as epoch milliseconds, the same everywhere.
 */
export const storedInstant = (strapi: Core.Strapi, instant: Date) =>
  strapi.db.dialect.client === 'sqlite' ? instant : instant.toISOString().replace('T', ' ').replace('Z', '');

/**
 * An instant a raw query read from a column `storedInstant` wrote: SQLite gives the epoch
 * milliseconds back, the PostgreSQL and MySQL drivers a Date read as local wall time (which was
 * UTC's), some configurations the text itself.
 */
export function instantFromStored(value: unknown): Date | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return new Date(value);
  if (value instanceof Date) {
    return new Date(
      Date.UTC(
        value.getFullYear(),
        value.getMonth(),
        value.getDate(),
        value.getHours(),
        value.getMinutes(),
        value.getSeconds(),
        value.getMilliseconds()
      )
    );
  }
  const text = String(value);
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text.replace(' ', 'T')}Z`);
}

/**
 * The join table of a relation to another content type: this type's column, the target's, and
 * the column Strapi keeps the connect order in (on the side that has one), which is the order
 * Strapi populates the relation in.
 */
export function relationTableOf(strapi: Core.Strapi, uid: string, attribute: string) {
  const { target, joinTable } = metadataOf(strapi, uid).attributes[attribute] ?? {};
  if (!target || !joinTable?.inverseJoinColumn)
    throw new Error(`${uid}.${attribute} is not a relation to a content type`);
  return {
    name: joinTable.name,
    joinColumn: joinTable.joinColumn.name,
    inverseJoinColumn: joinTable.inverseJoinColumn.name,
    orderColumn: joinTable.orderColumnName,
    target,
  };
}
