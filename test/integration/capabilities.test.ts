import { serviceOf, useSite } from '../helpers/site';
import { documentsOf, UIDS } from '../helpers/inspect';

const POST = UIDS.post;
const CATEGORY = UIDS.blogCategory;
const AUTHOR = UIDS.author;
const PRODUCT = UIDS.product;
const PRODUCT_CATEGORY = UIDS.productCategory;

const documents = (uid: string) => documentsOf(site.strapi, uid);
const settings = () => serviceOf(site, 'settings');

const site = useSite();

const publish = async (body: Record<string, unknown>) => {
  const reply = await site.send('POST', '/posts', { content: '<p>Body</p>', status: 'publish', ...body });
  expect(reply.status).toBe(200);
  return reply.body.id as string;
};

describe('capabilities as settings', () => {
  afterEach(async () => {
    await settings().update({ capabilities: { 'posts.delete': true, authors: true } });
  });

  test('the handshake lists exactly the enabled capabilities, and a disabled endpoint answers 403', async () => {
    const before = await site.send('POST', '/handshake', {});
    expect(before.body.capabilities).toEqual([
      'posts.delete',
      'blog_categories',
      'authors',
      'products',
      'product_categories',
      'seo',
      'pages.list',
    ]);

    await settings().update({ capabilities: { 'posts.delete': false, authors: false } });
    const after = await site.send('POST', '/handshake', {});
    expect(after.body.capabilities).toEqual([
      'blog_categories',
      'products',
      'product_categories',
      'seo',
      'pages.list',
    ]);

    const id = await publish({ title: 'Kept while deletion is off' });
    const refused = await site.send('DELETE', `/posts/${id}`);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toContain('posts.delete');
    expect(refused.body.error).toContain('Settings > Publish Bridge');
    expect(await documents(POST).findOne({ documentId: id })).not.toBeNull();

    const author = await site.send('POST', '/authors', { display_name: 'Nobody' });
    expect(author.status).toBe(403);
    expect(await documents(AUTHOR).findMany({})).toEqual([]);
  });

  test('authentication is decided before the capability check', async () => {
    await settings().update({ capabilities: { authors: false } });
    const reply = await site.send('POST', '/authors', { display_name: 'X' }, { key: 'not-the-key' });
    expect(reply.status).toBe(401);
  });
});

