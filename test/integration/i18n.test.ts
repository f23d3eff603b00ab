import { captureServerErrors, documentsOf, listenToLog, queryOf } from '../helpers/inspect';
import { type Site, startSite, useSite } from '../helpers/site';

/**
 * Posts in a type with Strapi's i18n on (the example's Journal): the plugin writes, lists and
 * deletes one locale's version of each document, and leaves the translations editors add alone.
 */
const JOURNAL = 'api::journal.journal';

const addFrench = (site: Site) =>
  site.strapi.plugin('i18n').service('locales').create({ code: 'fr', name: 'French (fr)' });

/** Every row (draft and published, every locale) of a document, read by the query engine. */
const rowsOf = (site: Site, documentId: string) =>
  queryOf(site.strapi, JOURNAL).findMany({ where: { documentId } }) as Promise<
    Array<{ locale: string; title: string; publishedAt: unknown }>
  >;

const versionsOf = async (site: Site, documentId: string) =>
  (await rowsOf(site, documentId))
    .map((row) => `${row.locale}:${row.publishedAt ? 'published' : 'draft'}:${row.title}`)
    .sort();

/** What an editor does in the Content Manager: a French version, published. */
async function translate(site: Site, documentId: string, title: string) {
  const journals = documentsOf(site.strapi, JOURNAL);
  await journals.update({ documentId, locale: 'fr', data: { title } });
  await journals.publish({ documentId, locale: 'fr' });
}

async function publish(site: Site, body: Record<string, unknown>) {
  const reply = await site.send('POST', '/posts', { content: '<p>Body.</p>', status: 'publish', ...body });
  expect(reply).toMatchObject({ status: 200 });
  return reply.body.id as string;
}

async function listedPosts(site: Site) {
  const reply = await site.send('GET', '/pages?per_page=100');
  expect(reply.status).toBe(200);
  return (reply.body as Array<{ type: string; id: string; title: string }>).filter(
    (item) => item.type === 'post'
  );
}

