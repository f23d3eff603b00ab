import type { Capability } from '../contract/capabilities';

const contractRoute = (method: string, path: string, handler: string, capability?: Capability) => ({
  method,
  path,
  handler,
  config: {
    // The contract gate authenticates by signature; `verified-request` makes each route check that itself.
    auth: false as const,
    middlewares: [
      'plugin::publish-bridge.verified-request',
      'plugin::publish-bridge.contract-errors',
      ...(capability ? [{ name: 'plugin::publish-bridge.capability', config: { capability } }] : []),
    ],
  },
});

/** The contract's endpoints (contract-v1 section 4), relative to the configured prefix. */
export default {
  type: 'content-api',
  routes: [
    contractRoute('POST', '/handshake', 'handshake.handshake'),
    contractRoute('POST', '/posts', 'posts.create'),
    contractRoute('PUT', '/posts/:id', 'posts.update'),
    contractRoute('DELETE', '/posts/:id', 'posts.delete', 'posts.delete'),
    contractRoute('POST', '/blog-categories', 'blog-categories.create', 'blog_categories'),
    contractRoute('DELETE', '/blog-categories/:id', 'blog-categories.delete', 'blog_categories'),
    contractRoute('POST', '/authors', 'authors.create', 'authors'),
    contractRoute('PUT', '/products/:id', 'products.update', 'products'),
    contractRoute('POST', '/product-categories', 'product-categories.create', 'product_categories'),
    contractRoute('GET', '/product-categories', 'product-categories.list', 'product_categories'),
    contractRoute('GET', '/pages', 'pages.list', 'pages.list'),
  ],
};
