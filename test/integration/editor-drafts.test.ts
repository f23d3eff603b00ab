import { startSiteWithImages } from '../helpers/site-with-images';
import type { ImageServer } from '../helpers/image-server';
import { testDatabaseClient } from '../helpers/databases';
import {
  captureServerErrors,
  documentsOf,
  queryOf,
  snapshotTables,
  storageOf,
  UIDS,
} from '../helpers/inspect';
import { serviceOf, type Site, useSite } from '../helpers/site';
import { fullPost } from '../helpers/fixtures';

/**
 * An editor who saves a published entry in the Content Manager without publishing it leaves a
 * draft that differs from the published version ("Modified"). A partial PUT then changes the
 * published version by the fields it carries only; the editor's changes stay in the draft,
 * unpublished, with the sent fields applied there too.
 */
const db = testDatabaseClient();
const POST = UIDS.post;
const PRODUCT = UIDS.product;

type Entry = Record<string, any>;
type Status = 'draft' | 'published';

const time = (value: string | Date) => new Date(value).getTime();
const names = (entries: Entry[], field = 'name') => entries.map((entry) => entry[field]).sort();

/** The Content Manager shows "Modified" when the draft was saved after the published version. */
const isModified = (draft: Entry, published: Entry) => time(draft.updatedAt) > time(published.updatedAt);