describe('posts in a localized type, default locale', () => {
  let serverErrors: string[];

  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'localized' });
  beforeAll(async () => {
    serverErrors = captureServerErrors(site.strapi);
    await addFrench(site);
  });
  afterEach(() => {
    expect(serverErrors).toEqual([]);
  });

  test('a published post is stored in the default locale, with its categories', async () => {
    const id = await publish(site, { title: 'Morning brew', categories: ['Brewing'], source_id: 'm-1' });
    expect(await versionsOf(site, id)).toEqual(['en:draft:Morning brew', 'en:published:Morning brew']);
    const stored = (await documentsOf(site.strapi, JOURNAL).findOne({
      documentId: id,
      status: 'published',
      populate: ['categories'],
    })) as any;
    expect(stored.categories.map((category: { name: string }) => category.name)).toEqual(['Brewing']);
  });

  test('/pages lists a post once when an editor added a French translation', async () => {
    const id = await publish(site, { title: 'Listed once' });
    await translate(site, id, 'Listé une fois');
    const listed = (await listedPosts(site)).filter((item) => item.id === id);
    expect(listed).toEqual([expect.objectContaining({ id, title: 'Listed once' })]);
  });

  test("/pages lists a post's tags, kept in a JSON attribute, as the Document Service reads them", async () => {
    const id = await publish(site, { title: 'Tagged in JSON', tags: ['roast', 'beans'] });
    await translate(site, id, 'Étiqueté en JSON');
    const reply = await site.send('GET', '/pages?per_page=100');
    const item = reply.body.find((listed: { id: string }) => listed.id === id);
    const stored = await documentsOf(site.strapi, JOURNAL).findOne({ documentId: id, status: 'published' });
    expect(stored.tags).toEqual(['roast', 'beans']);
    expect(item).toMatchObject({ title: 'Tagged in JSON', tags: stored.tags });
  });

  test('a PUT changes the default locale only; the French version stays as the editor left it', async () => {
    const id = await publish(site, { title: 'Before' });
    await translate(site, id, 'Avant');
    const reply = await site.send('PUT', `/posts/${id}`, { title: 'After', content: '<p>New body.</p>' });
    expect(reply).toMatchObject({ status: 200, body: { id } });
    expect(await versionsOf(site, id)).toEqual([
      'en:draft:After',
      'en:published:After',
      'fr:draft:Avant',
      'fr:published:Avant',
    ]);
  });

  test('unpublishing and republishing touch the default locale only', async () => {
    const id = await publish(site, { title: 'On and off' });
    await translate(site, id, 'Marche arrêt');
    expect(await site.send('PUT', `/posts/${id}`, { status: 'draft' })).toMatchObject({ status: 200 });
    expect(await versionsOf(site, id)).toEqual([
      'en:draft:On and off',
      'fr:draft:Marche arrêt',
      'fr:published:Marche arrêt',
    ]);
    expect(await site.send('PUT', `/posts/${id}`, { status: 'publish' })).toMatchObject({ status: 200 });
    expect(await versionsOf(site, id)).toEqual([
      'en:draft:On and off',
      'en:published:On and off',
      'fr:draft:Marche arrêt',
      'fr:published:Marche arrêt',
    ]);
  });

  test("an editor's unpublished draft in the default locale survives an update, and so does French", async () => {
    const id = await publish(site, { title: 'Reviewed' });
    await translate(site, id, 'Relu');
    await documentsOf(site.strapi, JOURNAL).update({
      documentId: id,
      locale: 'en',
      data: { title: 'Editor draft' },
    });
    const reply = await site.send('PUT', `/posts/${id}`, { excerpt: 'From the platform.' });
    expect(reply).toMatchObject({ status: 200 });
    expect(await versionsOf(site, id)).toEqual([
      'en:draft:Editor draft',
      'en:published:Reviewed',
      'fr:draft:Relu',
      'fr:published:Relu',
    ]);
    const published = (await documentsOf(site.strapi, JOURNAL).findOne({
      documentId: id,
      status: 'published',
      locale: 'en',
    })) as any;
    expect(published.description).toBe('From the platform.');
  });

  // The Journal's reading time is not localized: Strapi keeps it one value across the locales of
  // each status, and so does a publish written beside an editor's draft.
  test("a value that is not localized, published beside an editor's draft, reaches every locale", async () => {
    const id = await publish(site, { title: 'Shared time', reading_time: '3 min' });
    await translate(site, id, 'Temps partagé');
    await documentsOf(site.strapi, JOURNAL).update({
      documentId: id,
      locale: 'en',
      data: { title: 'Editor draft' },
    });
    const reply = await site.send('PUT', `/posts/${id}`, { reading_time: '7 min' });
    expect(reply).toMatchObject({ status: 200 });
    const rows = (await queryOf(site.strapi, JOURNAL).findMany({ where: { documentId: id } })) as Array<
      Record<string, any>
    >;
    expect(
      rows.map((row) => `${row.locale}:${row.publishedAt ? 'published' : 'draft'}:${row.readingTime}`).sort()
    ).toEqual(['en:draft:7 min', 'en:published:7 min', 'fr:draft:7 min', 'fr:published:7 min']);
    expect(await versionsOf(site, id)).toContain('en:draft:Editor draft');
  });

  // Only a write of a non-localized value touches the other locales: French stays unmodified.
  test("a localized value published beside an editor's draft leaves the other locales' rows alone", async () => {
    const id = await publish(site, { title: 'Own time', reading_time: '3 min' });
    await translate(site, id, 'Temps propre');
    const french = () =>
      queryOf(site.strapi, JOURNAL).findMany({
        where: { documentId: id, locale: 'fr' },
        select: ['id', 'updatedAt'],
      });
    const before = await french();
    await documentsOf(site.strapi, JOURNAL).update({
      documentId: id,
      locale: 'en',
      data: { title: 'Editor draft' },
    });
    const reply = await site.send('PUT', `/posts/${id}`, { excerpt: 'Only in English.' });
    expect(reply).toMatchObject({ status: 200 });
    expect(await french()).toEqual(before);
  });

  test('a DELETE removes the default-locale version only; the post is gone for the platform', async () => {
    const id = await publish(site, { title: 'Short lived', source_id: 'short-1' });
    await translate(site, id, 'Éphémère');
    expect(await site.send('DELETE', `/posts/${id}`)).toMatchObject({
      status: 200,
      body: { id, deleted: true },
    });
    expect(await versionsOf(site, id)).toEqual(['fr:draft:Éphémère', 'fr:published:Éphémère']);
    expect((await listedPosts(site)).map((item) => item.id)).not.toContain(id);
    expect(await site.send('PUT', `/posts/${id}`, { title: 'Again' })).toMatchObject({ status: 404 });
    expect(await site.send('DELETE', `/posts/${id}`)).toMatchObject({ status: 404 });
    // Publishing the same source again makes a new post; the editor's translation stays where it was.
    const again = await publish(site, { title: 'Short lived', source_id: 'short-1' });
    expect(again).not.toBe(id);
    expect(await versionsOf(site, id)).toEqual(['fr:draft:Éphémère', 'fr:published:Éphémère']);
  });

  test('a post published again by source_id updates the default locale of the same document', async () => {
    const id = await publish(site, { title: 'Retried', source_id: 'retry-1' });
    await translate(site, id, 'Réessayé');
    const again = await site.send('POST', '/posts', {
      title: 'Retried twice',
      content: '<p>Body.</p>',
      status: 'publish',
      source_id: 'retry-1',
    });
    expect(again).toMatchObject({ status: 200, body: { id } });
    expect(await versionsOf(site, id)).toEqual([
      'en:draft:Retried twice',
      'en:published:Retried twice',
      'fr:draft:Réessayé',
      'fr:published:Réessayé',
    ]);
  });
});

