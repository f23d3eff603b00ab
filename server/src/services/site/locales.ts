import type { Core } from '@strapi/strapi';
import { PLUGIN_ID } from '../../constants';
import { ContractError } from '../../contract/errors';
import { RESOURCE_KINDS } from '../../mapping/catalogue';
import type { Resource } from '../../resources';
import { getService, pluginConfig } from '../../plugin';
import { contentTypeOf } from '../../database/schemas';

/** What the Document Service calls on one resource take: `{ locale }` for a type with i18n on, else nothing. */
export type LocaleScope = { locale?: string };

/**
 * The one locale the plugin writes, lists and deletes in a type with Strapi's i18n on: the
 * configured `locale`, else the site's default locale. Other locales belong to the editors.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /**
   * Says at boot what the first request would answer about a configured locale the site lacks.
   * A warning, not a stop: an administrator can add the locale in the admin panel, which only
   * runs once the site has started.
   */
  async warnIfMissing(): Promise<void> {
    const mapping = getService(strapi, 'mapping');
    for (const kind of RESOURCE_KINDS) {
      try {
        await this.scopeOf(mapping.resource(kind));
      } catch (error) {
        if (!(error instanceof ContractError)) throw error;
        strapi.log.warn(`[${PLUGIN_ID}] ${error.message}`);
        return;
      }
    }
  },

  /**
   * Types without i18n get `{}`: Strapi ignores a locale on them anyway, and they keep making the
   * calls they always made. Read at each use, not at boot: an administrator can change the
   * default locale, or add the configured one, while the site runs.
   */
  async scopeOf(resource: Resource): Promise<LocaleScope> {
    const i18n = strapi.plugin('i18n');
    if (!i18n?.service('content-types').isLocalizedContentType(contentTypeOf(strapi, resource.uid)))
      return {};
    const locales = i18n.service('locales');
    const { locale } = pluginConfig(strapi);
    if (!locale) return { locale: await locales.getDefaultLocale() };
    if (!(await locales.findByCode(locale))) {
      const known = ((await locales.find()) as Array<{ code: string }>).map(({ code }) => code).join(', ');
      throw new ContractError(
        500,
        `The locale "${locale}" set as "locale" for plugin "${PLUGIN_ID}" in config/plugins is not one of this site's locales (${known}). Add it in Strapi under Settings > Internationalization, or change "locale".`
      );
    }
    return { locale };
  },
});
