import { captureServerErrors, listenToLog, queryOf, rowsOf, UIDS } from '../helpers/inspect';
import { serviceOf, type Site, startSite } from '../helpers/site';

/**
 * The plugin on the two blog shapes a real site has: Strapi's own example-template Article (the
 * example's Story: one category, one author, an 80-character description) and the example's
 * Article (categories manyToMany, author manyToOne, a seo component with required parts).
 */
const STORY = 'api::story.story';
const ARTICLE = 'api::article.article';
const CATEGORY = 'api::category.category';
const ACTIVITY = UIDS.activityEntry;

const LONG_EXCERPT =
  'A slow morning with a hand grinder, three brew methods and one lesson about water temperature that changed everything.';
const LONG_TITLE = `${'Why every home barista should weigh their coffee '.repeat(6)}and their water`;

type Started = { site: Site; infoLog: string[]; serverErrors: string[] };

async function start(contentTypes: string): Promise<Started> {
  const site = await startSite({ PUBLISH_BRIDGE_CONTENT_TYPES: contentTypes });
  const infoLog: string[] = [];
  listenToLog(site.strapi, 'info', (message) => {
    infoLog.push(message);
  });
  return { site, infoLog, serverErrors: captureServerErrors(site.strapi) };
}

/** Every row (draft and published) of a document, with its relations, read by the query engine. */
/** A published post's two rows, its draft and its published version, read with `populate`. */
async function bothVersions(site: Site, uid: string, documentId: string, populate: string[]) {
  const rows = await queryOf(site.strapi, uid).findMany({
    where: { documentId },
    populate: Object.fromEntries(populate.map((name) => [name, true])),
  });
  // The checks loop over these rows: they must not pass by reading none.
  expect(rows.map((row: any) => row.publishedAt === null).sort()).toEqual([false, true]);
  return rows;
}

/** The notes the activity log kept for an entity, over every request that touched it. */
async function activityNotes(site: Site, entityId: string): Promise<string[]> {
  await serviceOf(site, 'activity-writer').flush();
  const rows = await rowsOf(site.strapi, ACTIVITY);
  return rows
    .filter((row) => row.entityId === entityId)
    .flatMap((row) => (typeof row.notes === 'string' ? JSON.parse(row.notes) : (row.notes ?? [])));
}

async function publish(site: Site, body: Record<string, unknown>) {
  const reply = await site.send('POST', '/posts', { content: '<p>Body.</p>', status: 'publish', ...body });
  expect(reply).toMatchObject({ status: 200 });
  return reply.body.id as string;
}

async function allPages(site: Site) {
  const reply = await site.send('GET', '/pages?per_page=250');
  expect(reply.status).toBe(200);
  return reply.body as Array<{ id: string; categories?: string[] }>;
}

/** `fitted` is `original` cut at a word boundary to at most `max` characters. */
function expectCutAtWord(fitted: string, original: string, max: number) {
  expect(fitted.length).toBeLessThanOrEqual(max);
  expect(fitted.length).toBeGreaterThan(max / 2);
  expect(original.startsWith(fitted)).toBe(true);
  expect(original[fitted.length]).toMatch(/[\s,.]/);
}

