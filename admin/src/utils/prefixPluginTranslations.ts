/** Strapi's admin keeps every plugin's messages in one dictionary, so each key carries the plugin id. */
export const prefixPluginTranslations = (translations: Record<string, string>, pluginId: string) =>
  Object.fromEntries(Object.entries(translations).map(([key, value]) => [`${pluginId}.${key}`, value]));
