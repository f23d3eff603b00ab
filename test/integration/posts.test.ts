import { useSite } from '../helpers/site';
import { fullPost } from '../helpers/fixtures';
import { documentsOf, latestActivityNotes, UIDS } from '../helpers/inspect';

const POST = UIDS.post;
const CATEGORY = UIDS.blogCategory;
const TAG = UIDS.tag;
const AUTHOR = UIDS.author;

type StoredPost = Record<string, any>;

/** Every contract field of a stored post, as the Document Service returns it, in comparable form. */
function fieldsOf(post: StoredPost) {
  return {
    title: post.title,
    slug: post.slug,
    content: post.content,
    excerpt: post.excerpt,
    publishDate: post.publishDate ? new Date(post.publishDate).toISOString() : post.publishDate,
    featuredImage: post.featuredImage,
    readingTime: post.readingTime,
    seoTitle: post.seoTitle,
    seoDescription: post.seoDescription,
    seoKeywords: post.seoKeywords,
    seoCanonicalUrl: post.seoCanonicalUrl,
    sourceId: post.sourceId,
    categories: post.categories.map((category: StoredPost) => category.name),
    categoryIds: post.categories.map((category: StoredPost) => category.documentId),
    tags: post.tags.map((tag: StoredPost) => tag.name),
    tagIds: post.tags.map((tag: StoredPost) => tag.documentId),
    author: post.author?.displayName ?? null,
    authorId: post.author?.documentId ?? null,
  };
}

// Every value spelled out: the tests below compare the stored post with each of them.
const FULL_POST = fullPost({
  title: 'A complete post',
  content: '<p>First version of the body.</p>',
  excerpt: 'The first excerpt',
  status: 'publish',
  date: '2026-03-01 09:30:00',
  categories: ['Marketing', 'SEO Basics'],
  tags: ['keywords', 'On-Page'],
  author: 'Jane Writer',
  featured_image: 'https://cdn.publisher.example/images/first.png',
  reading_time: '7',
  seo: { title: 'SEO title one', description: 'SEO description one', keywords: ['alpha', 'beta'] },
  source_id: 'src-full-1',
});

