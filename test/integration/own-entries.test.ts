import { type Site, useSite } from '../helpers/site';
import { documentsOf, queryOf, UIDS } from '../helpers/inspect';

/**
 * The publisher updates and deletes only what the plugin created (issue 15): an article or a
 * category an editor wrote in the site's own types is not the platform's, whatever id it sends.
 */
const ARTICLE = 'api::article.article';
const CATEGORY = 'api::category.category';
const IDENTITY = UIDS.identity;

const documents = (site: Site, uid: string) => documentsOf(site.strapi, uid);

/** What an editor makes in the Content Manager: written through the Document Service, not the plugin. */
async function editorsArticle(site: Site, title: string) {
  return documents(site, ARTICLE).create({
    data: { title, slug: title.toLowerCase().replace(/\W+/g, '-'), description: 'Written by hand.' },
    status: 'published',
  });
}

const editorsCategory = (site: Site, name: string) =>
  documents(site, CATEGORY).create({ data: { name, slug: name.toLowerCase().replace(/\W+/g, '-') } });

/** The refusal of an entry that exists but that the plugin did not create (issue 40). */
const notThePlatforms = (label: string, id: string) =>
  `The ${label} with id "${id}" exists on this site but was not created by the publishing platform (an editor made it in Strapi), so the site leaves it alone. To let the platform update or delete it, the site's administrator can set adoptExistingEntries: true in the plugin's configuration, and turn it off again once the platform has updated it.`;

const registryRowsFor = (site: Site, target: string) =>
  queryOf(site.strapi, IDENTITY).findMany({ where: { target } });

describe('without adoptExistingEntries', () => {
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'site' });

  test("PUT and DELETE of an editor's article answer 404 saying it is not the platform's, and change nothing", async () => {
    const article = await editorsArticle(site, 'Hand written');
    const before = await documents(site, ARTICLE).findOne({
      documentId: article.documentId,
      status: 'published',
    });

    const put = await site.send('PUT', `/posts/${article.documentId}`, {
      title: 'Taken over',
      status: 'draft',
    });
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ error: notThePlatforms('post', article.documentId) });
    // An id that names nothing still says so, in other words (issue 40).
    const unknown = await site.send('PUT', '/posts/nosuchpost', { title: 'Taken over' });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/^No post with id "nosuchpost" exists on this site/);

    const deleted = await site.send('DELETE', `/posts/${article.documentId}`);
    expect(deleted.status).toBe(404);
    expect(deleted.body).toEqual({ error: notThePlatforms('post', article.documentId) });

    expect(
      await documents(site, ARTICLE).findOne({ documentId: article.documentId, status: 'published' })
    ).toEqual(before);
    expect(await registryRowsFor(site, article.documentId)).toEqual([]);
  });

  test("DELETE of an editor's blog category answers 404 and the category stays", async () => {
    const category = await editorsCategory(site, 'Hand made');
    const reply = await site.send('DELETE', `/blog-categories/${category.documentId}`);
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: notThePlatforms('blog category', category.documentId) });
    expect(await documents(site, CATEGORY).findOne({ documentId: category.documentId })).toMatchObject({
      name: 'Hand made',
    });
  });

  test("an editor's blog category the publisher named (alone or in a post) is found, and still not deleted", async () => {
    const named = await editorsCategory(site, 'Editor named');
    const inPost = await editorsCategory(site, 'Editor in post');
    const found = await site.send('POST', '/blog-categories', { name: 'Editor named' });
    expect(found.body.id).toBe(named.documentId);
    const post = await site.send('POST', '/posts', {
      title: 'Names an editor category',
      content: '<p>x</p>',
      status: 'publish',
      categories: ['Editor in post'],
    });
    expect(post.status).toBe(200);

    for (const category of [named, inPost]) {
      const reply = await site.send('DELETE', `/blog-categories/${category.documentId}`);
      expect(reply.status).toBe(404);
      expect(await documents(site, CATEGORY).findOne({ documentId: category.documentId })).not.toBeNull();
    }
    // Still found by name: the next publish relates to it again.
    expect((await site.send('POST', '/blog-categories', { name: 'Editor named' })).body.id).toBe(
      named.documentId
    );
  });

  test('what the plugin created is still updated and deleted', async () => {
    const post = await site.send('POST', '/posts', { title: 'Ours', content: '<p>x</p>', status: 'publish' });
    expect((await site.send('PUT', `/posts/${post.body.id}`, { title: 'Ours, renamed' })).status).toBe(200);
    expect((await site.send('DELETE', `/posts/${post.body.id}`)).status).toBe(200);
    const category = await site.send('POST', '/blog-categories', { name: 'Ours too' });
    expect((await site.send('DELETE', `/blog-categories/${category.body.id}`)).status).toBe(200);
  });

  test("an author sent without username or email is recorded as the plugin's all the same", async () => {
    const reply = await site.send('POST', '/authors', { display_name: 'Nameless Writer' });
    expect(reply.status).toBe(200);
    expect(await registryRowsFor(site, reply.body.id)).toEqual([
      expect.objectContaining({ resource: 'author', naturalKey: `document:${reply.body.id}` }),
    ]);
  });

  test("GET /pages still lists the editor's published article", async () => {
    const article = await editorsArticle(site, 'Listed by hand');
    const items = (await site.send('GET', '/pages?per_page=250')).body as Array<{ id: string }>;
    expect(items.map((item) => item.id)).toContain(article.documentId);
  });
});

describe('with adoptExistingEntries on', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONTENT_TYPES: 'site',
    PUBLISH_BRIDGE_ADOPT_EXISTING_ENTRIES: 'true',
  });

  test("an editor's article is updated, and from then on it is known as the plugin's", async () => {
    const article = await editorsArticle(site, 'Adopted');
    const reply = await site.send('PUT', `/posts/${article.documentId}`, { title: 'Adopted, renamed' });
    expect(reply.status).toBe(200);
    expect(reply.body.id).toBe(article.documentId);
    expect(
      await documents(site, ARTICLE).findOne({ documentId: article.documentId, status: 'published' })
    ).toMatchObject({ title: 'Adopted, renamed', description: 'Written by hand.' });
    expect(await registryRowsFor(site, article.documentId)).toEqual([
      expect.objectContaining({ resource: 'post', target: article.documentId }),
    ]);
    expect((await site.send('PUT', `/posts/${article.documentId}`, { status: 'draft' })).status).toBe(200);
  });

  test("an editor's blog category is deleted, and nothing is left of it in the registry", async () => {
    const category = await editorsCategory(site, 'Adopted category');
    const reply = await site.send('DELETE', `/blog-categories/${category.documentId}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: category.documentId, deleted: true });
    expect(await documents(site, CATEGORY).findOne({ documentId: category.documentId })).toBeNull();
    expect(await registryRowsFor(site, category.documentId)).toEqual([]);
  });

  test('an unknown id still answers 404', async () => {
    expect((await site.send('PUT', '/posts/nosuchpost', { title: 'x' })).status).toBe(404);
    expect((await site.send('DELETE', '/blog-categories/nosuchcategory')).status).toBe(404);
  });
});
