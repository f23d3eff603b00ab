'use strict';

/**
 * Scenario H: the publisher's sync, which asks for `GET /pages` one page after another until a
 * page comes back shorter than `per_page` (contract §5), while its user keeps publishing.
 */

/** @typedef {{ seen: Map<string, number>; pages: number; seconds: number }} Walk */

/**
 * Walks every page; answers how many times each item (`type id`) was seen, the pages read and
 * the seconds taken. `getPage(page)` answers the page's items, or throws.
 * @param {(page: number) => Promise<{ type: string; id: string | number }[]>} getPage
 * @param {number} perPage
 * @returns {Promise<Walk>}
 */
async function walkPages(getPage, perPage) {
  /** @type {Map<string, number>} */
  const seen = new Map();
  const began = performance.now();
  let pages = 0;
  for (let page = 1; ; page += 1) {
    const items = await getPage(page);
    pages += 1;
    for (const item of items) {
      const key = `${item.type} ${item.id}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    if (items.length < perPage) break;
  }
  return { seen, pages, seconds: (performance.now() - began) / 1000 };
}

/**
 * What a walk during publishing got wrong, against a walk before it: items that were there before
 * and were missed, and items seen more than once. New items may be seen or not (once at most).
 * @param {Walk} before
 * @param {Walk} during
 */
function walkErrors(before, during) {
  const missed = [...before.seen.keys()].filter((key) => !during.seen.has(key));
  const repeated = [...during.seen].filter(([, times]) => times > 1).map(([key]) => key);
  return { missed, repeated };
}

module.exports = { walkPages, walkErrors };
