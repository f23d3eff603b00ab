import type { UID } from '@strapi/strapi';
import { listenToLog, UIDS } from '../helpers/inspect';
import { serviceOf, useSite } from '../helpers/site';

/**
 * Strapi 5.54 skips a plugin whose `resolve` it cannot follow without any error, so every
 * other integration test could pass against a site where nothing of ours runs. These
 * assertions fail in that case.
 */
describe('the example site loads the publish-bridge plugin', () => {
  /** What the plugin logged at info level while the site started. */
  const startupLines: string[] = [];
  const site = useSite(
    { PUBLISH_BRIDGE_CONTENT_TYPES: 'site' },
    {
      beforeLoad(strapi) {
        listenToLog(strapi, 'info', (message) => {
          if (message.includes('[publish-bridge]')) startupLines.push(message);
        });
      },
    }
  );

  it('says at info level, in one line, that it serves and where the content goes', () => {
    // The test database was made with everything in the plugin's types: the site's own get indexes now.
    expect(startupLines).toEqual([
      expect.stringMatching(
        /^\[publish-bridge\] serving \/api\/publish-bridge; post in api::article\.article, blog category in api::category\.category, author in api::author\.author, the rest in its own types; \d+ index\(es\) added$/
      ),
    ]);
  });

  it('registers the plugin under its id', () => {
    const plugin = site.strapi.plugin('publish-bridge');
    expect(plugin).toBeDefined();
    expect(typeof plugin.service('posts').create).toBe('function');
    expect(typeof plugin.service('settings').acceptedKeys).toBe('function');
  });

  it('registers the plugin-owned content types', () => {
    for (const name of [
      'post',
      'blog-category',
      'tag',
      'author',
      'product',
      'product-category',
      'identity',
    ]) {
      expect(site.strapi.contentType(`plugin::publish-bridge.${name}` as UID.ContentType)).toBeDefined();
    }
    const post = site.strapi.contentType(UIDS.post) as any;
    expect(post.options.draftAndPublish).toBe(true);
    expect(Object.keys(post.attributes)).toEqual(
      expect.arrayContaining(['title', 'slug', 'content', 'categories', 'tags', 'author', 'sourceId'])
    );
  });

  it('answers a signed handshake on its route', async () => {
    const reply = await site.send('POST', '/handshake', {});
    expect(reply.status).toBe(200);
    expect(reply.body.ok).toBe(true);
    expect(reply.body.contract).toBe('v1');
  });

  it('creates the identities table with a real unique index on the natural key', async () => {
    const meta = site.strapi.db.metadata.get(UIDS.identity) as any;
    const column = (name: string) => meta.attributes[name].columnName ?? name;
    const row = {
      [column('resource')]: 'plugin-loaded-test',
      [column('naturalKey')]: 'source:duplicate',
      [column('target')]: 'first',
    };
    const table = () => site.strapi.db.connection(meta.tableName);
    await table().insert(row);
    // Not `.rejects.toThrow()`: the driver's error class can come from another jest realm.
    const violation = await table()
      .insert({ ...row, [column('target')]: 'second' })
      .then(
        () => undefined,
        (error: unknown) => error
      );
    expect(String((violation as Error | undefined)?.message)).toMatch(
      /UNIQUE constraint failed|duplicate key value|Duplicate entry/
    );
    await table()
      .where({ [column('resource')]: 'plugin-loaded-test' })
      .delete();
  });

  describe('POST /handshake', () => {
    it('answers exactly the decided shape', async () => {
      const reply = await site.send('POST', '/handshake', { publisher: 'test', extra: [1, 2] });
      expect(reply.status).toBe(200);
      expect(Object.keys(reply.body).sort()).toEqual(['capabilities', 'contract', 'ok', 'site', 'version']);
      expect(reply.body).toMatchObject({ ok: true, contract: 'v1', version: '1.0' });
      expect(Object.keys(reply.body.site).sort()).toEqual(['name', 'url']);
      expect(reply.body.site.name).toBe('publish-bridge-example');
      // The example sets no server.url: the site announces the address the request reached.
      expect(reply.body.site.url).toBe(site.baseUrl);
      expect(Array.isArray(reply.body.capabilities)).toBe(true);
      expect(reply.body.capabilities.every((name: unknown) => typeof name === 'string')).toBe(true);
      // The 'site' mapping stores SEO; products and product categories are opted in (TEST_ENV).
      expect([...reply.body.capabilities].sort()).toEqual(
        [
          'authors',
          'blog_categories',
          'pages.list',
          'posts.delete',
          'product_categories',
          'products',
          'seo',
        ].sort()
      );
    });

    it('accepts an empty body', async () => {
      expect((await site.send('POST', '/handshake')).status).toBe(200);
    });

    it('refuses a handshake body that is not an object', async () => {
      const reply = await site.send('POST', '/handshake', '[]');
      expect(reply.status).toBe(400);
      expect(reply.body).toEqual({ error: expect.stringContaining('JSON object') });
    });

    it('records when the publisher last connected', async () => {
      const settings = serviceOf(site, 'settings');
      const before = Date.now();
      await site.send('POST', '/handshake', {});
      const { lastHandshakeAt } = await settings.status();
      expect(new Date(lastHandshakeAt!).getTime()).toBeGreaterThanOrEqual(before);
    });
  });
});
