import { randomBytes } from 'node:crypto';
import { type Site, useSite } from '../helpers/site';
import { fullPost } from '../helpers/fixtures';
import { testDatabaseClient } from '../helpers/databases';
import {
  captureServerErrors,
  documentsOf,
  rowsNamed,
  rowsOf,
  snapshotTables,
  storageOf,
} from '../helpers/inspect';

/**
 * A request either happens completely or not at all: failures are forced inside the running
 * site (the plugin's own services are wrapped for one request) and the database is compared
 * row by row with what it held before.
 */
const db = testDatabaseClient();
const PLUGIN = 'publish-bridge';

const unique = () => randomBytes(4).toString('hex');

/** Replaces `method` of a plugin service while `body` runs, then puts the original back. */
async function whileReplaced<T>(
  site: Site,
  serviceName: string,
  method: string,
  replacement: (original: (...args: any[]) => any) => (...args: any[]) => any,
  body: () => Promise<T>
): Promise<T> {
  const target = site.strapi.plugin(PLUGIN).service(serviceName) as Record<string, any>;
  const original = target[method];
  target[method] = replacement(original.bind(target));
  try {
    return await body();
  } finally {
    target[method] = original;
  }
}

/** The taxonomy step creates the second new name it is asked for, then fails. */
const failingOnSecondName = (original: (...args: any[]) => any) => {
  let calls = 0;
  return async (...args: any[]) => {
    calls += 1;
    const result = await original(...args);
    if (calls === 2) throw new Error(`forced failure after creating "${args[2]}"`);
    return result;
  };
};

const failingAlways = () => () => {
  throw new Error('forced failure after the entity was written');
};

// The names carry the run: each create makes categories, tags and an author of its own, whose rows a
// failed write must take back.
const atomicPost = (run: string) =>
  fullPost({
    title: `Atomic ${run}`,
    categories: [`Original One ${run}`, `Original Two ${run}`],
    tags: [`Original Tag ${run}`],
    author: `Original Author ${run}`,
    source_id: `atomic-${run}`,
  });

describe.each(['site', 'plugin'])(`atomicity on ${db}, %s content types`, (contentTypes) => {
  let serverErrors: string[];
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: contentTypes });
  beforeAll(async () => {
    serverErrors = captureServerErrors(site.strapi, { quiet: true });
  });
  beforeEach(() => {
    serverErrors.length = 0;
  });

  /** A 500 whose body names the request id and hides the cause, which goes to the log. */
  function expectInternalError(reply: { status: number; body: any; headers: Headers }) {
    expect(reply.status).toBe(500);
    expect(reply.body).toEqual({ error: expect.stringMatching(/internal error.*request id/) });
    expect(reply.body.error).not.toMatch(/forced failure/);
    const requestId = reply.headers.get('x-request-id');
    expect(reply.body.error).toContain(requestId);
    expect(
      serverErrors.filter((line) => line.includes(requestId!) && line.includes('forced failure'))
    ).toHaveLength(1);
  }

  /** Both versions of a post with every attribute, relations, components and media included. */
  async function postState(documentId: string) {
    const read = (status: 'draft' | 'published') =>
      documentsOf(site.strapi, storageOf(site.strapi, 'post').uid).findOne({
        documentId,
        status,
        populate: '*',
      });
    return { draft: await read('draft'), published: await read('published') };
  }

  test('a publish whose relation step fails leaves no post, no identity and no orphan category', async () => {
    const run = unique();
    const categories = [`Alpha ${run}`, `Beta ${run}`];
    const body = {
      title: `Half done ${run}`,
      content: '<p>never stored</p>',
      status: 'publish',
      source_id: `half-${run}`,
      categories,
      tags: [`Gamma ${run}`],
      author: `Delta ${run}`,
    };
    const before = await snapshotTables(site.strapi);

    const reply = await whileReplaced(site, 'taxonomy', 'createNamed', failingOnSecondName, () =>
      site.send('POST', '/posts', body)
    );

    expectInternalError(reply);
    expect(await snapshotTables(site.strapi)).toEqual(before);
    // The same facts, spelled out: the snapshot comparison above already implies them.
    const post = storageOf(site.strapi, 'post');
    const category = storageOf(site.strapi, 'blogCategory');
    const posts = await rowsOf(site.strapi, post.uid);
    expect(posts.filter((row) => row[post.attribute('source_id')] === body.source_id)).toEqual([]);
    expect(await rowsNamed(site.strapi, category.uid, category.nameField, categories[0])).toEqual([]);
    expect(await rowsNamed(site.strapi, category.uid, category.nameField, categories[1])).toEqual([]);

    // Nothing is left half-claimed: the same publish goes through once the fault is gone.
    const retry = await site.send('POST', '/posts', body);
    expect(retry.status).toBe(200);
    const state: any = await postState(retry.body.id);
    expect(
      state.published[post.attribute('categories')].map((entry: any) => entry[category.nameField]).sort()
    ).toEqual(categories);
    expect(await rowsNamed(site.strapi, category.uid, category.nameField, categories[1])).toHaveLength(1);
  });

  test('a PUT whose relation step fails leaves the post exactly as it was', async () => {
    const run = unique();
    const created = await site.send('POST', '/posts', atomicPost(run));
    expect(created.status).toBe(200);
    const id = created.body.id;
    const stateBefore = await postState(id);
    const before = await snapshotTables(site.strapi);

    const reply = await whileReplaced(site, 'taxonomy', 'createNamed', failingOnSecondName, () =>
      site.send('PUT', `/posts/${id}`, {
        title: `Changed ${run}`,
        content: '<p>changed</p>',
        excerpt: 'changed',
        status: 'draft',
        categories: [`New One ${run}`, `New Two ${run}`],
        tags: [`New Tag ${run}`],
        author: `New Author ${run}`,
        seo: { title: 'changed' },
      })
    );

    expectInternalError(reply);
    expect(await postState(id)).toEqual(stateBefore);
    expect(await snapshotTables(site.strapi)).toEqual(before);
  });

  test.each([
    ['every field', (run: string) => ({ ...atomicPost(`changed-${run}`), status: 'draft' })],
    ['content and source_id only', (run: string) => ({ content: '<p>new</p>', source_id: `atomic-${run}` })],
    ['status only (unpublish)', () => ({ status: 'draft' })],
  ])('a PUT of %s that fails after writing leaves the post exactly as it was', async (_shape, makeBody) => {
    const run = unique();
    const created = await site.send('POST', '/posts', atomicPost(run));
    expect(created.status).toBe(200);
    const id = created.body.id;
    const stateBefore = await postState(id);
    const before = await snapshotTables(site.strapi);

    // The entity response is built last, inside the transaction, after the post was written.
    const reply = await whileReplaced(site, 'urls', 'urlFor', failingAlways, () =>
      site.send('PUT', `/posts/${id}`, makeBody(run))
    );

    expectInternalError(reply);
    expect(await postState(id)).toEqual(stateBefore);
    expect(await snapshotTables(site.strapi)).toEqual(before);
  });

  test('a create that fails after writing the post leaves nothing behind', async () => {
    const run = unique();
    const before = await snapshotTables(site.strapi);
    const reply = await whileReplaced(site, 'urls', 'urlFor', failingAlways, () =>
      site.send('POST', '/posts', atomicPost(run))
    );
    expectInternalError(reply);
    expect(await snapshotTables(site.strapi)).toEqual(before);
  });
});
