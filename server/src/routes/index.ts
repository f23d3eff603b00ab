import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import { connectionsOf, DEFAULT_CONNECTION, type Connection } from '../config/connections';
import type { PluginConfig } from '../config';
import admin from './admin';
import contentApi from './content-api';

type ContentApiRouter = typeof contentApi & { prefix?: string };

/** Content-API routers mount under Strapi's REST prefix, so a router takes the rest of its connection's path. */
function routerPrefix(strapi: Core.Strapi, { name, path }: Connection): string {
  const restPrefix = (strapi.config.get('api.rest.prefix') as string | undefined) ?? '/api';
  if (!path.startsWith(`${restPrefix}/`)) {
    const option =
      name === DEFAULT_CONNECTION && path === pluginOptions(strapi).prefix
        ? 'prefix'
        : `connections.${name}.path`;
    throw new Error(
      `Invalid config for plugin "${PLUGIN_ID}": ${option} "${path}" must be under Strapi's REST API prefix "${restPrefix}", e.g. "${restPrefix}/publish-bridge".`
    );
  }
  return path.slice(restPrefix.length);
}

const pluginOptions = (strapi: Core.Strapi) => strapi.config.get(`plugin::${PLUGIN_ID}`) as PluginConfig;

/**
 * One content-API router per connection, each at its connection's path, all serving the same
 * routes: the contract gate has already chosen the connection by the path when a route runs.
 * Done in `register()`, before Strapi mounts the routers: Strapi before 5.2x builds routers from
 * plain objects only (no router factories), so these are objects whose prefix is filled in here.
 */
export function applyContentApiRouters(strapi: Core.Strapi) {
  const routers = strapi.plugin(PLUGIN_ID).routes as unknown as Record<string, ContentApiRouter>;
  const template = routers['content-api'];
  connectionsOf(pluginOptions(strapi)).forEach((connection, index) => {
    const prefix = routerPrefix(strapi, connection);
    if (index === 0) template.prefix = prefix;
    // Strapi writes each route's scope and info into the route object: every router its own copies.
    else routers[`content-api-${connection.name}`] = { ...structuredClone(template), prefix };
  });
}

export default { admin, 'content-api': contentApi };
