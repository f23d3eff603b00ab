import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { getService } from '../plugin';
import { inConnection } from '../utils/connection-scope';

/**
 * Serves a settings-page request for the connection its `?connection=` names (config
 * `connections`), so the key, capabilities, platform and status it reads or changes are that
 * connection's; without it, the site's first connection (its only one, unless config lists several).
 */
export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) =>
  async function inRequestedConnection(ctx: Context, next: Next) {
    const name = ctx.query.connection;
    if (name === undefined) return next();
    const connections = getService(strapi, 'connections').list();
    const connection = connections.find((candidate) => candidate.name === name);
    if (!connection) {
      const names = connections.map((candidate) => `"${candidate.name}"`).join(', ');
      return ctx.badRequest(
        `This site has no connection named ${JSON.stringify(name)}; its connections: ${names}.`
      );
    }
    return inConnection(connection, next);
  };