describe('posts', () => {
  let sourceCounter = 0;
  const uniqueSource = () => `src-${Date.now()}-${(sourceCounter += 1)}`;

  const site = useSite();
  beforeAll(async () => {
    // These tests compare the stored body with the HTML sent: the plugin's post keeps it in a
    // richtext attribute, Markdown unless the site says HTML (richtext.test.ts).
    site.strapi.config.set('plugin::publish-bridge.richtextFormat', 'html');
  });

  const documents = (uid: string) => documentsOf(site.strapi, uid);
  const read = (documentId: string, status: 'draft' | 'published' = 'draft'): Promise<StoredPost | null> =>
    documents(POST).findOne({ documentId, status, populate: ['categories', 'tags', 'author'] });
  const readFields = async (documentId: string, status: 'draft' | 'published' = 'draft') => {
    const post = await read(documentId, status);
    if (!post) throw new Error(`post ${documentId} has no ${status} version`);
    return fieldsOf(post);
  };
  const countWhereNameIs = (uid: string, field: string, name: string) =>
    documents(uid).count({ filters: { [field]: { $eqi: name } } });

  async function create(body: Record<string, unknown>): Promise<string> {
    const reply = await site.send('POST', '/posts', body);
    expect(reply.status).toBe(200);
    return reply.body.id;
  }

  async function put(id: string, body: Record<string, unknown>) {
    const reply = await site.send('PUT', `/posts/${id}`, body);
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(id);
    return reply;
  }

  describe('POST /posts', () => {
    it('returns { id, url } with the documentId as id', async () => {
      const reply = await site.send('POST', '/posts', {
        ...FULL_POST,
        title: 'Entity response',
        source_id: uniqueSource(),
      });
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body).sort()).toEqual(['id', 'url']);
      expect(typeof reply.body.id).toBe('string');
      expect(reply.body.id.length).toBeGreaterThan(0);
      expect(reply.body.id.length).toBeLessThanOrEqual(191);
      const stored = await read(reply.body.id);
      expect(stored?.documentId).toBe(reply.body.id);
      expect(reply.body.url).toBe(`http://localhost:3000/blog/${stored?.slug}`);
    });

    it('stores every field as sent, with a published version for status publish', async () => {
      const id = await create(FULL_POST);
      const stored = await readFields(id);
      expect(stored).toMatchObject({
        title: 'A complete post',
        slug: 'a-complete-post',
        content: '<p>First version of the body.</p>',
        excerpt: 'The first excerpt',
        publishDate: '2026-03-01T09:30:00.000Z',
        featuredImage: 'https://cdn.publisher.example/images/first.png',
        readingTime: '7',
        seoTitle: 'SEO title one',
        seoDescription: 'SEO description one',
        seoKeywords: ['alpha', 'beta'],
        sourceId: 'src-full-1',
        categories: ['Marketing', 'SEO Basics'],
        tags: ['keywords', 'On-Page'],
        author: 'Jane Writer',
      });
      expect(await readFields(id, 'published')).toEqual(stored);
    });

    it('creates a draft with no published version for status draft', async () => {
      const id = await create({ title: 'Only a draft', content: '<p>d</p>', status: 'draft' });
      expect((await read(id))?.title).toBe('Only a draft');
      expect(await read(id, 'published')).toBeNull();
    });

    it('stores the contract date as that UTC instant', async () => {
      const id = await create({ title: 'Dated', content: 'c', status: 'draft', date: '2026-12-31 23:59:58' });
      expect((await readFields(id)).publishDate).toBe('2026-12-31T23:59:58.000Z');
    });

    it('gives posts with the same title different slugs', async () => {
      const first = await create({ title: 'Same Title', content: 'a', status: 'publish' });
      const second = await create({ title: 'Same Title', content: 'b', status: 'publish' });
      const [a, b] = [await read(first), await read(second)];
      expect(a?.slug).toBe('same-title');
      expect(b?.slug).not.toBe(a?.slug);
      expect(b?.slug).toMatch(/^same-title-/);
    });

    it('cuts a 300-character title to the 255 characters its column holds, and stores the post', async () => {
      const id = await create({ title: 'T'.repeat(300), content: 'c', status: 'publish' });
      expect((await read(id))?.title).toBe('T'.repeat(255));
    });

    it('refuses an unknown status and a wrong date with 400 naming the field', async () => {
      const status = await site.send('POST', '/posts', { title: 't', content: 'c', status: 'published' });
      expect(status.status).toBe(400);
      expect(status.body.error).toContain('status');
      const date = await site.send('POST', '/posts', {
        title: 't',
        content: 'c',
        status: 'draft',
        date: '2026-02-30 10:00:00',
      });
      expect(date.status).toBe(400);
      expect(date.body.error).toContain('date');
    });
  });

  describe('categories, tags and authors by name', () => {
    it('creates missing ones and reuses existing ones whatever the case', async () => {
      const first = await create({
        title: 'Taxonomy one',
        content: 'c',
        status: 'publish',
        categories: ['Growth Hacking', 'Email'],
        tags: ['Newsletter'],
        author: 'Pat Author',
      });
      const second = await create({
        title: 'Taxonomy two',
        content: 'c',
        status: 'publish',
        categories: ['growth hacking', 'EMAIL', 'Brand New'],
        tags: ['NEWSLETTER', 'newsletter'],
        author: 'pat author',
      });
      const [a, b] = [await readFields(first), await readFields(second)];
      expect(b.categoryIds.slice(0, 2)).toEqual(a.categoryIds);
      expect(b.categories).toEqual(['Growth Hacking', 'Email', 'Brand New']);
      expect(b.tagIds).toEqual(a.tagIds);
      expect(b.authorId).toBe(a.authorId);
      expect(b.author).toBe('Pat Author');
      expect(await countWhereNameIs(CATEGORY, 'name', 'growth hacking')).toBe(1);
      expect(await countWhereNameIs(CATEGORY, 'name', 'email')).toBe(1);
      expect(await countWhereNameIs(TAG, 'name', 'newsletter')).toBe(1);
      expect(await countWhereNameIs(AUTHOR, 'displayName', 'pat author')).toBe(1);
    });

    it('keeps the order in which categories and tags were sent', async () => {
      const id = await create({
        title: 'Ordered',
        content: 'c',
        status: 'draft',
        categories: ['Zulu', 'Alpha', 'Mike'],
        tags: ['z-tag', 'a-tag', 'm-tag'],
      });
      const stored = await readFields(id);
      expect(stored.categories).toEqual(['Zulu', 'Alpha', 'Mike']);
      expect(stored.tags).toEqual(['z-tag', 'a-tag', 'm-tag']);
    });
  });

  describe('idempotency by source_id', () => {
    it('answers a republish with the same id and applies the body as an update', async () => {
      const source = uniqueSource();
      const id = await create({
        title: 'Original',
        content: '<p>v1</p>',
        status: 'draft',
        source_id: source,
      });
      const again = await site.send('POST', '/posts', {
        title: 'Republished',
        content: '<p>v2</p>',
        status: 'publish',
        source_id: source,
      });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(id);
      expect(await documents(POST).count({ filters: { sourceId: source } })).toBe(1);
      expect((await readFields(id, 'published')).title).toBe('Republished');
      expect((await readFields(id)).content).toBe('<p>v2</p>');
    });

    it('never duplicates a post under concurrent publishes of the same source_id', async () => {
      const source = uniqueSource();
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, index) =>
          site.send('POST', '/posts', {
            title: `Race ${index}`,
            content: 'c',
            status: 'publish',
            source_id: source,
          })
        )
      );
      expect(replies.map((reply) => reply.status)).toEqual(Array(8).fill(200));
      expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(1);
      expect(await documents(POST).count({ filters: { sourceId: source } })).toBe(1);
    });

    it('creates a new post when the linked one was deleted in Strapi, without resurrecting it', async () => {
      const source = uniqueSource();
      const id = await create({
        title: 'Will be deleted',
        content: 'c',
        status: 'publish',
        source_id: source,
      });
      await documents(POST).delete({ documentId: id });
      const reply = await site.send('POST', '/posts', {
        title: 'Recreated',
        content: 'c2',
        status: 'publish',
        source_id: source,
      });
      expect(reply.status).toBe(200);
      expect(reply.body.id).not.toBe(id);
      expect(await read(id)).toBeNull();
      expect((await readFields(reply.body.id, 'published')).title).toBe('Recreated');
      const third = await site.send('POST', '/posts', {
        title: 'Again',
        content: 'c3',
        status: 'publish',
        source_id: source,
      });
      expect(third.body.id).toBe(reply.body.id);
    });

    it("refuses with 409 a PUT that gives a post another post's source_id, and changes nothing", async () => {
      const holderSource = uniqueSource();
      const holder = await create({
        title: 'Holder',
        content: 'c',
        status: 'publish',
        source_id: holderSource,
      });
      const other = await create({
        title: 'Other',
        content: 'c',
        status: 'publish',
        source_id: uniqueSource(),
      });
      const before = await readFields(other);

      const reply = await site.send('PUT', `/posts/${other}`, {
        title: 'Taken over',
        source_id: holderSource,
      });
      expect(reply.status).toBe(409);
      expect(reply.body.error).toContain(holder);
      expect(await readFields(other)).toEqual(before);
      expect(await documents(POST).count({ filters: { sourceId: holderSource } })).toBe(1);
      const republished = await site.send('POST', '/posts', {
        title: 'Republished',
        content: 'c',
        status: 'publish',
        source_id: holderSource,
      });
      expect(republished.body.id).toBe(holder);
    });

    it('lets a PUT give a post a new source_id, or the one it holds, and a republish of it updates that post', async () => {
      const own = uniqueSource();
      const id = await create({ title: 'Moving', content: 'c', status: 'publish', source_id: own });
      await put(id, { source_id: own });
      const fresh = uniqueSource();
      await put(id, { source_id: fresh });
      const republished = await site.send('POST', '/posts', {
        title: 'Moved',
        content: 'c',
        status: 'publish',
        source_id: fresh,
      });
      expect(republished.body.id).toBe(id);
    });
  });

  describe('PUT /posts/{id}', () => {
    let id: string;
    let original: ReturnType<typeof fieldsOf>;

    beforeEach(async () => {
      id = await create({ ...FULL_POST, source_id: uniqueSource() });
      original = await readFields(id);
    });

    it('shape 1, every field: changes each of them', async () => {
      const reply = await put(id, {
        title: 'Second title',
        content: '<p>Second body</p>',
        excerpt: 'Second excerpt',
        status: 'publish',
        date: '2026-04-02 18:45:10',
        categories: ['SEO Basics', 'Analytics', 'marketing'],
        tags: ['on-page'],
        author: 'Second Author',
        featured_image: 'https://cdn.publisher.example/images/second.png',
        reading_time: '12',
        seo: { title: 'SEO title two', description: 'SEO description two', keywords: ['gamma'] },
        source_id: original.sourceId,
      });
      expect(reply.body.url).toMatch(/^http:\/\/localhost:3000\/blog\//);
      const stored = await readFields(id);
      expect(stored).toEqual({
        ...original,
        title: 'Second title',
        content: '<p>Second body</p>',
        excerpt: 'Second excerpt',
        publishDate: '2026-04-02T18:45:10.000Z',
        categories: ['SEO Basics', 'Analytics', 'Marketing'],
        categoryIds: [original.categoryIds[1], expect.any(String), original.categoryIds[0]],
        tags: ['On-Page'],
        tagIds: [original.tagIds[1]],
        author: 'Second Author',
        authorId: expect.any(String),
        featuredImage: 'https://cdn.publisher.example/images/second.png',
        readingTime: '12',
        seoTitle: 'SEO title two',
        seoDescription: 'SEO description two',
        seoKeywords: ['gamma'],
      });
      expect(stored.authorId).not.toBe(original.authorId);
      expect(await readFields(id, 'published')).toEqual(stored);
    });

    it('shape 2, content and source_id only: every other field stays as it was', async () => {
      await put(id, { content: '<p>Only the body changed</p>', source_id: original.sourceId });
      const expected = { ...original, content: '<p>Only the body changed</p>' };
      expect(await readFields(id)).toEqual(expected);
      expect(await readFields(id, 'published')).toEqual(expected);
    });

    it('shape 3, status only: unpublishes and republishes without touching a field', async () => {
      await put(id, { status: 'draft' });
      expect(await readFields(id)).toEqual(original);
      expect(await read(id, 'published')).toBeNull();

      await put(id, { status: 'draft' });
      expect(await read(id, 'published')).toBeNull();

      await put(id, { status: 'publish' });
      expect(await readFields(id)).toEqual(original);
      expect(await readFields(id, 'published')).toEqual(original);
    });

    it('updates a draft in place without publishing it', async () => {
      await put(id, { status: 'draft' });
      await put(id, { content: '<p>edited while draft</p>', source_id: original.sourceId });
      expect(await read(id, 'published')).toBeNull();
      expect((await readFields(id)).content).toBe('<p>edited while draft</p>');
    });

    it('publishes with the update when status publish comes with other fields', async () => {
      await put(id, { status: 'draft' });
      await put(id, { title: 'Back online', status: 'publish' });
      expect(await readFields(id, 'published')).toEqual({ ...original, title: 'Back online' });
    });

    it('merges seo: only the description sent keeps the title and keywords', async () => {
      await put(id, { seo: { description: 'Only the description' } });
      expect(await readFields(id)).toEqual({ ...original, seoDescription: 'Only the description' });
      await put(id, { seo: { keywords: ['only', 'keywords'] } });
      expect(await readFields(id)).toEqual({
        ...original,
        seoDescription: 'Only the description',
        seoKeywords: ['only', 'keywords'],
      });
    });

    it('stores seo.canonical_url whole, keeps it through other seo parts, and leaves out one that is no http(s) URL', async () => {
      const canonical = `https://publisher.example/${'a-long-canonical-path/'.repeat(14)}`;
      await put(id, { seo: { canonical_url: canonical } });
      await put(id, { seo: { title: 'Another SEO title' } });
      expect(await readFields(id)).toEqual({
        ...original,
        seoTitle: 'Another SEO title',
        seoCanonicalUrl: canonical,
      });

      // An seo part never costs the post: the rest of the update is stored, the URL left out.
      for (const notUrl of ['javascript:alert(1)', 'https://"><svg/onload=alert(1)>', '/relative/path']) {
        await put(id, { title: `Title for ${notUrl}`, seo: { canonical_url: notUrl } });
        expect(await latestActivityNotes(site.strapi)).toContain(
          'seo.canonical_url was not stored: it is not an absolute http(s) URL.'
        );
        expect(await readFields(id)).toMatchObject({
          title: `Title for ${notUrl}`,
          seoCanonicalUrl: canonical,
        });
      }
    });

    it('reads null fields and an empty body as "nothing to change"', async () => {
      await put(id, {});
      await put(id, { title: null, categories: null, seo: null, author: null, excerpt: null });
      expect(await readFields(id)).toEqual(original);
    });

    it('answers 404 { error } for an unknown id and writes nothing', async () => {
      const before = await documents(POST).count({});
      for (const unknown of ['doesnotexist0000000000000', 'x'.repeat(191)]) {
        const reply = await site.send('PUT', `/posts/${unknown}`, {
          title: 'Ghost',
          content: 'c',
          status: 'publish',
        });
        expect(reply.status).toBe(404);
        expect(Object.keys(reply.body)).toEqual(['error']);
        expect(reply.body.error).toContain(unknown);
      }
      expect(await documents(POST).count({})).toBe(before);
    });

    it('refuses an invalid update with 400 and leaves the post as it was', async () => {
      const reply = await site.send('PUT', `/posts/${id}`, { source_id: 's'.repeat(192), content: 'new' });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatch(/source_id/);
      expect(await readFields(id)).toEqual(original);
    });
  });
});

describe('posts on a site configured for Europe/Paris', () => {
  const site = useSite({ PUBLISH_BRIDGE_TIMEZONE: 'Europe/Paris' });

  it.each([
    ['summer (UTC+2)', '2026-07-14 10:00:00', '2026-07-14T08:00:00.000Z'],
    ['winter (UTC+1)', '2026-01-14 10:00:00', '2026-01-14T09:00:00.000Z'],
  ])('stores a %s date as the matching UTC instant', async (_season, date, instant) => {
    const reply = await site.send('POST', '/posts', {
      title: `Paris ${date}`,
      content: 'c',
      status: 'draft',
      date,
    });
    expect(reply.status).toBe(200);
    const post = await documentsOf(site.strapi, POST).findOne({ documentId: reply.body.id });
    expect(new Date(post.publishDate).toISOString()).toBe(instant);
  });
});
