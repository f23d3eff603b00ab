import type { Core } from '@strapi/strapi';

/**
 * Knex's types for the plugin's raw queries, taken from Strapi's own connection (typed by
 * @strapi/database, which depends on knex) rather than from knex itself, which the plugin does
 * not depend on: they are always the types of the knex that runs.
 */

/** Strapi's knex instance: `strapi.db.connection`. */
export type Knex = Core.Strapi['db']['connection'];

/** A query builder, as `knex(table)` returns it. */
export type Query = ReturnType<Knex>;

/** A transaction, as `strapi.db.transaction` hands it to its callback and `transacting` takes it. */
export type Trx = Parameters<Query['transacting']>[0];

/** One query of `queries` (at least one) joined by UNION ALL, members unparenthesised: SQLite refuses them. */
export function unionAllOf([first, ...others]: Query[]): Query {
  return others.length > 0 ? first.unionAll(others) : first;
}
