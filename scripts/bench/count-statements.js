/**
 * Preloaded into the bench's server by `npm run bench:statements` (node --require ...): every SQL
 * statement Strapi's knex connection runs, transactions' included, is appended as one JSON line
 * to PB_BENCH_STATEMENTS_FILE, synchronously, so the bench reads a request's statements as soon as
 * it is answered. strapi.db exists only once Strapi has loaded, so the listener waits for it.
 */
'use strict';

const fs = require('node:fs');

const file = process.env.PB_BENCH_STATEMENTS_FILE;

/** Strapi's knex instance, once Strapi has made its database; undefined before. */
function connection() {
  try {
    return global.strapi?.db?.connection;
  } catch {
    // Strapi's container throws for a service not registered yet.
    return undefined;
  }
}

if (file) {
  const timer = setInterval(() => {
    const knex = connection();
    if (!knex) return;
    clearInterval(timer);
    knex.on('query', (/** @type {{ sql: string }} */ query) =>
      fs.appendFileSync(file, `${JSON.stringify(query.sql)}\n`)
    );
  }, 5);
}
