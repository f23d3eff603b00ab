import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import type { ResourceStorage } from '#contract/admin/settings';
import { DEFAULT_MAPPING, RESOURCE_KINDS, type ResourceKind } from '../../mapping/catalogue';
import { describeZone, resolveMapping, type ResolvedMapping } from '../../mapping/resolve';
import { describeResource, forConnection, type Resource } from '../../resources';
import { getService, pluginConfig } from '../../plugin';
import { unusedPluginTypes } from '../../mapping/unused-types';
import { capabilitySupport, type CapabilitySupport } from '../../mapping/capability-support';
import type { Capability, CapabilitySettings } from '../../contract/capabilities';
import {
  allContentTypes,
  componentOf,
  contentTypeOf,
  hasDraftAndPublish,
  type Schema,
} from '../../database/schemas';

/** Where each resource is stored: the site's own types from `contentTypes`, else the plugin's. */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  let resolved: ResolvedMapping | undefined;
  let resources: Partial<Record<ResourceKind, Resource>> | undefined;
  let support: Record<Capability, CapabilitySupport> | undefined;

  const lookup = (schema: Schema | undefined, draftAndPublish: boolean) =>
    schema && { attributes: schema.attributes, draftAndPublish };

  return {
    /** Resolved once, after every content type is registered; a site's schema does not change while it runs. */
    resolve(): ResolvedMapping {
      if (!resolved) {
        const { contentTypes } = pluginConfig(strapi);
        resolved = resolveMapping(
          contentTypes,
          (uid) => lookup(contentTypeOf(strapi, uid), hasDraftAndPublish(strapi, uid)),
          // A component is part of its entry's versions: it has no Draft & Publish of its own.
          (uid) => lookup(componentOf(strapi, uid), false)
        );
      }
      return resolved;
    },

    /** Where `kind` is stored; throws for a kind whose type the mapping names but the site lacks (see check). */
    resource(kind: ResourceKind): Resource {
      if (!resources) {
        const { resources: all } = this.resolve();
        resources = Object.fromEntries(
          RESOURCE_KINDS.filter((name) => all[name]).map((name) => [name, describeResource(all[name])])
        );
      }
      const resource = resources[kind];
      if (!resource)
        throw new Error(`[${PLUGIN_ID}] ${kind}: ${getService(strapi, 'availability').problem()}`);
      return forConnection(getService(strapi, 'connections').current().name, resource);
    },

    /** Where each resource is stored, for the settings page (read-only: the mapping lives in the site's code). */
    describe(): ResourceStorage[] {
      const resolved = this.resolve().resources;
      return RESOURCE_KINDS.filter((kind) => resolved[kind]).map((kind) => {
        const { uid, fields, unmapped } = this.resource(kind);
        const contentType = contentTypeOf(strapi, uid);
        return {
          resource: kind,
          uid,
          displayName: contentType?.info?.displayName ?? uid,
          ownedByPlugin: uid.startsWith(`plugin::${PLUGIN_ID}.`),
          fields: Object.entries(fields).map(([field, target]) => ({
            field,
            attribute: target.seo
              ? Object.values(target.seo)
                  .map((part) =>
                    target.adapter === 'seoComponent'
                      ? `${target.attribute}.${part.attribute}`
                      : part.attribute
                  )
                  .join(', ')
              : target.attribute,
            storedAs: target.adapter,
          })),
          unmapped,
        };
      });
    },

    /** What the mapping makes of each capability: whether anything stores it, and its default. */
    capabilitySupport(): Record<Capability, CapabilitySupport> {
      support ??= capabilitySupport(this.resolve());
      return support;
    },

    /**
     * Shows in the Content Manager's menus the plugin's types the site uses, and hides the rest,
     * as Strapi hides any type: their tables and rows stay. Unused: a resource the site mapped
     * onto its own type, products and product categories while their capability is off, tags
     * nothing links to. The Content Manager reads this at each request.
     */
    showUsedTypes(capabilities: CapabilitySettings) {
      if (this.resolve().problems.length > 0) return;
      const contentTypes = allContentTypes(strapi);
      const served = RESOURCE_KINDS.filter(
        (kind) =>
          kind !== 'tag' &&
          (kind !== 'product' || capabilities.products) &&
          (kind !== 'productCategory' || capabilities.product_categories)
      );
      const unused = new Set(
        unusedPluginTypes(
          served.map((kind) => this.resource(kind).uid),
          contentTypes
        )
      );
      for (const { uid } of Object.values(DEFAULT_MAPPING)) {
        const { pluginOptions = {} } = contentTypes[uid];
        contentTypes[uid].pluginOptions = {
          ...pluginOptions,
          'content-manager': { ...pluginOptions['content-manager'], visible: !unused.has(uid) },
        };
      }
    },

    /**
     * Whether the mapping fits the site's schemas. One that names a missing type or attribute
     * (the site renamed or removed it) takes the contract routes out of service with the reason,
     * never the site: Strapi's schema sync has already applied the site's change by the time a
     * plugin could object. A valid one says once, at debug level, what is not stored (the
     * start-up summary names where each resource goes, the settings page the rest).
     */
    check(): boolean {
      const { problems, resources: all } = this.resolve();
      if (problems.length > 0) {
        getService(strapi, 'availability').outOfService(
          'mapping',
          `The site's "contentTypes" mapping for ${PLUGIN_ID} in config/plugins does not match its content types: ${problems.join(' ')} The site's administrator must correct config/plugins (or the content types) and restart Strapi.`
        );
        return false;
      }
      for (const kind of RESOURCE_KINDS) {
        const { uid, unmapped, fields } = all[kind];
        if (!uid.startsWith(`plugin::${PLUGIN_ID}.`)) {
          const skipped = unmapped.length > 0 ? `; not stored: ${unmapped.join(', ')}` : '';
          strapi.log.debug(`[${PLUGIN_ID}] ${kind} is stored in ${uid}${skipped}`);
        }
        for (const [field, { attribute, zone }] of Object.entries(fields)) {
          if (zone)
            strapi.log.debug(`[${PLUGIN_ID}] ${kind}.${field} goes into ${describeZone(attribute, zone)}`);
        }
      }
      return true;
    },
  };
};
