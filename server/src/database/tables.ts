import type { Core } from '@strapi/strapi';

/**
 * Table and column names for the few raw queries (locking reads, the identity registry,
 * receipts, one-query slug lookups), read from Strapi's metadata, which knows the names it gave
 * (snake_case, shortened identifiers). Strapi types its metadata by the uids an app generates;
 * a type named at run time needs the one cast below.
 */
type Metadata = {
  tableName: string;
  attributes: Record<
    string,
    { columnName?: string; joinTable?: { name: string; joinColumn: { name: string } } }
  >;
};

const metadataOf = (strapi: Core.Strapi, uid: string) =>
  strapi.db.metadata.get(uid) as unknown as Metadata;

/** A content type's table as knex addresses it: its name, and each attribute's column. */
export type Table = { name: string; column(attribute: string): string };

export function tableOf(strapi: Core.Strapi, uid: string): Table {
  const meta = metadataOf(strapi, uid);
  return { name: meta.tableName, column: (attribute) => meta.attributes[attribute]?.columnName ?? attribute };
}

/** The join table behind a relation attribute, and the column that holds this type's side. */
export function joinTableOf(strapi: Core.Strapi, uid: string, attribute: string) {
  const joinTable = metadataOf(strapi, uid).attributes[attribute]?.joinTable;
  if (!joinTable) throw new Error(`${uid}.${attribute} is not a relation with a join table`);
  return { name: joinTable.name, joinColumn: joinTable.joinColumn.name };
}
