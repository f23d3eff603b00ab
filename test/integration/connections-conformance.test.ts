import { z } from 'zod';
import { CAPABILITIES, type Capability } from '../../server/src/contract/capabilities';
import type { ErrorBody } from '../../server/src/contract/errors';
import {
  PAGE_TYPES,
  type DeletedResponse,
  type EntityResponse,
  type HandshakeResponse,
  type PageItem,
  type ProductCategoryItem,
} from '../../server/src/contract/responses';
import { fullPost } from '../helpers/fixtures';
import { documentsOf, UIDS } from '../helpers/inspect';
import { type Reply, type SendOptions, useSite } from '../helpers/site';

/**
 * The publisher's conformance checks, strict, on two connections of one site at once, each
 * signing with its own key (issue 42, item 5): every route of contract-v1 section 4, every
 * answer read against exactly the fields the contract (and contract-decisions.md where it is
 * silent) lists, nothing more. Each check runs on both connections concurrently, as two
 * publishing projects pointed at one site would send.
 *
 * Every post's title names its connection: posts of one title created on two connections at the
 * same moment get one slug on PostgreSQL (the slug claim is kept per connection), and Strapi then
 * refuses every later update of both. That bug is reported on issue 42; this file checks shapes.
 */
const KEYS = {
  en: 'pb_en_key_0123456789abcdef0123456789abcdef',
  fr: 'pb_fr_key_0123456789abcdef0123456789abcdef',
};
type Name = keyof typeof KEYS;
const NAMES = Object.keys(KEYS) as Name[];
const OTHER: Record<Name, Name> = { en: 'fr', fr: 'en' };
/** fr turns products off, so the walk also shows a capability declared on one connection only. */
const CAPABILITIES_OF: Record<Name, Capability[]> = {
  en: [...CAPABILITIES],
  fr: CAPABILITIES.filter((capability) => capability !== 'products'),
};

/** True when A and B are the same type, optional properties included (mutual assignability is not). */
type Exactly<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
/**
 * Compiles only when the schema reads exactly the type server/src/contract/responses.ts declares:
 * these schemas cannot drift from the types the services build their answers with.
 */
const declaredAs =
  <Declared>() =>
  <Schema extends z.ZodType>(
    schema: Schema & (Exactly<z.output<Schema>, Declared> extends true ? unknown : never)
  ) =>
    schema;

const id = z.string().min(1).max(191);
const handshakeResponse = declaredAs<HandshakeResponse>()(
  z
    .object({
      ok: z.literal(true),
      contract: z.literal('v1'),
      version: z.literal('1.0'),
      site: z.object({ name: z.string(), url: z.string() }).strict(),
      capabilities: z.array(z.enum(CAPABILITIES)),
    })
    .strict()
);
const entityResponse = declaredAs<EntityResponse>()(
  z.object({ id, url: z.string().min(1).optional() }).strict()
);
const deletedResponse = declaredAs<DeletedResponse>()(z.object({ id, deleted: z.literal(true) }).strict());
const errorBody = declaredAs<ErrorBody>()(z.object({ error: z.string().min(1) }).strict());
const pageItem = declaredAs<PageItem>()(
  z
    .object({
      id,
      type: z.enum(PAGE_TYPES),
      title: z.string(),
      slug: z.string(),
      url: z.string().min(1).optional(),
      categories: z.array(z.string()).optional(),
      tags: z.array(z.string()).optional(),
      updated_at: z.string(),
    })
    .strict()
);
const productCategoryItem = declaredAs<ProductCategoryItem>()(
  z.object({ id, name: z.string(), slug: z.string(), description: z.string(), parent: z.string() }).strict()
);

