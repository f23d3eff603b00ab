import type { Core } from '@strapi/strapi';

/** A content type's table as knex addresses it: its name, and each attribute's column. */
export type Table = { name: string; column(attribute: string): string };

/** Read from Strapi's metadata, which knows the names it gave (snake_case, shortened identifiers). */
export function tableOf(strapi: Core.Strapi, uid: string): Table {
  const meta = strapi.db.metadata.get(uid as never) as {
    tableName: string;
    attributes: Record<string, { columnName?: string }>;
  };
  return { name: meta.tableName, column: (attribute) => meta.attributes[attribute]?.columnName ?? attribute };
}
