'use strict';

const { createHmac } = require('node:crypto');

const CONTENT_BYTES = 5 * 1024;
const CATEGORIES = ['Brewing', 'Origins', 'Roasting', 'Equipment', 'Recipes', 'News'];
const TAGS = [
  'espresso',
  'filter',
  'grinder',
  'water',
  'milk',
  'latte art',
  'decaf',
  'cold brew',
  'beans',
  'travel',
];
const AUTHORS = ['Ada Barista', 'Ben Roaster', 'Cleo Cupper'];

/** About 5 KB of the HTML a publisher sends: headings, paragraphs with inline marks and links, lists. */
function articleHtml() {
  const sections = [];
  for (let n = 1; sections.join('').length < CONTENT_BYTES; n += 1) {
    sections.push(
      `<h2>Step ${n}: getting the grind right</h2>` +
        `<p>Freshly ground beans lose their aroma within minutes, so grind just before brewing. ` +
        `A <strong>burr grinder</strong> gives an even size; a blade grinder makes dust and boulders, ` +
        `and the dust <em>over-extracts</em> while the boulders stay sour. ` +
        `See <a href="https://example.com/guides/grind-${n}">our grind size guide</a> for a chart.</p>` +
        `<ul><li>Espresso: fine, like table salt</li><li>Filter: medium, like sand</li>` +
        `<li>French press: coarse, like breadcrumbs</li></ul>` +
        `<p>Weigh the coffee and the water: 60 grams per litre is a good start, then adjust to taste.</p>`
    );
  }
  return sections.join('');
}

const HTML = articleHtml();

/** A paragraph that makes each update a real change of the content. */
const revisionHtml = (/** @type {number} */ n) => `<p>Revision ${n}</p>`;
const revisionBlock = (/** @type {number} */ n) => ({
  type: 'paragraph',
  children: [{ type: 'text', text: `Revision ${n}` }],
});

/**
 * The contract's signature headers for `body`.
 * @param {string} key
 * @param {string} body
 */
function sign(key, body, timestamp = Date.now()) {
  const ts = String(timestamp);
  return {
    'x-api-key': key,
    'x-publisher-timestamp': ts,
    'x-publisher-signature': createHmac('sha256', key).update(`${ts}.`).update(body).digest('hex'),
  };
}

/**
 * @param {string[]} list
 * @param {number} n
 * @param {number} count
 */
const pick = (list, n, count) => Array.from({ length: count }, (_, i) => list[(n + i * 2) % list.length]);

/**
 * Every post of a run gets its own title (and slug, source id) so each request creates a new document.
 * @param {string} label
 * @param {number} n
 */
function createBody(label, n) {
  return { title: `Bench ${label} post ${n}`, content: HTML, status: 'publish' };
}

/**
 * A's native side: the same post as createBody's, as Strapi REST data with the plugin's Blocks.
 * @param {string} label
 * @param {number} n
 * @param {unknown[]} blocks
 */
function nativeCreateData(label, n, blocks) {
  return { title: `Bench ${label} post ${n}`, slug: `bench-${label}-native-${n}`, content: blocks };
}

/**
 * A full publish, as the publisher sends it when every field is filled in.
 * @param {string} label
 * @param {number} n
 */
function fullCreateBody(label, n) {
  return {
    ...createBody(label, n),
    excerpt: 'How grind size, dose and water change the taste of the same coffee, step by step.',
    date: '2026-03-14 09:30:00',
    categories: pick(CATEGORIES, n, 2),
    tags: pick(TAGS, n, 3),
    author: AUTHORS[n % AUTHORS.length],
    reading_time: '6',
    seo: {
      title: `Grind guide ${n}`,
      description: 'A practical guide to grind size for espresso, filter and French press, with a chart.',
      keywords: ['coffee', 'grind size', 'brewing'],
    },
    source_id: `bench-${label}-${n}`,
  };
}

/**
 * The same full post as Strapi REST data for the example's Article, for a native side of B:
 * relations by documentId (`categoryIds` and `authorIds` by name), the SEO component, the date
 * as the instant the plugin stores.
 * @param {string} label
 * @param {number} n
 * @param {{ blocks: unknown[]; categoryIds: Record<string, string>; authorIds: Record<string, string> }} related
 */
function nativeFullData(label, n, { blocks, categoryIds, authorIds }) {
  const body = fullCreateBody(label, n);
  return {
    title: body.title,
    slug: `bench-${label}-native-full-${n}`,
    content: blocks,
    description: body.excerpt,
    publishedDate: new Date(`${body.date.replace(' ', 'T')}Z`).toISOString(),
    readingTime: body.reading_time,
    tags: body.tags,
    categories: body.categories.map((name) => categoryIds[name]),
    author: authorIds[body.author],
    seo: {
      metaTitle: body.seo.title,
      metaDescription: body.seo.description,
      keywords: body.seo.keywords.join(', '),
    },
    sourceId: body.source_id,
  };
}

module.exports = {
  CATEGORIES,
  AUTHORS,
  HTML,
  nativeCreateData,
  nativeFullData,
  revisionHtml,
  revisionBlock,
  sign,
  createBody,
  fullCreateBody,
};
