import { loginAs, pluginTypesDisplayed } from '../helpers/admin-client';
import { serviceOf, type Site, useSite } from '../helpers/site';

/**
 * The handshake declares what the site's mapping can serve: SEO only where an SEO field is
 * stored, products and product categories only where the site maps them or opts in. The plugin's
 * types no one uses leave the Content Manager's menu, and come back when a capability uses them.
 */
const settingsOf = (site: Site) => serviceOf(site, 'settings');
const overviewOf = async (site: Site) =>
  serviceOf(site, 'settings-overview').overview({
    requestOrigin: 'http://localhost',
    includeLastRequest: false,
  });
const declared = async (site: Site) => (await site.send('POST', '/handshake', {})).body.capabilities;

describe("Strapi's example blog: posts in the Story, products in the Item, no SEO field", () => {
  // `seo` switched on in config/plugins although the Story stores no SEO field.
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'template', PUBLISH_BRIDGE_CAPABILITIES: 'seo' });

  test('the handshake declares no seo, even switched on, and products since the site maps them', async () => {
    expect(await declared(site)).toEqual([
      'posts.delete',
      'blog_categories',
      'authors',
      'products',
      'pages.list',
    ]);
    await settingsOf(site).update({ capabilities: { seo: true } });
    expect(await declared(site)).not.toContain('seo');
  });

  test('the settings overview says why seo is unavailable, and which capabilities are on by default', async () => {
    const { capabilities } = await overviewOf(site);
    const byName = Object.fromEntries(capabilities.map((state) => [state.name, state]));
    expect(byName.seo).toMatchObject({ enabled: false, available: false });
    expect(byName.seo.unavailableReason).toMatch(/post mapping \(api::story.story\) stores no SEO field/);
    expect(byName.seo.unavailableReason).toContain('config/plugins');
    expect(byName.products).toMatchObject({ enabled: true, available: true, enabledByDefault: true });
    expect(byName.products.unavailableReason).toBeUndefined();
    expect(byName.product_categories).toMatchObject({
      enabled: false,
      available: true,
      enabledByDefault: false,
    });
  });

  test("the plugin's product, product category and tag types leave the menu until a capability uses them", async () => {
    const superAdmin = await loginAs(site, 'strapi-super-admin');
    expect(await pluginTypesDisplayed(superAdmin)).toMatchObject({
      product: false,
      'product-category': false,
      tag: false,
    });

    await settingsOf(site).update({ capabilities: { product_categories: true } });
    expect(await declared(site)).toContain('product_categories');
    expect(await pluginTypesDisplayed(superAdmin)).toMatchObject({
      product: false,
      'product-category': true,
      tag: false,
    });
  });
});

describe("everything in the plugin's types, no opt-in", () => {
  const site = useSite({ PUBLISH_BRIDGE_CAPABILITIES: undefined });

  test('products are off until the admin opts in, which shows their type', async () => {
    expect(await declared(site)).toEqual(['posts.delete', 'blog_categories', 'authors', 'seo', 'pages.list']);
    expect((await site.send('PUT', '/products/any', { name: 'x' })).status).toBe(403);
    const superAdmin = await loginAs(site, 'strapi-super-admin');
    expect(await pluginTypesDisplayed(superAdmin)).toMatchObject({ post: true, tag: true, product: false });

    await settingsOf(site).update({ capabilities: { products: true } });
    expect(await declared(site)).toContain('products');
    expect(await pluginTypesDisplayed(superAdmin)).toMatchObject({
      product: true,
      'product-category': true,
      tag: true,
    });
  });
});
