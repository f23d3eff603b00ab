import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import type { ResourceStorage } from '#contract/admin/settings';
import { DEFAULT_MAPPING, RESOURCE_KINDS, type ResourceKind } from '../../mapping/catalogue';
import { describeZone, resolveMapping, type ResolvedMapping } from '../../mapping/resolve';
import { describeResource, forConnection, type Resource } from '../../resources';
import { configOf, getService } from '../../plugin';
import type { Connection } from '../../config/connections';
import { inConnection } from '../../utils/connection-scope';
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

/**
 * Where each resource is stored: the site's own types from `contentTypes`, else the plugin's.
 * Each connection has its own (its `contentTypes` merged kind by kind over the site's); a
 * method serves the connection in scope unless handed one.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  type Mapped = {
    resolved: ResolvedMapping;
    resources?: Partial<Record<ResourceKind, Resource>>;
    support?: Record<Capability, CapabilitySupport>;
  };
  /** Resolved once per connection, after every content type is registered; a site's schema does not change while it runs. */
  const mappedBy = new Map<string, Mapped>();

  const lookup = (schema: Schema | undefined, draftAndPublish: boolean) =>
    schema && { attributes: schema.attributes, draftAndPublish };
  const connections = () => getService(strapi, 'connections');

  function mappedFor(connection: Connection): Mapped {
    let mapped = mappedBy.get(connection.name);
    if (!mapped) {
      const { contentTypes } = configOf(strapi, connection);
      const resolved = resolveMapping(
        contentTypes,
        (uid) => lookup(contentTypeOf(strapi, uid), hasDraftAndPublish(strapi, uid)),
        // A component is part of its entry's versions: it has no Draft & Publish of its own.
        (uid) => lookup(componentOf(strapi, uid), false)
      );
      mappedBy.set(connection.name, (mapped = { resolved }));
    }
    return mapped;
  }

  /** The connections whose mapping fits the site's schemas: the others' routes are out of service. */
  const fitting = () =>
    connections()
      .list()
      .filter((connection) => mappedFor(connection).resolved.problems.length === 0);

  return {
    resolve(connection: Connection = connections().current()): ResolvedMapping {
      return mappedFor(connection).resolved;
    },

    /** Where `kind` is stored; throws for a kind whose type the mapping names but the site lacks (see check). */
    resource(kind: ResourceKind, connection: Connection = connections().current()): Resource {
      const mapped = mappedFor(connection);
      if (!mapped.resources) {
        const { resources: all } = mapped.resolved;
        mapped.resources = Object.fromEntries(
          RESOURCE_KINDS.filter((name) => all[name]).map((name) => [name, describeResource(all[name])])
        );
      }
      const resource = mapped.resources[kind];
      if (!resource)
        throw new Error(
          `[${PLUGIN_ID}] ${kind}: ${inConnection(connection, () => getService(strapi, 'availability').problem())}`
        );
      return forConnection(connection.name, resource);
    },

    /**
     * Each connection's resource of each of `kinds`, for work on every type the plugin writes
     * (indexes, the Content Manager's menus, an editor's save): connections whose mapping does
     * not fit are left out, as their routes are.
     */
    everyResource(
      kinds: readonly ResourceKind[] = RESOURCE_KINDS
    ): Array<{ connection: Connection; resource: Resource }> {
      return fitting().flatMap((connection) =>
        kinds.map((kind) => ({ connection, resource: this.resource(kind, connection) }))
      );
    },

    /** Whether any connection stores its posts in `uid`: an editor's work there may concern the plugin's posts. */
    storesPostsIn(uid: string): boolean {
      return this.everyResource(['post']).some(({ resource }) => resource.uid === uid);
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
    capabilitySupport(
      connection: Connection = connections().current()
    ): Record<Capability, CapabilitySupport> {
      const mapped = mappedFor(connection);
      mapped.support ??= capabilitySupport(mapped.resolved);
      return mapped.support;
    },

    fittingConnections: fitting,

    /**
     * Shows in the Content Manager's menus the plugin's types the site uses, and hides the rest,
     * as Strapi hides any type: their tables and rows stay. Unused: a resource every connection
     * mapped onto the site's own type, products and product categories while their capability is
     * off, tags nothing links to. The Content Manager reads this at each request.
     */
    showUsedTypes(capabilities: CapabilitySettings) {
      if (fitting().length === 0) return;
      const contentTypes = allContentTypes(strapi);
      const served = RESOURCE_KINDS.filter(
        (kind) =>
          kind !== 'tag' &&
          (kind !== 'product' || capabilities.products) &&
          (kind !== 'productCategory' || capabilities.product_categories)
      );
      const unused = new Set(
        unusedPluginTypes(
          this.everyResource(served).map(({ resource }) => resource.uid),
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
     * Whether each connection's mapping fits the site's schemas. One that names a missing type or
     * attribute (the site renamed or removed it) takes that connection's contract routes out of
     * service with the reason, never the site nor another connection: Strapi's schema sync has
     * already applied the site's change by the time a plugin could object. A valid one says
     * once, at debug level, what is not stored (the start-up summary names where each resource
     * goes, the settings page the rest).
     */
    check(): void {
      const all = connections().list();
      for (const connection of all) {
        const { problems, resources } = this.resolve(connection);
        const several = all.length > 1;
        if (problems.length > 0) {
          getService(strapi, 'availability').outOfService(
            several ? `mapping:${connection.name}` : 'mapping',
            `${mappingOption(connection)} for ${PLUGIN_ID} in config/plugins does not match its content types: ${problems.join(' ')} The site's administrator must correct config/plugins (or the content types) and restart Strapi.`,
            'error',
            several ? connection.name : undefined
          );
          continue;
        }
        const where = several ? ` (connection "${connection.name}")` : '';
        for (const kind of RESOURCE_KINDS) {
          const { uid, unmapped, fields } = resources[kind];
          if (!uid.startsWith(`plugin::${PLUGIN_ID}.`)) {
            const skipped = unmapped.length > 0 ? `; not stored: ${unmapped.join(', ')}` : '';
            strapi.log.debug(`[${PLUGIN_ID}] ${kind}${where} is stored in ${uid}${skipped}`);
          }
          for (const [field, { attribute, zone }] of Object.entries(fields)) {
            if (zone)
              strapi.log.debug(
                `[${PLUGIN_ID}] ${kind}.${field}${where} goes into ${describeZone(attribute, zone)}`
              );
          }
        }
      }
    },
  };
};

/** Which option holds a connection's mapping, for the administrator who must correct it. */
const mappingOption = ({ name, overrides }: Connection) =>
  overrides.contentTypes
    ? `Connection "${name}"'s "contentTypes" mapping ("connections.${name}.contentTypes" over the site's "contentTypes")`
    : `The site's "contentTypes" mapping`;
