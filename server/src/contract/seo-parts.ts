/**
 * The parts of the contract's seo object (section 2.2), each with what it holds and where a site
 * keeps it: the one table the request schema, the config's seo mapping, the mapping's defaults and
 * the stored values are built from. Adding a part is adding a row (docs/architecture.md).
 */

/**
 * What a part holds. `text` is cut at a word boundary when the site's attribute is shorter;
 * `url` is an absolute http(s) URL and an identifier, never shortened (a cut URL points
 * elsewhere): one that is not a URL or does not fit is left out, noted; `names` is a list of
 * names, stored as a list in a JSON attribute or as the whole names that fit in a text one.
 */
export type SeoPartKind = 'text' | 'url' | 'names';

/** The post's fields a required part the publisher did not send is filled from, best first. */
export type SeoFillSource = 'title' | 'excerpt' | 'content';

export type SeoPartSpec = {
  kind: SeoPartKind;
  /** The attribute of the community SEO plugin's `shared.seo` component (Strapi's example template has it). */
  componentAttribute: string;
  /** The attribute of the plugin's own post type; a part without one is stored only in a site's own type. */
  ownAttribute?: string;
  /** For a part a site's component may require: what fills it when it is not sent. */
  fill?: { from: readonly SeoFillSource[]; orSend?: string };
};

export const SEO_PARTS = {
  title: {
    kind: 'text',
    componentAttribute: 'metaTitle',
    ownAttribute: 'seoTitle',
    fill: { from: ['title'] },
  },
  description: {
    kind: 'text',
    componentAttribute: 'metaDescription',
    ownAttribute: 'seoDescription',
    fill: { from: ['excerpt', 'content'], orSend: 'an excerpt' },
  },
  keywords: { kind: 'names', componentAttribute: 'keywords', ownAttribute: 'seoKeywords' },
  /** Not in contract-v1's table; a publisher that sends it has it stored (unknown fields are dropped). */
  canonical_url: { kind: 'url', componentAttribute: 'canonicalURL', ownAttribute: 'seoCanonicalUrl' },
} as const satisfies Record<string, SeoPartSpec>;

export type SeoPartName = keyof typeof SEO_PARTS;

export const SEO_PART_NAMES = Object.keys(SEO_PARTS) as SeoPartName[];

/** Each part's spec, typed as the table's common shape for code that walks every part. */
export const seoPartSpec = (name: SeoPartName): SeoPartSpec => SEO_PARTS[name];
