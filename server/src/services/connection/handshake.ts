import type { Core } from '@strapi/strapi';
import { enabledCapabilities } from '../../contract/capabilities';
import type { HandshakeResponse } from '../../contract/responses';
import { getService, pluginConfig } from '../../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** `origin` is where this request reached the site: the URL to announce when none is configured. */
  async answer(origin: string): Promise<HandshakeResponse> {
    const settings = getService(strapi, 'settings');
    const { site } = pluginConfig(strapi);
    const [capabilities] = await Promise.all([settings.capabilities(), settings.recordHandshake()]);
    return {
      ok: true,
      contract: 'v1',
      version: '1.0',
      site: {
        name: site.name ?? (strapi.config.get('info.name') as string | undefined) ?? 'Strapi',
        url: site.url || (strapi.config.get('server.url') as string | undefined) || origin,
      },
      capabilities: enabledCapabilities(capabilities),
    };
  },
});