describe(`editor drafts on ${db}, plugin content types`, () => {
  let serverErrors: string[];
  let run = 0;
  const site = useSite();
  beforeAll(async () => {
    serverErrors = captureServerErrors(site.strapi, { quiet: true });
  });

  const documents = (uid: string) => documentsOf(site.strapi, uid);
  const readPost = (documentId: string, status: Status): Promise<Entry> =>
    documents(POST).findOne({ documentId, status, populate: ['categories', 'tags', 'author'] });
  const rowCount = (uid: string, documentId: string) =>
    queryOf(site.strapi, uid).count({ where: { documentId } });

  async function publishPost() {
    run += 1;
    const reply = await site.send(
      'POST',
      '/posts',
      fullPost({
        title: `Reviewed title ${run}`,
        content: '<p>Reviewed body.</p>',
        excerpt: 'Reviewed excerpt',
        categories: ['Brewing'],
        seo: { title: 'Reviewed SEO title', description: 'Reviewed SEO description' },
        source_id: `editor-drafts-${Date.now()}-${run}`,
      })
    );
    expect(reply.status).toBe(200);
    return reply.body.id as string;
  }

  /** What an editor does in the Content Manager: change fields and save, without publishing. */
  async function editorSaves(uid: string, documentId: string, data: Record<string, unknown>) {
    await documents(uid).update({ documentId, data });
    const draft = await documents(uid).findOne({ documentId });
    const published = await documents(uid).findOne({ documentId, status: 'published' });
    expect(isModified(draft, published)).toBe(true);
  }

  async function put(path: string, body: Record<string, unknown>) {
    const reply = await site.send('PUT', path, body);
    expect(reply.status).toBe(200);
    return reply;
  }

  test("a partial PUT of a post leaves the editor's unpublished title out of the published version", async () => {
    const id = await publishPost();
    const before = await readPost(id, 'published');
    const keptTag = before.tags.find((tag: Entry) => tag.name === 'coffee');
    await editorSaves(POST, id, {
      title: 'Unreviewed title',
      excerpt: 'Unreviewed excerpt',
      seoTitle: 'Unreviewed SEO title',
      tags: { set: [keptTag.documentId] },
    });

    await put(`/posts/${id}`, { reading_time: '5 min' });

    const published = await readPost(id, 'published');
    expect(published).toMatchObject({
      title: before.title,
      excerpt: 'Reviewed excerpt',
      seoTitle: 'Reviewed SEO title',
      readingTime: '5 min',
      author: { displayName: 'Ada Brewer' },
    });
    expect(names(published.tags)).toEqual(['coffee', 'kettles']);
    expect(names(published.categories)).toEqual(['Brewing']);

    const draft = await readPost(id, 'draft');
    expect(draft).toMatchObject({
      title: 'Unreviewed title',
      excerpt: 'Unreviewed excerpt',
      seoTitle: 'Unreviewed SEO title',
      readingTime: '5 min',
      author: { displayName: 'Ada Brewer' },
    });
    expect(names(draft.tags)).toEqual(['coffee']);
    expect(names(draft.categories)).toEqual(['Brewing']);
    expect(isModified(draft, published)).toBe(true);
    // One draft and one published row: nothing duplicated, nothing lost.
    expect(await rowCount(POST, id)).toBe(2);
  });

  test('relations and merged seo sent in a PUT reach both versions, each merged with its own values', async () => {
    const id = await publishPost();
    await editorSaves(POST, id, { title: 'Unreviewed title', seoTitle: 'Unreviewed SEO title' });

    await put(`/posts/${id}`, {
      categories: ['Roasting'],
      tags: ['beans'],
      seo: { description: 'Sent SEO description' },
    });

    const published = await readPost(id, 'published');
    const draft = await readPost(id, 'draft');
    for (const version of [published, draft]) {
      expect(names(version.categories)).toEqual(['Roasting']);
      expect(names(version.tags)).toEqual(['beans']);
      expect(version.seoDescription).toBe('Sent SEO description');
      expect(version.author.displayName).toBe('Ada Brewer');
    }
    expect(published).toMatchObject({
      title: expect.stringMatching(/^Reviewed title/),
      seoTitle: 'Reviewed SEO title',
    });
    expect(draft).toMatchObject({ title: 'Unreviewed title', seoTitle: 'Unreviewed SEO title' });
    expect(isModified(draft, published)).toBe(true);
    expect(await rowCount(POST, id)).toBe(2);
  });

  test('status publish on a published post with an editor draft does not publish the draft', async () => {
    const id = await publishPost();
    await editorSaves(POST, id, { title: 'Unreviewed title' });

    await put(`/posts/${id}`, { status: 'publish', reading_time: '8 min' });

    const published = await readPost(id, 'published');
    const draft = await readPost(id, 'draft');
    expect(published.title).toMatch(/^Reviewed title/);
    expect(published.readingTime).toBe('8 min');
    expect(draft).toMatchObject({ title: 'Unreviewed title', readingTime: '8 min' });
    expect(isModified(draft, published)).toBe(true);
  });

  test("status draft unpublishes; the draft keeps the editor's changes and gets the sent fields", async () => {
    const id = await publishPost();
    await editorSaves(POST, id, { title: 'Unreviewed title' });

    await put(`/posts/${id}`, { status: 'draft', reading_time: '9 min' });

    expect(await readPost(id, 'published')).toBeNull();
    expect(await readPost(id, 'draft')).toMatchObject({ title: 'Unreviewed title', readingTime: '9 min' });
    expect(await rowCount(POST, id)).toBe(1);
  });

  test('without editor changes a partial PUT still updates the published version, which the draft equals', async () => {
    const id = await publishPost();
    const before = await readPost(id, 'published');

    await put(`/posts/${id}`, { reading_time: '5 min' });

    const published = await readPost(id, 'published');
    const draft = await readPost(id, 'draft');
    expect(published).toMatchObject({ title: before.title, readingTime: '5 min' });
    const comparable = ({ id: _id, publishedAt: _at, categories, tags, author, ...rest }: Entry) => ({
      ...rest,
      categories: names(categories),
      tags: names(tags),
      author: author.displayName,
    });
    expect(comparable(draft)).toEqual(comparable(published));
    expect(isModified(draft, published)).toBe(false);
  });

  test.each([
    ['with an editor draft', 'Unreviewed title'],
    ['without editor changes', undefined],
  ])('concurrent partial PUTs %s all reach both versions', async (_case, editorTitle) => {
    const id = await publishPost();
    if (editorTitle) await editorSaves(POST, id, { title: editorTitle });

    const replies = await Promise.all([
      site.send('PUT', `/posts/${id}`, { reading_time: '5 min' }),
      site.send('PUT', `/posts/${id}`, { excerpt: 'Sent excerpt' }),
      site.send('PUT', `/posts/${id}`, { tags: ['beans'] }),
      site.send('PUT', `/posts/${id}`, { seo: { description: 'Sent SEO description' } }),
    ]);

    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    const published = await readPost(id, 'published');
    const draft = await readPost(id, 'draft');
    const sent = { readingTime: '5 min', excerpt: 'Sent excerpt', seoDescription: 'Sent SEO description' };
    expect(published).toMatchObject({ ...sent, title: expect.stringMatching(/^Reviewed title/) });
    expect(draft).toMatchObject({ ...sent, title: editorTitle ?? published.title });
    expect(names(published.tags)).toEqual(['beans']);
    expect(names(draft.tags)).toEqual(['beans']);
    expect(isModified(draft, published)).toBe(Boolean(editorTitle));
    expect(await rowCount(POST, id)).toBe(2);
  });

  test('a PUT that fails after writing leaves both versions and every table as they were', async () => {
    const id = await publishPost();
    await editorSaves(POST, id, { title: 'Unreviewed title' });
    const read = (status: Status) => documents(POST).findOne({ documentId: id, status, populate: '*' });
    const stateBefore = { draft: await read('draft'), published: await read('published') };
    const tablesBefore = await snapshotTables(site.strapi);

    // The entity response is built last, inside the transaction, after both versions were written.
    const urls = serviceOf(site, 'urls') as Record<string, any>;
    const original = urls.urlFor;
    urls.urlFor = () => {
      throw new Error('forced failure after the entity was written');
    };
    let reply;
    try {
      reply = await site.send('PUT', `/posts/${id}`, { reading_time: '5 min', tags: ['beans'] });
    } finally {
      urls.urlFor = original;
    }

    expect(reply.status).toBe(500);
    expect(serverErrors.some((line) => line.includes('forced failure'))).toBe(true);
    expect({ draft: await read('draft'), published: await read('published') }).toEqual(stateBefore);
    expect(await snapshotTables(site.strapi)).toEqual(tablesBefore);
  });

  describe('products', () => {
    // The description (a richtext attribute) is compared with the HTML sent, not as Markdown.
    beforeAll(() => site.strapi.config.set('plugin::publish-bridge.richtextFormat', 'html'));
    async function publishedProduct(name: string) {
      const product = await documents(PRODUCT).create({
        data: { name, price: 20, sku: `SKU-${name}`, stock: 3, description: 'Reviewed copy', type: 'simple' },
        status: 'published',
      });
      return product.documentId as string;
    }

    test("a partial PUT leaves the editor's unpublished name out of the published product", async () => {
      const id = await publishedProduct('Kettle');
      await editorSaves(PRODUCT, id, { name: 'Unreviewed Kettle', price: 25 });

      await put(`/products/${id}`, { description: '<p>New copy</p>', tags: ['kettles'] });

      const published = await documents(PRODUCT).findOne({
        documentId: id,
        status: 'published',
        populate: ['tags'],
      });
      const draft = await documents(PRODUCT).findOne({ documentId: id, populate: ['tags'] });
      expect(published).toMatchObject({ name: 'Kettle', description: '<p>New copy</p>', sku: 'SKU-Kettle' });
      expect(Number(published.price)).toBe(20);
      expect(draft).toMatchObject({ name: 'Unreviewed Kettle', description: '<p>New copy</p>' });
      expect(Number(draft.price)).toBe(25);
      expect(names(published.tags)).toEqual(['kettles']);
      expect(names(draft.tags)).toEqual(['kettles']);
      expect(isModified(draft, published)).toBe(true);
      expect(await rowCount(PRODUCT, id)).toBe(2);
    });

    // Strapi links a published version to the published versions of related entries that have
    // draft and publish (product categories do), a draft to their drafts.
    test('beside an editor draft, the published product links the published product categories', async () => {
      const id = await publishedProduct('Scale');
      await editorSaves(PRODUCT, id, { name: 'Unreviewed Scale' });

      await put(`/products/${id}`, { categories: ['Scales', 'Tools'] });

      const linked = async (publishedAt: unknown) => {
        const [row] = await queryOf(site.strapi, PRODUCT).findMany({
          where: { documentId: id, publishedAt },
          populate: { categories: { select: ['name', 'publishedAt'] } },
        });
        return (row as Entry).categories.map((category: Entry) => ({
          name: category.name,
          published: category.publishedAt !== null,
        }));
      };
      const byName = (a: Entry, b: Entry) => a.name.localeCompare(b.name);
      expect((await linked({ $notNull: true })).sort(byName)).toEqual([
        { name: 'Scales', published: true },
        { name: 'Tools', published: true },
      ]);
      expect((await linked(null)).sort(byName)).toEqual([
        { name: 'Scales', published: false },
        { name: 'Tools', published: false },
      ]);
      const published = await documents(PRODUCT).findOne({ documentId: id, status: 'published' });
      expect(published.name).toBe('Scale');
    });

    test('without editor changes a partial PUT updates the published product', async () => {
      const id = await publishedProduct('Grinder');

      await put(`/products/${id}`, { description: '<p>New copy</p>' });

      const published = await documents(PRODUCT).findOne({ documentId: id, status: 'published' });
      const draft = await documents(PRODUCT).findOne({ documentId: id });
      expect(published).toMatchObject({ name: 'Grinder', description: '<p>New copy</p>' });
      expect(draft).toMatchObject({ name: 'Grinder', description: '<p>New copy</p>' });
      expect(isModified(draft, published)).toBe(false);
    });
  });
});