describe('posts in a localized type, locale configured', () => {
  test('with locale "fr" posts are written, listed, updated and deleted in French', async () => {
    const site = await startSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'localized', PUBLISH_BRIDGE_LOCALE: 'fr' });
    try {
      await addFrench(site);
      const id = await publish(site, { title: 'Bonjour' });
      expect(await versionsOf(site, id)).toEqual(['fr:draft:Bonjour', 'fr:published:Bonjour']);
      expect((await listedPosts(site)).filter((item) => item.id === id)).toEqual([
        expect.objectContaining({ title: 'Bonjour' }),
      ]);
      expect(await site.send('PUT', `/posts/${id}`, { title: 'Bonsoir' })).toMatchObject({ status: 200 });
      expect(await versionsOf(site, id)).toEqual(['fr:draft:Bonsoir', 'fr:published:Bonsoir']);
      // An editor's unpublished French change and an English version: both stay through an update.
      const journals = documentsOf(site.strapi, JOURNAL);
      await journals.update({ documentId: id, locale: 'fr', data: { title: 'Brouillon' } });
      await journals.update({ documentId: id, locale: 'en', data: { title: 'Good evening' } });
      expect(await site.send('PUT', `/posts/${id}`, { excerpt: 'De la plateforme.' })).toMatchObject({
        status: 200,
      });
      expect(await versionsOf(site, id)).toEqual([
        'en:draft:Good evening',
        'fr:draft:Brouillon',
        'fr:published:Bonsoir',
      ]);
      const published = await journals.findOne({ documentId: id, locale: 'fr', status: 'published' });
      expect(published.description).toBe('De la plateforme.');
      // No copy of the published version is left behind under another documentId.
      expect(await queryOf(site.strapi, JOURNAL).count()).toBe(3);
      expect(await site.send('DELETE', `/posts/${id}`)).toMatchObject({ status: 200 });
      expect(await versionsOf(site, id)).toEqual(['en:draft:Good evening']);
      expect(await listedPosts(site)).toEqual([]);
    } finally {
      await site.stop();
    }
  });

  test('a locale the site does not have is a warning at boot, and fails each request with an actionable message', async () => {
    const warnings: string[] = [];
    const site = await startSite(
      {
        PUBLISH_BRIDGE_CONTENT_TYPES: 'localized',
        PUBLISH_BRIDGE_LOCALE: 'de',
      },
      (strapi) => {
        listenToLog(strapi, 'warn', (message) => {
          warnings.push(message);
        });
      }
    );
    try {
      expect(warnings).toEqual([expect.stringMatching(/"de".*not one of this site's locales \(en\)/)]);
      const reply = await site.send('POST', '/posts', {
        title: 'Hallo',
        content: '<p>Body.</p>',
        status: 'publish',
      });
      expect(reply.status).toBe(500);
      expect(reply.body).toEqual({ error: expect.stringContaining('"de"') });
      expect(reply.body.error).toMatch(/Internationalization/);
      expect(await queryOf(site.strapi, JOURNAL).count()).toBe(0);
    } finally {
      await site.stop();
    }
  });
});
