import type { Core } from '@strapi/strapi';
import { API_KEY_ENV, MIN_KEY_LENGTH, PLUGIN_ID } from './constants';
import { createContractGate } from './middlewares/contract-gate';
import { applyContentApiPrefix } from './routes';
import { holdContinueFor } from './utils/expect-continue';
import { getService } from './plugin';
import { dropExpressionIndexesOnSqlite } from './database/indexes';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Here, so a bad prefix stops the boot with its message, and before Strapi mounts the routers.
  applyContentApiPrefix(strapi);
  assertEnvironmentKeyLength();
  if (getService(strapi, 'mapping').check()) getService(strapi, 'mapping').hideUnusedTypes();
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

/** A weak key in the environment would protect every route with it; refuse to start instead. */
function assertEnvironmentKeyLength() {
  const key = process.env[API_KEY_ENV];
  if (key && key.length < MIN_KEY_LENGTH) {
    throw new Error(
      `${API_KEY_ENV} is ${key.length} characters long; a connection key needs at least ${MIN_KEY_LENGTH}. Copy the whole key the publisher generated, or unset ${API_KEY_ENV} to paste the key in Settings > Publish Bridge.`
    );
  }
}
