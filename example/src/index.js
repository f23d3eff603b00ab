const PRODUCT_CATEGORY = 'plugin::publish-bridge.product-category';
const PRODUCT = 'plugin::publish-bridge.product';

/** Products are never created through the contract, so the demo brings a few to push copy to. */
const DEMO_CATALOGUE = [
  {
    category: { name: 'Coffee', slug: 'coffee', description: 'Single-origin beans and blends.' },
    products: [
      { name: 'Ethiopia Yirgacheffe', slug: 'ethiopia-yirgacheffe', type: 'simple', price: 14.5, sku: 'COF-ETH-250', stock: 40 },
      { name: 'House Espresso Blend', slug: 'house-espresso-blend', type: 'simple', price: 12, sku: 'COF-ESP-250', stock: 120 },
    ],
  },
  {
    category: { name: 'Brewing Gear', slug: 'brewing-gear', description: 'Everything to brew at home.' },
    products: [{ name: 'Pour-Over Kettle', slug: 'pour-over-kettle', type: 'simple', price: 49, sku: 'GEAR-KET-1', stock: 15 }],
  },
];

async function seedDemoCatalogue(strapi) {
  // Without the plugin (disabled, or removed) its product types do not exist.
  if (!strapi.plugin('publish-bridge')) return;
  if ((await strapi.documents(PRODUCT).count({})) > 0) return;
  for (const { category, products } of DEMO_CATALOGUE) {
    const created = await strapi.documents(PRODUCT_CATEGORY).create({ data: category, status: 'published' });
    for (const product of products) {
      await strapi.documents(PRODUCT).create({
        data: {
          ...product,
          shortDescription: `${product.name}, from the demo catalogue.`,
          categories: [created.documentId],
        },
        status: 'published',
      });
    }
  }
  strapi.log.info('[example] Seeded a demo catalogue: 2 product categories, 3 products.');
}

/** A blog frontend reads the published blog through Strapi's REST API without a token. */
const PUBLIC_READ_ACTIONS = ['article', 'category', 'author'].flatMap((name) => [
  `api::${name}.${name}.find`,
  `api::${name}.${name}.findOne`,
]);

async function allowPublicReads(strapi) {
  const role = await strapi.db.query('plugin::users-permissions.role').findOne({ where: { type: 'public' } });
  if (!role) return;
  const permissions = strapi.db.query('plugin::users-permissions.permission');
  for (const action of PUBLIC_READ_ACTIONS) {
    if (!(await permissions.findOne({ where: { action, role: role.id } }))) {
      await permissions.create({ data: { action, role: role.id } });
    }
  }
}

module.exports = {
  register() {},

  async bootstrap({ strapi }) {
    await allowPublicReads(strapi);
    if (process.env.PUBLISH_BRIDGE_DEMO_SEED !== 'false') await seedDemoCatalogue(strapi);
  },
};
