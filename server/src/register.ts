import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from './constants';
import { createContractGate } from './middlewares/contract-gate';
import { contentApiRouterPrefix } from './routes';

export default ({ strapi }: { strapi: Core.Strapi }) => {
  // Checked here so a bad prefix stops the boot with its message, not at route registration.
  contentApiRouterPrefix(strapi);
  strapi.plugin(PLUGIN_ID).service('mapping').assertValid();
  // Middlewares added in register() run before the app's own, `strapi::body` included: the
  // only point where the exact request bytes are still unread.
  strapi.server.use(createContractGate(strapi));
};
