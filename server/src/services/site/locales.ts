import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import { ContractError } from '../../contract/errors';
import { RESOURCE_KINDS } from '../../mapping/catalogue';
import type { Resource } from '../../resources';
import { getService, pluginConfig } from '../../plugin';
import { contentTypeOf } from '../../database/schemas';
import { inConnection } from '../../utils/connection-scope';

/** What the Document Service calls on one resource take: `{ locale }` for a type with i18n on, else nothing. */
export type LocaleScope = { locale?: string };

/**
 * The one locale the plugin writes, lists and deletes in a type with Strapi's i18n on: the
 * connection's `locale`, else the top-level one, else the site's default locale. Other locales
 * belong to the editors, or to other connections.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const connections = () => getService(strapi, 'connections');
  const isLocalized = (resource: Resource) =>
    Boolean(
      strapi
        .plugin('i18n')
        ?.service('content-types')
        .isLocalizedContentType(contentTypeOf(strapi, resource.uid))
    );

  /** Where the locale in force is set: a connection's own, or the top-level option. */
  const localeOption = () => {
    const { name, overrides } = connections().current();
    return overrides.locale ? `"connections.${name}.locale"` : '"locale"';
  };

  /**
   * Says at boot, for each connection, what its first request would answer about a configured
   * locale the site lacks, and that a locale set where no mapped type has i18n changes nothing.
   * Warnings, not a stop: an administrator can add the locale in the admin panel, which only
   * runs once the site has started.
   */
  async function warnIfMissingHere(): Promise<void> {
    const mapping = getService(strapi, 'mapping');
    const resources = RESOURCE_KINDS.map((kind) => mapping.resource(kind));
    const { locale } = pluginConfig(strapi);
    if (locale && !resources.some(isLocalized)) {
      strapi.log.warn(
        `[${PLUGIN_ID}] ${localeOption()} is "${locale}", but none of the types the plugin writes has Strapi's i18n on, so it changes nothing. Turn on i18n for the type, or remove the option.`
      );
      return;
    }
    for (const resource of resources) {
      try {
        await scopeOf(resource);
      } catch (error) {
        if (!(error instanceof ContractError)) throw error;
        strapi.log.warn(`[${PLUGIN_ID}] ${error.message}`);
        return;
      }
    }
  }

  /**
   * Types without i18n get `{}`: Strapi ignores a locale on them anyway, and they keep making the
   * calls they always made. Read at each use, not at boot: an administrator can change the
   * default locale, or add the configured one, while the site runs.
   */
  async function scopeOf(resource: Resource): Promise<LocaleScope> {
    if (!isLocalized(resource)) return {};
    const locales = strapi.plugin('i18n').service('locales');
    const { locale } = pluginConfig(strapi);
    if (!locale) return { locale: await locales.getDefaultLocale() };
    if (!(await locales.findByCode(locale))) {
      const known = ((await locales.find()) as Array<{ code: string }>).map(({ code }) => code).join(', ');
      throw new ContractError(
        500,
        `The locale "${locale}" set as ${localeOption()} for plugin "${PLUGIN_ID}" in config/plugins is not one of this site's locales (${known}). Add it in Strapi under Settings > Internationalization, or change ${localeOption()}.`
      );
    }
    return { locale };
  }

  return {
    async warnIfMissing(): Promise<void> {
      for (const connection of getService(strapi, 'mapping').fittingConnections())
        await inConnection(connection, warnIfMissingHere);
    },
    scopeOf,
  };
};