describe("Strapi's example-template Article (one category, one author, 80-character description)", () => {
  let started: Started;
  let site: Site;
  beforeAll(async () => {
    started = await start('template');
    site = started.site;
  });
  afterAll(async () => {
    await site?.stop();
  });
  beforeEach(() => {
    started.serverErrors.length = 0;
  });
  afterEach(() => {
    expect(started.serverErrors).toEqual([]);
  });

  test('create: the primary (first) category and the author are stored, the excerpt cut to 80 at a word', async () => {
    const id = await publish(site, {
      title: 'Grinding by hand',
      excerpt: LONG_EXCERPT,
      categories: ['Brewing Notes', 'Gear Reviews', 'brewing notes'],
      author: 'Ada Barista',
    });
    const rows = await bothVersions(site, STORY, id, ['category', 'author']);
    expect(rows).toHaveLength(2); // draft and published
    for (const row of rows) {
      expect(row.category?.name).toBe('Brewing Notes');
      expect(row.author?.name).toBe('Ada Barista');
      expectCutAtWord(row.description, LONG_EXCERPT, 80);
    }
    // Only the stored category was created: the others were never asked for.
    expect((await rowsOf(site.strapi, CATEGORY)).map((row) => row.name)).not.toContain('Gear Reviews');

    const notes = await activityNotes(site, id);
    expect(notes).toContainEqual(
      expect.stringMatching(/^excerpt was cut to \d+ characters to fit description \(at most 80\)/)
    );
    expect(notes).toContainEqual(
      expect.stringContaining('"Brewing Notes" was stored; not stored: "Gear Reviews"')
    );
    expect(started.infoLog.join('\n')).toContain('excerpt was cut to');
  });

  // One grapheme (an "e" with 100 combining accents) longer than the 80-character description:
  // a cut would store it empty, so the excerpt is left out, and the post is published.
  test('an excerpt whose first character alone is longer than the description is left out, with a note', async () => {
    const id = await publish(site, {
      title: 'Published without its excerpt',
      excerpt: `e${'\u0301'.repeat(100)}`,
    });
    const [row] = (await bothVersions(site, STORY, id, [])).filter((version: any) => version.publishedAt);
    expect(row.description ?? null).toBeNull();
    expect(await activityNotes(site, id)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^excerpt was not stored: not even its first character fits in description/),
      ])
    );
  });

  test('update: the new first category replaces the stored one, with a note for the others', async () => {
    const id = await publish(site, {
      title: 'Pour-over basics',
      categories: ['Brewing Notes'],
      source_id: 'shape-1',
    });
    const reply = await site.send('PUT', `/posts/${id}`, { categories: ['Filter Coffee', 'Brewing Notes'] });
    expect(reply.status).toBe(200);
    const rows = await bothVersions(site, STORY, id, ['category']);
    expect(rows.map((row: any) => row.category?.name)).toEqual(['Filter Coffee', 'Filter Coffee']);
    expect(await activityNotes(site, id)).toContainEqual(
      expect.stringContaining('"Filter Coffee" was stored; not stored: "Brewing Notes"')
    );

    // An empty list clears the single relation.
    expect((await site.send('PUT', `/posts/${id}`, { categories: [] })).status).toBe(200);
    expect((await bothVersions(site, STORY, id, ['category'])).map((row: any) => row.category)).toEqual([
      null,
      null,
    ]);
  });

  // The template's Article has no attribute for source_id; the README says what happens then.
  test('an unmapped source_id: republishing it updates the same post, and it is not listed as not stored', async () => {
    const first = await publish(site, { title: 'Cold brew at home', source_id: 'unmapped-1' });
    const again = await publish(site, { title: 'Cold brew at home, revised', source_id: 'unmapped-1' });
    expect(again).toBe(first);
    const rows = await bothVersions(site, STORY, first, []);
    expect(rows.map((row: any) => row.title)).toEqual([
      'Cold brew at home, revised',
      'Cold brew at home, revised',
    ]);

    const storage = serviceOf(site, 'mapping').describe();
    const post = storage.find((entry) => entry.resource === 'post')!;
    expect(post.fields.map((entry: { field: string }) => entry.field)).not.toContain('source_id');
    expect(post.unmapped).not.toContain('source_id');
    expect(post.unmapped).toEqual(expect.arrayContaining(['date', 'tags', 'reading_time', 'seo']));
  });

  test('GET /pages lists the single category as a list of one, and a post without one as empty', async () => {
    const withCategory = await publish(site, { title: 'Listed with a category', categories: ['Espresso'] });
    const without = await publish(site, { title: 'Listed without a category' });
    const pages = await allPages(site);
    expect(pages.find((page) => page.id === withCategory)?.categories).toEqual(['Espresso']);
    expect(pages.find((page) => page.id === without)?.categories).toEqual([]);
  });

  test('a title longer than the string column is cut at a word boundary, not refused', async () => {
    const id = await publish(site, { title: LONG_TITLE });
    const [row] = await bothVersions(site, STORY, id, []);
    expectCutAtWord(row.title, LONG_TITLE, 255);
    expect(await activityNotes(site, id)).toContainEqual(
      expect.stringMatching(/^title was cut to \d+ characters to fit title \(at most 255\)/)
    );
  });

  test('a source_id over the id limit is still refused with 400 naming it, and nothing is written', async () => {
    const before = (await rowsOf(site.strapi, STORY)).length;
    const reply = await site.send('POST', '/posts', {
      title: 'Too long an id',
      content: '<p>x</p>',
      status: 'publish',
      source_id: 's'.repeat(192),
    });
    expect(reply.status).toBe(400);
    expect(Object.keys(reply.body)).toEqual(['error']);
    expect(reply.body.error).toContain('source_id');
    expect((await rowsOf(site.strapi, STORY)).length).toBe(before);
  });
});

