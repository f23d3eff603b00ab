import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../constants';
import admin from './admin';
import contentApi from './content-api';

/** Content-API routers mount under Strapi's REST prefix, so the router takes the rest of the configured path. */
export function contentApiRouterPrefix(strapi: Core.Strapi): string {
  const restPrefix = (strapi.config.get('api.rest.prefix') as string | undefined) ?? '/api';
  const { prefix } = strapi.config.get(`plugin::${PLUGIN_ID}`) as { prefix: string };
  if (!prefix.startsWith(`${restPrefix}/`)) {
    throw new Error(
      `Invalid config for plugin "${PLUGIN_ID}": prefix "${prefix}" must be under Strapi's REST API prefix "${restPrefix}", e.g. "${restPrefix}/publish-bridge".`
    );
  }
  return prefix.slice(restPrefix.length);
}

/**
 * Gives the content-API router its prefix from the plugin config. Done in `register()`, before
 * Strapi mounts the routers: Strapi before 5.2x builds routers from plain objects only (no
 * router factories), so the router is an object whose prefix is filled in here.
 */
export function applyContentApiPrefix(strapi: Core.Strapi) {
  const routers = strapi.plugin(PLUGIN_ID).routes as unknown as Record<string, { prefix?: string }>;
  routers['content-api'].prefix = contentApiRouterPrefix(strapi);
}

export default { admin, 'content-api': contentApi };
