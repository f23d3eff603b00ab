import { createHash } from 'node:crypto';
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

/** The identity table's `resource` column holds at most this many characters. */
const REGISTRY_NAME_LENGTH = 64;

/**
 * A registry every connection shares for one content type, where its own registries keep them
 * apart: `l10n` names the document a source_id's localizations join (linkLocalizations), `slugs`
 * guards the type's slugs. Named by the type, not the resource, so connections that store posts
 * in different types never meet; a uid too long for the column is named by its digest ("#"
 * occurs in no uid, so the two forms never meet either).
 */
export function sharedRegistryOf(purpose: 'l10n' | 'slugs', uid: string): string {
  const name = `${purpose}:${uid}`;
  return name.length <= REGISTRY_NAME_LENGTH
    ? name
    : `${purpose}#${createHash('sha256').update(uid).digest('hex').slice(0, 40)}`;
}
