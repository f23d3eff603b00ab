import type { Core } from '@strapi/strapi';
import { CAPABILITIES } from '../../contract/capabilities';
import type { BaseUrlSource, ConnectionSummary, SettingsOverview } from '#contract/admin/settings';
import { getService, pluginConfig } from '../../plugin';
import { inConnection } from '../../utils/connection-scope';
import { joinPrefix } from './settings';

/** What the settings page may include beyond the settings themselves. */
export type OverviewOptions = { requestOrigin: string; includeLastRequest: boolean };

/**
 * The admin settings page's data, composed from the settings store, the activity log and the
 * mapping; kept apart from the settings service so that the store knows nothing of the page.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const settings = () => getService(strapi, 'settings');

  /** The configured base URL, or else a guess from the address this page was opened at. */
  async function displayedBaseUrl(requestOrigin: string): Promise<{ url: string; source: BaseUrlSource }> {
    return (
      (await settings().configuredBaseUrl()) ?? {
        url: joinPrefix(requestOrigin, getService(strapi, 'connections').current().path),
        source: 'request',
      }
    );
  }

  /**
   * The handshake's time is stored as it is answered, its log row in a batch moments later: the
   * queue is written first, so that right after Test connection both name the same handshake.
   */
  async function lastAnsweredRequest() {
    await getService(strapi, 'activity-writer').writeAnswered();
    return getService(strapi, 'activity').latest();
  }

  /** Every connection in a line: its base URL, whether it has a key, its locale and last handshake. */
  function connectionSummaries(requestOrigin: string): Promise<ConnectionSummary[]> {
    return Promise.all(
      getService(strapi, 'connections')
        .list()
        .map((connection) =>
          inConnection(connection, async () => {
            const [description, status, baseUrl] = await Promise.all([
              settings().describe(),
              settings().status(),
              displayedBaseUrl(requestOrigin),
            ]);
            return {
              name: connection.name,
              baseUrl: baseUrl.url,
              keyConfigured: description.connectionKey.configured,
              locale: pluginConfig(strapi).locale,
              lastHandshakeAt: status.lastHandshakeAt,
            };
          })
        )
    );
  }

  return {
    /**
     * Masked keys, the base URL, capabilities, and the last exchanges. The
     * last request is an activity entry: only for admins who may read logs.
     */
    async overview({ requestOrigin, includeLastRequest }: OverviewOptions): Promise<SettingsOverview> {
      const [description, capabilities, status, lastRequest, baseUrl] = await Promise.all([
        settings().describe(),
        settings().capabilities(),
        settings().status(),
        includeLastRequest ? lastAnsweredRequest() : undefined,
        displayedBaseUrl(requestOrigin),
      ]);
      const byDefault = settings().configuredCapabilities();
      const support = getService(strapi, 'mapping').capabilitySupport();
      return {
        ...description,
        connection: getService(strapi, 'connections').current().name,
        connections: await connectionSummaries(requestOrigin),
        baseUrl: baseUrl.url,
        baseUrlSource: baseUrl.source,
        capabilities: CAPABILITIES.map((name) => ({
          name,
          enabled: capabilities[name],
          enabledByDefault: byDefault[name],
          available: support[name].servable,
          unavailableReason: support[name].reason,
        })),
        status: {
          lastHandshakeAt: status.lastHandshakeAt,
          lastRequest,
          outOfService: getService(strapi, 'availability').problem(),
        },
        storage: getService(strapi, 'mapping').describe(),
      };
    },
  };
};