describe('the example Article (categories manyToMany, author manyToOne, seo with required parts)', () => {
  let started: Started;
  let site: Site;
  beforeAll(async () => {
    started = await start('site');
    site = started.site;
  });
  afterAll(async () => {
    await site?.stop();
  });
  beforeEach(() => {
    started.serverErrors.length = 0;
  });
  afterEach(() => {
    expect(started.serverErrors).toEqual([]);
  });

  test('create and update keep every category in order; /pages lists them', async () => {
    const id = await publish(site, {
      title: 'Many categories',
      categories: ['Roasting', 'Origins'],
      author: 'Ben Roaster',
    });
    const created = await bothVersions(site, ARTICLE, id, ['categories', 'author']);
    for (const row of created) {
      expect(row.categories.map((category: any) => category.name).sort()).toEqual(['Origins', 'Roasting']);
      expect(row.author?.name).toBe('Ben Roaster');
    }
    expect((await site.send('PUT', `/posts/${id}`, { categories: ['Decaf', 'Roasting'] })).status).toBe(200);
    const updated = await bothVersions(site, ARTICLE, id, ['categories']);
    for (const row of updated) {
      expect(row.categories.map((category: any) => category.name).sort()).toEqual(['Decaf', 'Roasting']);
    }
    expect((await allPages(site)).find((page) => page.id === id)?.categories).toEqual(['Decaf', 'Roasting']);
  });

  test('a 300-character title is cut to fit the string column', async () => {
    const id = await publish(site, { title: LONG_TITLE });
    const [row] = await bothVersions(site, ARTICLE, id, []);
    expectCutAtWord(row.title, LONG_TITLE, 255);
  });

  test('seo with keywords only: the required metaTitle and metaDescription come from the title and excerpt', async () => {
    const id = await publish(site, {
      title: 'Water for coffee: hardness, minerals and taste',
      excerpt: LONG_EXCERPT,
      seo: { keywords: ['water', 'minerals'] },
    });
    const rows = await bothVersions(site, ARTICLE, id, ['seo']);
    for (const row of rows) {
      expect(row.seo).toMatchObject({
        metaTitle: 'Water for coffee: hardness, minerals and taste',
        keywords: 'water, minerals',
      });
      expect(row.seo.metaDescription).toBe(LONG_EXCERPT);
    }
    expect(await activityNotes(site, id)).toContainEqual(
      "seo.title was not sent; seo.metaTitle is required, so it holds the post's title."
    );
  });

  test('seo.canonical_url goes whole into canonicalURL, stays through a partial seo update, and one too long is left out with a note', async () => {
    const canonical = 'https://coffee.example/guides/water-for-coffee-hardness-minerals-and-taste';
    const id = await publish(site, {
      title: 'Water for coffee',
      excerpt: LONG_EXCERPT,
      seo: { canonical_url: canonical },
    });
    for (const row of await bothVersions(site, ARTICLE, id, ['seo'])) {
      expect(row.seo).toMatchObject({ canonicalURL: canonical, metaTitle: 'Water for coffee' });
    }

    expect((await site.send('PUT', `/posts/${id}`, { seo: { title: 'Water, again' } })).status).toBe(200);
    const tooLong = `https://coffee.example/${'very-long-path-'.repeat(20)}`;
    expect((await site.send('PUT', `/posts/${id}`, { seo: { canonical_url: tooLong } })).status).toBe(200);

    for (const row of await bothVersions(site, ARTICLE, id, ['seo'])) {
      expect(row.seo).toMatchObject({ canonicalURL: canonical, metaTitle: 'Water, again' });
    }
    expect(await activityNotes(site, id)).toContainEqual(
      `seo.canonical_url was not stored: canonicalURL holds at most 255 characters (got ${tooLong.length}), and it is never shortened.`
    );
  });

  test('seo that cannot fill a required part is left out with a note, and the post is stored', async () => {
    const id = await publish(site, {
      title: 'Short one',
      excerpt: 'Too short.',
      content: '<p>Also short.</p>',
      seo: { title: 'Short one', keywords: ['short'] },
    });
    const rows = await bothVersions(site, ARTICLE, id, ['seo']);
    expect(rows.map((row: any) => [row.title, row.seo])).toEqual([
      ['Short one', null],
      ['Short one', null],
    ]);
    expect(await activityNotes(site, id)).toContainEqual(
      'seo was not stored: this site requires seo.metaDescription; send seo.description or an excerpt of at least 50 characters.'
    );
  });
});