/** The reply has `status` and a body the schema reads without a field more or less; returns it read. */
function conforms<T>(schema: z.ZodType<T>, reply: Reply, status: number): T {
  const read = schema.safeParse(reply.body);
  const issues = read.success
    ? []
    : read.error.issues.map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`);
  // The body on both sides: a failure shows what came back beside what was wrong with it.
  expect({ status: reply.status, issues, body: reply.body }).toEqual({
    status,
    issues: [],
    body: reply.body,
  });
  return read.data as T;
}

const site = useSite({
  PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: {}, fr: { capabilities: { products: false } } }),
  PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
  PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
});

/** A request to `name`'s base URL, signed with `name`'s key unless `options` say otherwise. */
const send = (name: Name, method: string, path: string, body?: string | object, options: SendOptions = {}) =>
  site.send(method, `/${name}${path}`, body, { key: KEYS[name], ...options });

/** Runs the same checks on every connection at the same time; resolves to each one's result. */
async function onEveryConnectionAtOnce<T>(check: (name: Name) => Promise<T>): Promise<Record<Name, T>> {
  const results = await Promise.all(NAMES.map(check));
  return Object.fromEntries(NAMES.map((name, index) => [name, results[index]])) as Record<Name, T>;
}

/** Every page of a list endpoint, as the publisher walks it: until a page shorter than `perPage`. */
async function walk<T>(name: Name, path: string, schema: z.ZodType<T>, perPage: number) {
  const pages: T[][] = [];
  for (let page = 1; pages.length === 0 || pages[pages.length - 1].length === perPage; page++) {
    const reply = await send(name, 'GET', `${path}?per_page=${perPage}&page=${page}`);
    pages.push(conforms(z.array(schema), reply, 200));
  }
  return pages;
}
const pageItemsOf = async (name: Name) => (await walk(name, '/pages', pageItem, 100)).flat();

describe('the conformance checks, strict, on two connections of one site at once', () => {
  test('POST /handshake, with a JSON object or an empty body: the contract fields and the capabilities this connection serves', async () => {
    await onEveryConnectionAtOnce(async (name) => {
      const handshake = conforms(
        handshakeResponse,
        await send(name, 'POST', '/handshake', { probe: 1 }),
        200
      );
      expect(handshake.capabilities).toEqual(CAPABILITIES_OF[name]);
      conforms(handshakeResponse, await send(name, 'POST', '/handshake'), 200);
    });
  });

  test('posts: create, republish, full update, content-only update, status both ways, delete', async () => {
    const ids = await onEveryConnectionAtOnce(async (name) => {
      // Both connections send the same source_id: each makes and then finds its own post.
      const post = fullPost({ title: `Conformance ${name}`, source_id: 'conformance-post' });
      const created = conforms(entityResponse, await send(name, 'POST', '/posts', post), 200);
      const republished = conforms(entityResponse, await send(name, 'POST', '/posts', post), 200);
      expect(republished.id).toBe(created.id);

      const update = fullPost({
        title: `Conformance ${name}, updated`,
        categories: [`Updated ${name}`],
        tags: [`tag-${name}`],
        source_id: 'conformance-post',
      });
      const path = `/posts/${created.id}`;
      expect(conforms(entityResponse, await send(name, 'PUT', path, update), 200).id).toBe(created.id);
      const contentOnly = { content: '<p>New body.</p>', source_id: 'conformance-post' };
      expect(conforms(entityResponse, await send(name, 'PUT', path, contentOnly), 200).id).toBe(created.id);
      const listed = (await pageItemsOf(name)).find((item) => item.id === created.id);
      expect(listed).toMatchObject({
        type: 'post',
        title: update.title,
        categories: update.categories,
        tags: update.tags,
      });

      conforms(entityResponse, await send(name, 'PUT', path, { status: 'draft' }), 200);
      expect((await pageItemsOf(name)).map((item) => item.id)).not.toContain(created.id);
      conforms(entityResponse, await send(name, 'PUT', path, { status: 'publish' }), 200);
      expect((await pageItemsOf(name)).find((item) => item.id === created.id)?.title).toBe(update.title);

      expect(conforms(deletedResponse, await send(name, 'DELETE', path), 200)).toEqual({
        id: created.id,
        deleted: true,
      });
      conforms(errorBody, await send(name, 'PUT', path, { title: 'Gone' }), 404);
      conforms(errorBody, await send(name, 'DELETE', path), 404);
      return created.id;
    });
    expect(ids.en).not.toBe(ids.fr);
  });

  test('blog categories: create (the same name again finds it), delete, a deleted one answers 404', async () => {
    await onEveryConnectionAtOnce(async (name) => {
      const category = { name: `Kettles ${name}`, description: 'Water, heated.', slug: `kettles-${name}` };
      const created = conforms(entityResponse, await send(name, 'POST', '/blog-categories', category), 200);
      const again = await send(name, 'POST', '/blog-categories', { name: category.name.toUpperCase() });
      expect(conforms(entityResponse, again, 200).id).toBe(created.id);
      const path = `/blog-categories/${created.id}`;
      expect(conforms(deletedResponse, await send(name, 'DELETE', path), 200)).toEqual({
        id: created.id,
        deleted: true,
      });
      conforms(errorBody, await send(name, 'DELETE', path), 404);
    });
  });

  test('authors: create with every field of the payload, the same email again finds it', async () => {
    await onEveryConnectionAtOnce(async (name) => {
      const author = {
        username: `writer-${name}`,
        email: `writer-${name}@example.com`,
        display_name: `Writer ${name}`,
        first_name: 'Writer',
        last_name: name,
        description: 'Writes.',
        role: 'author',
        url: 'https://example.com/writer',
      };
      const created = conforms(entityResponse, await send(name, 'POST', '/authors', author), 200);
      const again = await send(name, 'POST', '/authors', { display_name: 'Else', email: author.email });
      expect(conforms(entityResponse, again, 200).id).toBe(created.id);
    });
  });

  describe('products, copy only', () => {
    let productId: string;
    beforeAll(async () => {
      // The contract has no product create: the publisher updates the site's own products.
      const product = await documentsOf(site.strapi, UIDS.product).create({
        data: { name: 'Grinder', slug: 'grinder', price: 199.99, sku: 'GR-1', stock: 7, type: 'simple' },
        status: 'published',
      });
      productId = product.documentId;
    });

    test('update (partial and full) where the connection declares products, 403 { error } where it does not', async () => {
      await onEveryConnectionAtOnce(async (name) => {
        const path = `/products/${productId}`;
        if (!CAPABILITIES_OF[name].includes('products')) {
          conforms(errorBody, await send(name, 'PUT', path, { description: '<p>Not here.</p>' }), 403);
          return;
        }
        const copy = await send(name, 'PUT', path, { description: '<p>New copy.</p>' });
        expect(conforms(entityResponse, copy, 200).id).toBe(productId);
        const full = await send(name, 'PUT', path, {
          name: 'Burr Grinder',
          type: 'simple',
          description: '<p>Grinds evenly.</p>',
          short_description: 'Grinds.',
          categories: ['Grinders'],
          tags: ['burr'],
          images: [{ url: 'https://cdn.example.com/grinder.jpg', alt: 'A grinder' }],
          source_id: `product-${name}`,
        });
        expect(conforms(entityResponse, full, 200).id).toBe(productId);
        conforms(errorBody, await send(name, 'PUT', '/products/no-such-product', { name: 'x' }), 404);
      });
    });
  });

  test('product categories: create (the same source_id again finds it), list paged by per_page and page', async () => {
    await onEveryConnectionAtOnce(async (name) => {
      const ids: string[] = [];
      for (const index of [1, 2, 3]) {
        const category = {
          name: `Shop ${name} ${index}`,
          description: 'A shelf.',
          image: 'https://cdn.example.com/shelf.png',
          source_id: `shop-${name}-${index}`,
        };
        const created = conforms(
          entityResponse,
          await send(name, 'POST', '/product-categories', category),
          200
        );
        const again = await send(name, 'POST', '/product-categories', {
          name: `Renamed ${index}`,
          source_id: category.source_id,
        });
        expect(conforms(entityResponse, again, 200).id).toBe(created.id);
        ids.push(created.id);
      }
      const byOne = await walk(name, '/product-categories', productCategoryItem, 1);
      // Every page full, so the walk ends on the empty page after the last.
      expect(byOne[byOne.length - 1]).toEqual([]);
      const listed = byOne.flat();
      expect(new Set(listed.map((item) => item.id)).size).toBe(listed.length);
      expect(listed.filter((item) => ids.includes(item.id)).map((item) => item.name)).toEqual([
        `Shop ${name} 1`,
        `Shop ${name} 2`,
        `Shop ${name} 3`,
      ]);
      const byHundred = (await walk(name, '/product-categories', productCategoryItem, 100)).flat();
      expect(byHundred.map((item) => item.id)).toEqual(expect.arrayContaining(ids));
    });
  });

  test('GET /pages: every item strict; a walk by 1 ends on an empty page, by 2 on a short one, and sees each item once', async () => {
    await onEveryConnectionAtOnce(async (name) => {
      const published: string[] = [];
      for (const index of [1, 2, 3]) {
        const post = fullPost({ title: `Listed ${name} ${index}`, source_id: `listed-${name}-${index}` });
        published.push(conforms(entityResponse, await send(name, 'POST', '/posts', post), 200).id);
      }
      const draft = fullPost({ title: `Unlisted ${name}`, status: 'draft' });
      const draftId = conforms(entityResponse, await send(name, 'POST', '/posts', draft), 200).id;

      for (const perPage of [1, 2]) {
        const pages = await walk(name, '/pages', pageItem, perPage);
        expect(pages.slice(0, -1).every((page) => page.length === perPage)).toBe(true);
        expect(pages[pages.length - 1].length).toBeLessThan(perPage);
        const ids = pages.flat().map((item) => item.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids).toEqual(expect.arrayContaining(published));
        expect(ids).not.toContain(draftId);
      }
      for (const query of ['per_page=0', 'per_page=251', 'per_page=ten', 'page=0']) {
        conforms(errorBody, await send(name, 'GET', `/pages?${query}`), 400);
      }
    });
  });

  test('401 { error } for a bad signature, a stale, future or seconds timestamp, and an unsigned request', async () => {
    await onEveryConnectionAtOnce(async (name) => {
      const refusals: SendOptions[] = [
        { headers: { 'X-Publisher-Signature': 'ab'.repeat(32) } },
        { timestamp: Date.now() - 6 * 60_000 },
        { timestamp: Date.now() + 6 * 60_000 },
        { timestamp: Math.floor(Date.now() / 1000) },
        { unsigned: true },
      ];
      for (const options of refusals) {
        conforms(errorBody, await send(name, 'POST', '/handshake', {}, options), 401);
        conforms(errorBody, await send(name, 'POST', '/posts', fullPost(), options), 401);
      }
    });
  });

  test('400 { error } for an invalid body, 404 { error } for an unknown id', async () => {
    await onEveryConnectionAtOnce(async (name) => {
      const invalid: Array<string | object> = [
        '{"title": "Cut off',
        { ...fullPost(), status: 'scheduled' },
        { ...fullPost(), title: 42 },
        { ...fullPost(), date: '02/01/2026' },
        { ...fullPost(), categories: 'Brewing' },
        { ...fullPost(), seo: 'SEO title' },
      ];
      for (const body of invalid) conforms(errorBody, await send(name, 'POST', '/posts', body), 400);
      const created = await send(name, 'POST', '/posts', fullPost({ title: `Invalid updates ${name}` }));
      const { id: postId } = conforms(entityResponse, created, 200);
      conforms(errorBody, await send(name, 'PUT', `/posts/${postId}`, { status: 'gone' }), 400);
      conforms(errorBody, await send(name, 'POST', '/authors', { email: 'not-an-email' }), 400);

      conforms(errorBody, await send(name, 'PUT', '/posts/no-such-post', { title: 'x' }), 404);
      conforms(errorBody, await send(name, 'DELETE', '/posts/no-such-post'), 404);
      conforms(errorBody, await send(name, 'DELETE', '/blog-categories/no-such-category'), 404);
    });
  });

  test("one connection's key is refused (401) at the other's base URL; an id one created answers 404 on the other", async () => {
    await onEveryConnectionAtOnce(async (name) => {
      const other = OTHER[name];
      const withMyKey = { key: KEYS[name] };
      conforms(errorBody, await send(other, 'POST', '/handshake', {}, withMyKey), 401);
      conforms(errorBody, await send(other, 'POST', '/posts', fullPost(), withMyKey), 401);

      const mine = fullPost({ title: `Mine ${name}` });
      const post = conforms(entityResponse, await send(name, 'POST', '/posts', mine), 200);
      const category = conforms(
        entityResponse,
        await send(name, 'POST', '/blog-categories', { name: `Mine ${name}` }),
        200
      );
      conforms(errorBody, await send(other, 'PUT', `/posts/${post.id}`, { title: 'Taken' }), 404);
      conforms(errorBody, await send(other, 'DELETE', `/posts/${post.id}`), 404);
      conforms(errorBody, await send(other, 'DELETE', `/blog-categories/${category.id}`), 404);
      // Still there, and still its own connection's.
      conforms(entityResponse, await send(name, 'PUT', `/posts/${post.id}`, { title: `Kept ${name}` }), 200);
      conforms(deletedResponse, await send(name, 'DELETE', `/blog-categories/${category.id}`), 200);
    });
  });
});
