import type { Core } from '@strapi/strapi';
import type { PluginConfig } from '../../config';
import { connectionLocator, connectionsOf, type Connection } from '../../config/connections';
import { PLUGIN_ID } from '../../constants';
import { connectionInScope } from '../../utils/connection-scope';
import { canonicalPath } from '../../utils/prefix-path';

type Located = { connection: Connection; pathBelow: string };

/**
 * The site's connections as config lists them, and the one a request path belongs to. Built
 * again when `prefix` or `connections` is set anew (Strapi's config can be set at run time).
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  let resolvedConfig:
    | {
        prefix: string;
        options: PluginConfig['connections'];
        list: Connection[];
        locate: (path: string) => Located | undefined;
      }
    | undefined;

  function resolved() {
    const { prefix, connections: options } = strapi.config.get(`plugin::${PLUGIN_ID}`) as PluginConfig;
    if (resolvedConfig?.prefix !== prefix || resolvedConfig.options !== options) {
      const list = connectionsOf({ prefix, connections: options });
      resolvedConfig = { prefix, options, list, locate: connectionLocator(list) };
    }
    return resolvedConfig;
  }

  return {
    list: (): Connection[] => resolved().list,

    /** The connection whose base URL `path` lies under, read as broadly as Strapi's router reads it (utils/prefix-path). */
    locate: (path: string): Located | undefined => resolved().locate(canonicalPath(path)),

    /** The connection in scope; outside a request, the site's first (its only one, unless config lists several). */
    current: (): Connection => connectionInScope() ?? resolved().list[0],
  };
};
