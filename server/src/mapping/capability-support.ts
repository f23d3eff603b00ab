import { CAPABILITIES, type Capability } from '../contract/capabilities';
import { PLUGIN_ID } from '../constants';
import type { ResolvedMapping } from './resolve';

/**
 * What the site's mapping makes of one capability. `servable`: something stores what it carries
 * (else it is never declared, whatever config or the settings page say, and `reason` tells the
 * admin how to change that). `byDefault`: whether it is on when neither config nor the settings
 * page chose.
 */
export type CapabilitySupport = { servable: boolean; byDefault: boolean; reason?: string };

const ownedByPlugin = (uid: string | undefined) => !uid || uid.startsWith(`plugin::${PLUGIN_ID}.`);

/**
 * Every capability's support under the resolved mapping. SEO needs a post attribute that stores
 * it. Products and product categories default to on only where the site maps them onto its own
 * types: a blog has no products, and the plugin's product type is empty until editors fill it
 * (the contract only updates products), so there a site opts in.
 */
export function capabilitySupport({ resources }: ResolvedMapping): Record<Capability, CapabilitySupport> {
  const { post, product, productCategory } = resources;
  const sitesProducts = !ownedByPlugin(product?.uid);
  const support = Object.fromEntries(
    CAPABILITIES.map((name) => [name, { servable: true, byDefault: true }])
  ) as Record<Capability, CapabilitySupport>;

  if (post && !post.fields.seo) {
    support.seo = {
      servable: false,
      byDefault: false,
      reason: `Your post mapping (${post.uid}) stores no SEO field: map seo in the "contentTypes" option of ${PLUGIN_ID} in config/plugins (to an SEO component, or to attributes as seo: { title, description, keywords }) and restart Strapi to turn this on.`,
    };
  }
  support.products.byDefault = sitesProducts;
  support.product_categories.byDefault =
    !ownedByPlugin(productCategory?.uid) || (sitesProducts && Boolean(product?.fields.categories));
  return support;
}
