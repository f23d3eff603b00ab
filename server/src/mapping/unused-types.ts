import { DEFAULT_MAPPING } from './catalogue';
import type { AttributeSchema } from './resolve';

type Schemas = Record<string, { attributes: Record<string, AttributeSchema> } | undefined>;

/**
 * The plugin's own resource types that nothing uses once the site mapped resources onto its
 * types: no resource is stored in them, and no type still in use owns a relation to them. The
 * inverse side of a relation (`mappedBy`) does not count: the plugin's tag lists the plugin's
 * posts only because its post owns that link, and hiding that post must not depend on the tag.
 * `schemas`: every content type of the site, by uid.
 */
export function unusedPluginTypes(resourceUids: string[], schemas: Schemas): string[] {
  const pluginTypes = new Set(Object.values(DEFAULT_MAPPING).map(({ uid }) => uid));
  const used = new Set(resourceUids);
  // The site's own types and the plugin's used ones; a plugin type they link to is used in turn.
  const pending = Object.keys(schemas).filter((uid) => !pluginTypes.has(uid) || used.has(uid));
  while (pending.length > 0) {
    for (const attribute of Object.values(schemas[pending.pop()!]?.attributes ?? {})) {
      const { type, target, mappedBy } = attribute;
      if (type !== 'relation' || mappedBy || !target || !pluginTypes.has(target) || used.has(target))
        continue;
      used.add(target);
      pending.push(target);
    }
  }
  return [...pluginTypes].filter((uid) => !used.has(uid));
}
