#!/usr/bin/env node
/**
 * Prepares a bench database before the server starts, in a process of its own: boots the
 * example once (which also creates the schema), creates a full-access API token for the native
 * side, and fills the site with published documents for the paging measurement: posts (the
 * example's articles), blog categories and products mixed, as GET /pages lists them, the posts
 * and products with bodies of about 5 KB, as a real site's are (the list never returns them).
 *
 *   node scripts/bench/setup.js <result.json> <items> [--no-token]
 *
 * The fill writes rows with Strapi's Query Engine in batches (a draft and a published row per
 * document, as the Document Service stores them): through the HTTP API it would take minutes.
 * Then it refreshes the table's statistics, as a database does on its own soon after.
 */
'use strict';

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

/** @typedef {import('@strapi/strapi').Core.Strapi} Strapi */

const EXAMPLE_DIR = path.resolve(__dirname, '../../example');
const ARTICLE = 'api::article.article';
const CATEGORY = 'api::category.category';
const PRODUCT = 'plugin::publish-bridge.product';
const BATCH = 250;
/** About 5 KB of text: the size of a real post's or product's body. */
const BODY_TEXT = 'An older piece of the back catalogue, here so the site has a long list. '.repeat(70);

const documentId = () => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(24)].map((byte) => alphabet[byte % alphabet.length]).join('');
};

const fillerContent = (/** @type {number} */ n) => [
  { type: 'heading', level: 2, children: [{ type: 'text', text: `Archived article ${n}` }] },
  {
    type: 'paragraph',
    children: [{ type: 'text', text: BODY_TEXT }],
  },
];

/**
 * Item n of the fill: 7 in 10 are posts, 1 a blog category (a type without draft & publish:
 * one row), 2 products; interleaved, so a page of the list reads every type.
 * @param {number} n
 * @param {Date} at
 * @returns {{ uid: string; rows: Record<string, unknown>[] }}
 */
function fillerItem(n, at) {
  const dates = { documentId: documentId(), createdAt: at, updatedAt: at };
  const kind = n % 10;
  if (kind === 7)
    return {
      uid: CATEGORY,
      rows: [{ ...dates, name: `Archived category ${n}`, slug: `archived-category-${n}`, publishedAt: at }],
    };
  const common =
    kind < 7
      ? {
          ...dates,
          title: `Archived article ${n}`,
          slug: `archived-article-${n}`,
          description: `Summary of archived article ${n}.`,
          content: fillerContent(n),
          publishedDate: at,
          sourceId: `archive-${n}`,
        }
      : { ...dates, name: `Archived product ${n}`, slug: `archived-product-${n}`, description: BODY_TEXT };
  return {
    uid: kind < 7 ? ARTICLE : PRODUCT,
    rows: [
      { ...common, publishedAt: null },
      { ...common, publishedAt: at },
    ],
  };
}

/**
 * @param {Strapi} strapi
 * @param {number} items
 */
async function fill(strapi, items) {
  const startedAt = Date.now();
  // One millisecond apart and after every existing entry, so the listing order (creation, then
  // type, then id) is the insertion order.
  const firstCreatedAt = startedAt;
  for (let offset = 0; offset < items; offset += BATCH) {
    /** @type {Map<string, Record<string, unknown>[]>} */
    const rowsByUid = new Map();
    for (let n = offset; n < Math.min(items, offset + BATCH); n += 1) {
      const { uid, rows } = fillerItem(n, new Date(firstCreatedAt + n));
      rowsByUid.set(uid, [...(rowsByUid.get(uid) ?? []), ...rows]);
    }
    for (const [uid, rows] of rowsByUid) await strapi.db.query(uid).createMany({ data: rows });
  }
  if (items > 0) {
    for (const uid of [ARTICLE, CATEGORY, PRODUCT])
      await analyze(strapi, strapi.db.metadata.get(uid).tableName);
  }
  return { items, seconds: (Date.now() - startedAt) / 1000 };
}

/**
 * Refreshes the planner's statistics after the bulk fill, as autovacuum (PostgreSQL) would within
 * a minute on a real site: a table measured right after 20,000 inserts still has the statistics of
 * an empty one, and PostgreSQL then plans a page of the list with parallel workers.
 * @param {Strapi} strapi
 * @param {string} table
 */
async function analyze(strapi, table) {
  const client = strapi.db.dialect.client;
  const knex = strapi.db.connection;
  if (client === 'mysql') await knex.raw('ANALYZE TABLE ??', [table]);
  else await knex.raw('ANALYZE ??', [table]);
}

async function main() {
  const [resultFile, itemsArgument, tokenFlag] = process.argv.slice(2);
  const items = Number(itemsArgument ?? 0);
  const { createStrapi } = require(require.resolve('@strapi/strapi', { paths: [EXAMPLE_DIR] }));
  const strapi = await createStrapi({ appDir: EXAMPLE_DIR, distDir: EXAMPLE_DIR, autoReload: false }).load();
  try {
    const token =
      tokenFlag === '--no-token'
        ? undefined
        : await strapi.service('admin::api-token').create({
            name: `bench-${Date.now()}`,
            description: 'Native side of npm run bench',
            type: 'full-access',
            kind: 'content-api',
            lifespan: null,
          });
    const filled = await fill(strapi, items);
    fs.writeFileSync(resultFile, JSON.stringify({ apiToken: token?.accessKey, filled }));
  } finally {
    await strapi.destroy();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error.stack ?? String(error));
    process.exit(1);
  }
);
