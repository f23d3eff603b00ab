/**
 * The optional capabilities a site may declare in its handshake (contract section 1). Their
 * labels and descriptions for people live in the settings page's translations (admin/src/translations).
 */
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

export type CapabilitySettings = Record<Capability, boolean>;

export const enabledCapabilities = (settings: CapabilitySettings): Capability[] =>
  CAPABILITIES.filter((capability) => settings[capability]);