/**
 * The site's own Story type: a cover (media), an author (relation) and the `blocks` dynamic zone
 * of components, which must all survive on both versions.
 */
describe(`editor drafts on ${db}, the site's Story type with media and a dynamic zone`, () => {
  let site: Site;
  let images: ImageServer;
  let stopSite: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({
      site,
      images,
      stop: stopSite,
    } = await startSiteWithImages({ PUBLISH_BRIDGE_CONTENT_TYPES: 'template' }));
  });
  afterAll(() => stopSite?.());

  const POPULATE = {
    cover: true,
    author: true,
    blocks: {
      on: { 'shared.media': { populate: ['file'] }, 'shared.rich-text': true, 'shared.quote': true },
    },
  };
  const stories = () => documentsOf(site.strapi, storageOf(site.strapi, 'post').uid);
  const read = (documentId: string, status: Status): Promise<Entry> =>
    stories().findOne({ documentId, status, populate: POPULATE });
  /** A zone's components without their ids, which every publish renews. */
  const zone = (entry: Entry) =>
    entry.blocks.map(({ id: _id, file, ...component }: Entry) => ({
      ...component,
      ...(file ? { file: file.id } : {}),
    }));

  test("the published story keeps its cover, author and zone; the editor's draft keeps theirs", async () => {
    const created = await site.send('POST', '/posts', {
      title: 'Brew guide',
      content: [
        '<p>Grind fresh.</p>',
        `<figure><img src="${images.url('/images/kettle.png')}" alt="A kettle"></figure>`,
        '<blockquote><p>Coffee is a hug.</p></blockquote>',
      ].join('\n'),
      excerpt: 'A short brew guide.',
      author: 'Ada Brewer',
      featured_image: images.url('/images/cover.png'),
      status: 'publish',
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    const before = await read(id, 'published');
    expect(before.cover).not.toBeNull();
    expect(zone(before).map((component: Entry) => component.__component)).toEqual([
      'shared.rich-text',
      'shared.media',
      'shared.quote',
    ]);

    const draftBefore = await read(id, 'draft');
    await stories().update({
      documentId: id,
      data: {
        title: 'Unreviewed brew guide',
        cover: null,
        blocks: [
          ...draftBefore.blocks.map(({ __component, id: componentId }: Entry) => ({
            __component,
            id: componentId,
          })),
          { __component: 'shared.rich-text', body: '<p>Added by the editor.</p>' },
        ],
      },
    });
    const edited = await read(id, 'draft');
    expect(zone(edited)).toEqual([
      ...zone(before),
      { __component: 'shared.rich-text', body: '<p>Added by the editor.</p>' },
    ]);

    await put(id, { excerpt: 'A new description.' });

    const published = await read(id, 'published');
    expect(published).toMatchObject({ title: 'Brew guide', description: 'A new description.' });
    expect(published.cover?.id).toBe(before.cover.id);
    expect(published.author?.documentId).toBe(before.author.documentId);
    expect(zone(published)).toEqual(zone(before));

    const draft = await read(id, 'draft');
    expect(draft).toMatchObject({
      title: 'Unreviewed brew guide',
      description: 'A new description.',
      cover: null,
    });
    expect(draft.author?.documentId).toBe(before.author.documentId);
    expect(zone(draft)).toEqual(zone(edited));
    expect(isModified(draft, published)).toBe(true);
    expect(
      await queryOf(site.strapi, storageOf(site.strapi, 'post').uid).count({ where: { documentId: id } })
    ).toBe(2);
  });

  async function put(id: string, body: Record<string, unknown>) {
    const reply = await site.send('PUT', `/posts/${id}`, body);
    expect(reply.status).toBe(200);
  }
});
