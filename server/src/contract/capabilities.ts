/** The optional capabilities a site may declare in its handshake (contract section 1). */
export const CAPABILITIES = [
  'posts.delete',
  'blog_categories',
  'authors',
  'products',
  'product_categories',
  'seo',
  'pages.list',
] as const;

export type Capability = (typeof CAPABILITIES)[number];

export const CAPABILITY_DESCRIPTIONS: Record<Capability, string> = {
  'posts.delete': 'Delete blog posts when they are deleted in the publisher.',
  blog_categories: 'Create and delete blog categories.',
  authors: 'Create authors.',
  products: 'Update product copy (never price, SKU or stock).',
  product_categories: 'Create and list product categories.',
  seo: 'Store SEO title, description and keywords.',
  'pages.list': 'List published pages so the publisher can sync and classify them.',
};

export type CapabilitySettings = Record<Capability, boolean>;

export const enabledCapabilities = (settings: CapabilitySettings): Capability[] =>
  CAPABILITIES.filter((capability) => settings[capability]);
