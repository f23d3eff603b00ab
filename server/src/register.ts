import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from './constants';
import { createContractGate } from './middlewares/contract-gate';
import { applyContentApiRouters } from './routes';
import { holdContinueFor } from './utils/expect-continue';
import { getService } from './plugin';
import { inConnection } from './utils/connection-scope';
import { dropExpressionIndexesOnSqlite } from './database/indexes';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Here, so a bad prefix stops the boot with its message, and before Strapi mounts the routers.
  applyContentApiRouters(strapi);
  // Said once at start-up; a weak key stops the plugin's routes, never the site.
  for (const connection of getService(strapi, 'connections').list())
    inConnection(connection, () => getService(strapi, 'settings').checkEnvironmentKey());
  // The settings page's choices refine this in bootstrap, once the database can be read.
  getService(strapi, 'mapping').check();
  getService(strapi, 'mapping').showUsedTypes(
    getService(strapi, 'settings').configuredCapabilitiesOfAnyConnection()
  );
  // Middlewares added in register() run before the app's own, `strapi::body` included: the
  // only point where the exact request bytes are still unread.
  strapi.server.use(createContractGate(strapi));
  holdContinueFor(strapi.server.httpServer);
  // Before Strapi's schema sync, which may rebuild the tables these indexes are on.
  strapi.hook('strapi::content-types.beforeSync').register(async () => {
    const dropped = await dropExpressionIndexesOnSqlite(strapi);
    if (dropped.length > 0)
      strapi.log.info(
        `[${PLUGIN_ID}] dropped ${dropped.length} index(es) on LOWER(name) that would stop a table rebuild`
      );
  });
};
