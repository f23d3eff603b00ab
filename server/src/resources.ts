import type { ResourceKind } from './mapping/catalogue';
import type { ResolvedResource } from './mapping/resolve';
import type { PageType } from './contract/responses';
import { DEFAULT_CONNECTION } from './config/connections';

/**
 * What a resource is called in the identity registry and in messages, and its label in the
 * page list; where it is stored comes from the mapping (the site's types or the plugin's).
 */
const RESOURCE_NAMES: Record<ResourceKind, { registry: string; label: string; pageType?: PageType }> = {
  post: { registry: 'post', label: 'post', pageType: 'post' },
  blogCategory: { registry: 'blog_category', label: 'blog category', pageType: 'category' },
  tag: { registry: 'tag', label: 'tag' },
  author: { registry: 'author', label: 'author' },
  product: { registry: 'product', label: 'product', pageType: 'product' },
  productCategory: { registry: 'product_category', label: 'product category', pageType: 'product_cat' },
};

export type Resource = ResolvedResource & { registry: string; label: string; pageType?: PageType };

export const describeResource = (resolved: ResolvedResource): Resource => ({
  ...resolved,
  ...RESOURCE_NAMES[resolved.kind],
});

const resourcesInConnections = new WeakMap<Resource, Map<string, Resource>>();

/**
 * The resource as one connection sees it: its source ids and names kept apart from every other
 * connection's, in registry names of their own (`fr:post`). `default` keeps the plain names, so a
 * site that adds connections keeps what the plugin knew for that one.
 */
export function forConnection(connection: string, resource: Resource): Resource {
  if (connection === DEFAULT_CONNECTION) return resource;
  let seen = resourcesInConnections.get(resource);
  if (!seen) resourcesInConnections.set(resource, (seen = new Map()));
  let scoped = seen.get(connection);
  if (!scoped)
    seen.set(connection, (scoped = { ...resource, registry: `${connection}:${resource.registry}` }));
  return scoped;
}

export type { ResourceKind };
