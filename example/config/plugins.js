const path = require('path');

module.exports = ({ env }) => ({
  'users-permissions': {
    config: {
      jwtSecret: env('JWT_SECRET'),
    },
  },
  'publish-bridge': {
    enabled: true,
    // Strapi 5.54 silently skips a relative `resolve`; the plugin is this repository's root.
    resolve: path.resolve(__dirname, '..', '..'),
    config: {
      capabilities: {
        'posts.delete': true,
        blog_categories: true,
        authors: true,
        products: true,
        product_categories: true,
        seo: true,
        'pages.list': true,
      },
      urlTemplates: {
        post: env('PUBLISH_BRIDGE_POST_URL', 'http://localhost:3000/blog/{slug}'),
        category: env('PUBLISH_BRIDGE_CATEGORY_URL', 'http://localhost:3000/blog/category/{slug}'),
        product: env('PUBLISH_BRIDGE_PRODUCT_URL', 'http://localhost:3000/shop/{slug}'),
        product_cat: env('PUBLISH_BRIDGE_PRODUCT_CATEGORY_URL', 'http://localhost:3000/shop/category/{slug}'),
      },
      timezone: env('PUBLISH_BRIDGE_TIMEZONE', 'UTC'),
    },
  },
});