describe('DELETE /posts/{id}', () => {
  test('removes every version and the source_id link; a later publish creates a new post', async () => {
    const id = await publish({ title: 'To be deleted', source_id: 'delete-me', categories: ['Survivors'] });
    const reply = await site.send('DELETE', `/posts/${id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id, deleted: true });
    expect(await documents(POST).findOne({ documentId: id })).toBeNull();
    expect(await documents(POST).findOne({ documentId: id, status: 'published' })).toBeNull();
    expect(await documents(CATEGORY).count({ filters: { name: 'Survivors' } })).toBe(1);

    expect((await site.send('PUT', `/posts/${id}`, { title: 'Back?' })).status).toBe(404);
    expect((await site.send('DELETE', `/posts/${id}`)).status).toBe(404);

    const again = await publish({ title: 'To be deleted', source_id: 'delete-me' });
    expect(again).not.toBe(id);
  });

  test('an unknown id answers 404 with an error body', async () => {
    const reply = await site.send('DELETE', '/posts/does-not-exist');
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: expect.stringContaining('does-not-exist') });
  });
});

describe('blog categories', () => {
  test('create stores every field, and an existing name or slug returns the existing category', async () => {
    const created = await site.send('POST', '/blog-categories', {
      name: 'Guides',
      description: 'How-to articles',
      slug: 'guides-and-howtos',
    });
    expect(created.status).toBe(200);
    const category = await documents(CATEGORY).findOne({ documentId: created.body.id });
    expect(category).toMatchObject({
      name: 'Guides',
      description: 'How-to articles',
      slug: 'guides-and-howtos',
    });
    expect(created.body.url).toBe('http://localhost:3000/blog/category/guides-and-howtos');

    const byName = await site.send('POST', '/blog-categories', { name: 'GUIDES' });
    const bySlug = await site.send('POST', '/blog-categories', {
      name: 'Other name',
      slug: 'guides-and-howtos',
    });
    expect(byName.body.id).toBe(created.body.id);
    expect(bySlug.body.id).toBe(created.body.id);
    expect(await documents(CATEGORY).count({ filters: { name: { $eqi: 'guides' } } })).toBe(1);
    expect(await documents(CATEGORY).count({ filters: { slug: { $startsWith: 'guides' } } })).toBe(1);
  });

  test('parent by name (created when missing) or by id', async () => {
    const child = await site.send('POST', '/blog-categories', { name: 'Espresso', parent: 'Coffee Guides' });
    const parent = await documents(CATEGORY).findFirst({ filters: { name: 'Coffee Guides' } });
    const stored = await documents(CATEGORY).findOne({ documentId: child.body.id, populate: ['parent'] });
    expect(stored.parent.documentId).toBe(parent.documentId);

    const sibling = await site.send('POST', '/blog-categories', {
      name: 'Filter',
      parent: parent.documentId,
    });
    const storedSibling = await documents(CATEGORY).findOne({
      documentId: sibling.body.id,
      populate: ['parent'],
    });
    expect(storedSibling.parent.documentId).toBe(parent.documentId);
  });

  test('delete unlinks the category from its posts and children, which stay', async () => {
    const parent = await site.send('POST', '/blog-categories', { name: 'Retired' });
    const child = await site.send('POST', '/blog-categories', {
      name: 'Retired child',
      parent: parent.body.id,
    });
    const postId = await publish({ title: 'Filed under retired', categories: ['Retired', 'Kept'] });

    const reply = await site.send('DELETE', `/blog-categories/${parent.body.id}`);
    expect(reply.body).toEqual({ id: parent.body.id, deleted: true });

    const post = await documents(POST).findOne({ documentId: postId, populate: ['categories'] });
    expect(post.categories.map((c: { name: string }) => c.name)).toEqual(['Kept']);
    const published = await documents(POST).findOne({
      documentId: postId,
      status: 'published',
      populate: ['categories'],
    });
    expect(published.categories.map((c: { name: string }) => c.name)).toEqual(['Kept']);
    const orphan = await documents(CATEGORY).findOne({ documentId: child.body.id, populate: ['parent'] });
    expect(orphan.parent).toBeNull();

    expect((await site.send('DELETE', `/blog-categories/${parent.body.id}`)).status).toBe(404);
    const recreated = await site.send('POST', '/blog-categories', { name: 'Retired' });
    expect(recreated.body.id).not.toBe(parent.body.id);
  });
});

describe('POST /authors', () => {
  test('stores every field; role and url are text, never admin roles', async () => {
    const adminRolesBefore = await site.strapi.db.query('admin::role').count();
    const reply = await site.send('POST', '/authors', {
      username: 'jdoe',
      email: 'Jane.Doe@example.com',
      display_name: 'Jane Doe',
      first_name: 'Jane',
      last_name: 'Doe',
      description: 'Writes about coffee.',
      role: 'administrator',
      url: 'https://jane.example.com',
    });
    expect(reply.status).toBe(200);
    expect(await documents(AUTHOR).findOne({ documentId: reply.body.id })).toMatchObject({
      username: 'jdoe',
      email: 'Jane.Doe@example.com',
      displayName: 'Jane Doe',
      firstName: 'Jane',
      lastName: 'Doe',
      description: 'Writes about coffee.',
      role: 'administrator',
      url: 'https://jane.example.com',
    });
    expect(await site.strapi.db.query('admin::role').count()).toBe(adminRolesBefore);

    const sameEmail = await site.send('POST', '/authors', {
      display_name: 'J. Doe',
      email: 'jane.doe@EXAMPLE.com',
    });
    const sameUsername = await site.send('POST', '/authors', { username: 'JDOE' });
    expect(sameEmail.body.id).toBe(reply.body.id);
    expect(sameUsername.body.id).toBe(reply.body.id);
  });

  test('needs a display name or username, and a valid email', async () => {
    const nameless = await site.send('POST', '/authors', { email: 'a@example.com' });
    expect(nameless.status).toBe(400);
    expect(nameless.body.error).toContain('display_name');
    const badEmail = await site.send('POST', '/authors', { username: 'x', email: 'not-an-email' });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error).toContain('email');
  });

  test('a post naming an author created through /authors links to that author', async () => {
    const author = await site.send('POST', '/authors', {
      display_name: 'Linked Writer',
      email: 'lw@example.com',
    });
    const postId = await publish({ title: 'By the linked writer', author: 'linked writer' });
    const post = await documents(POST).findOne({ documentId: postId, populate: ['author'] });
    expect(post.author.documentId).toBe(author.body.id);
  });
});

describe('PUT /products/{id}', () => {
  let productId: string;
  beforeAll(async () => {
    // The description (a richtext attribute) is compared with the HTML sent, not as Markdown.
    site.strapi.config.set('plugin::publish-bridge.richtextFormat', 'html');
    const product = await documents(PRODUCT).create({
      data: {
        name: 'Grinder',
        slug: 'grinder',
        price: 199.99,
        sku: 'GR-1',
        stock: 7,
        description: 'Old copy',
        type: 'simple',
      },
      status: 'published',
    });
    productId = product.documentId;
  });

  test('a content-only push changes the description and nothing else, price and stock included', async () => {
    const before = await documents(PRODUCT).findOne({
      documentId: productId,
      populate: ['categories', 'tags'],
    });
    const reply = await site.send('PUT', `/products/${productId}`, {
      description: '<p>New copy</p>',
      price: 1,
      sku: 'HACK',
      stock_quantity: 0,
    });
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ id: productId, url: 'http://localhost:3000/shop/grinder' });
    const after = await documents(PRODUCT).findOne({
      documentId: productId,
      populate: ['categories', 'tags'],
    });
    expect(after).toEqual({ ...before, description: '<p>New copy</p>', updatedAt: after.updatedAt });
    expect(Number(after.price)).toBeCloseTo(199.99);
    const published = await documents(PRODUCT).findOne({ documentId: productId, status: 'published' });
    expect(published.description).toBe('<p>New copy</p>');
    expect(published.sku).toBe('GR-1');
  });

  test('every copy field is written, categories and tags by name', async () => {
    const reply = await site.send('PUT', `/products/${productId}`, {
      name: 'Burr Grinder',
      type: 'variable',
      short_description: 'Grinds evenly.',
      categories: ['Brewing Gear', 'Gifts'],
      tags: ['grinder'],
      images: [{ url: 'https://cdn.example.com/grinder.jpg', alt: 'A grinder' }],
      source_id: 'prod-77',
    });
    expect(reply.status).toBe(200);
    const product = await documents(PRODUCT).findOne({
      documentId: productId,
      populate: ['categories', 'tags'],
    });
    expect(product).toMatchObject({
      name: 'Burr Grinder',
      type: 'variable',
      shortDescription: 'Grinds evenly.',
      images: [{ url: 'https://cdn.example.com/grinder.jpg', alt: 'A grinder' }],
      sourceId: 'prod-77',
      sku: 'GR-1',
      stock: 7,
    });
    expect(product.categories.map((c: { name: string }) => c.name)).toEqual(['Brewing Gear', 'Gifts']);
    expect(product.tags.map((t: { name: string }) => t.name)).toEqual(['grinder']);
  });

  test('an empty body changes nothing', async () => {
    const before = await documents(PRODUCT).findOne({ documentId: productId });
    const reply = await site.send('PUT', `/products/${productId}`);
    expect(reply.status).toBe(200);
    expect(await documents(PRODUCT).findOne({ documentId: productId })).toEqual(before);
  });

  test('an unknown product answers 404', async () => {
    const reply = await site.send('PUT', '/products/nope', { description: 'x' });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toContain('product');
  });
});

describe('product categories', () => {
  test('create is idempotent by source_id and by name; the list pages them', async () => {
    const first = await site.send('POST', '/product-categories', {
      name: 'Teas',
      description: 'Loose leaf',
      image: 'https://cdn.example.com/tea.png',
      source_id: 'pc-1',
    });
    expect(first.status).toBe(200);
    const bySource = await site.send('POST', '/product-categories', {
      name: 'Renamed Teas',
      source_id: 'pc-1',
    });
    const byName = await site.send('POST', '/product-categories', { name: 'teas' });
    expect(bySource.body.id).toBe(first.body.id);
    expect(byName.body.id).toBe(first.body.id);
    expect(await documents(PRODUCT_CATEGORY).findOne({ documentId: first.body.id })).toMatchObject({
      name: 'Teas',
      description: 'Loose leaf',
      image: 'https://cdn.example.com/tea.png',
      sourceId: 'pc-1',
    });

    const all = await site.send('GET', '/product-categories?per_page=250');
    expect(all.status).toBe(200);
    expect(Array.isArray(all.body)).toBe(true);
    expect(all.body).toContainEqual({
      id: first.body.id,
      name: 'Teas',
      slug: 'teas',
      description: 'Loose leaf',
      parent: '',
    });
    for (const item of all.body) {
      expect(Object.keys(item).sort()).toEqual(['description', 'id', 'name', 'parent', 'slug']);
      for (const value of Object.values(item)) expect(typeof value).toBe('string');
    }
  });

  test('bad paging values answer 400', async () => {
    for (const query of ['per_page=0', 'per_page=251', 'page=0', 'page=abc', 'per_page=1.5']) {
      const reply = await site.send('GET', `/product-categories?${query}`);
      expect(reply.status).toBe(400);
      expect(typeof reply.body.error).toBe('string');
    }
  });
});
