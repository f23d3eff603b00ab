import type { Capability } from './capabilities';

/**
 * What the site answers the publisher (contract-v1 section 2, and contract-decisions.md where
 * the contract leaves a field open), declared once beside the request schemas: the services
 * build these, the tests and the conformance client read them.
 */

/** The handshake's answer (section 1): the capabilities are the ones the site serves now. */
export type HandshakeResponse = {
  ok: true;
  contract: 'v1';
  version: '1.0';
  site: { name: string; url: string };
  capabilities: Capability[];
};

/** The answer for a stored entity (2.3): its id, and its page's URL when the site has one. */
export type EntityResponse = { id: string; url?: string };

/** The answer for a deletion. */
export type DeletedResponse = { id: string; deleted: true };

/** The type labels of `GET /pages` items the publisher classifies (2.9); the site chooses which. */
export const PAGE_TYPES = ['post', 'category', 'product', 'product_cat'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

/** A page list item (2.9; the fields the contract leaves open as contract-decisions.md says). */
export type PageItem = {
  id: string;
  type: PageType;
  title: string;
  slug: string;
  url?: string;
  categories?: string[];
  tags?: string[];
  updated_at: string;
};

/** A product category list item (2.8): all strings. */
export type ProductCategoryItem = {
  id: string;
  name: string;
  slug: string;
  description: string;
  parent: string;
};
