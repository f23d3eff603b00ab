import { captureServerErrors, documentsOf, UIDS } from '../helpers/inspect';
import { useSite } from '../helpers/site';

const POST = UIDS.post;
/** A family emoji: four emoji joined by three zero-width joiners, 11 UTF-16 code units. */
const FAMILY = '👩‍👩‍👧‍👦';

describe('Unicode in contract bodies', () => {
  let serverErrors: string[];

  const site = useSite();
  beforeAll(async () => {
    serverErrors = captureServerErrors(site.strapi);
  });
  afterEach(() => {
    expect(serverErrors).toEqual([]);
  });

  it('publishes a title of emoji sequences longer than its column, cut before the first sequence that does not fit', async () => {
    // 1 + 30 × 11 code units; the 255-unit column ends one unit into the 24th family's first emoji.
    const title = `a${FAMILY.repeat(30)}`;
    const reply = await site.send('POST', '/posts', { title, content: '<p>Body.</p>', status: 'publish' });
    expect(reply).toMatchObject({ status: 200 });
    for (const status of ['draft', 'published'] as const) {
      const stored = await documentsOf(site.strapi, POST).findOne({ documentId: reply.body.id, status });
      expect((stored as { title?: string } | null)?.title).toBe(`a${FAMILY.repeat(23)}`);
    }
  });

  it('refuses a title whose first character alone is longer than its column, instead of storing an empty title', async () => {
    // One grapheme: an "e" with 300 combining accents, 301 UTF-16 units over the 255-unit column.
    const title = `e${'\u0301'.repeat(300)}`;
    const before = await documentsOf(site.strapi, POST).count({});
    const reply = await site.send('POST', '/posts', { title, content: '<p>Body.</p>', status: 'publish' });
    expect([reply.status, reply.body.error]).toEqual([
      400,
      expect.stringMatching(/^Invalid request: title: /),
    ]);
    expect(await documentsOf(site.strapi, POST).count({})).toBe(before);

    // An update too: the post keeps the title it has.
    const created = await site.send('POST', '/posts', {
      title: 'Kept',
      content: '<p>Body.</p>',
      status: 'draft',
    });
    expect([created.status, created.body.error]).toEqual([200, undefined]);
    const update = await site.send('PUT', `/posts/${created.body.id}`, { title });
    expect([update.status, update.body.error]).toEqual([
      400,
      expect.stringMatching(/^Invalid request: title: /),
    ]);
    const stored = await documentsOf(site.strapi, POST).findOne({ documentId: created.body.id });
    expect((stored as { title?: string } | null)?.title).toBe('Kept');
  });

  it('refuses a lone surrogate with a 400 naming the field, and stores nothing', async () => {
    const before = await documentsOf(site.strapi, POST).count({});
    const reply = await site.send('POST', '/posts', {
      title: 'Half an emoji \uD83D',
      content: '<p>Body.</p>',
      status: 'publish',
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: expect.stringMatching(/^Invalid request: title .*surrogate/) });
    const update = await site.send('PUT', '/posts/none', { seo: { description: 'cut \uDE00 here' } });
    expect(update.status).toBe(400);
    expect(update.body.error).toMatch(/^Invalid request: seo\.description /);
    expect(await documentsOf(site.strapi, POST).count({})).toBe(before);
  });
});
