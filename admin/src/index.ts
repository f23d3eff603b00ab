import type { StrapiApp } from '@strapi/strapi/admin';
import { EntryPanel } from './components/EntryPanel';
import { PERMISSIONS } from './constants';
import { PLUGIN_ID } from './pluginId';
import { prefixPluginTranslations } from './utils/prefixPluginTranslations';

type ContentManagerApis = { addEditViewSidePanel(panels: Array<typeof EntryPanel>): void };

export default {
  register(app: StrapiApp) {
    app.registerPlugin({ id: PLUGIN_ID, name: 'Publish Bridge' });
    app.addSettingsLink('global', {
      id: PLUGIN_ID,
      to: PLUGIN_ID,
      intlLabel: { id: `${PLUGIN_ID}.plugin.name`, defaultMessage: 'Publish Bridge' },
      permissions: PERMISSIONS.read,
      Component: () =>
        import('./pages/SettingsPage').then((module) => ({ default: module.ProtectedSettingsPage })),
    });
  },

  /** The side panel on the Content Manager's edit view of the entries the plugin manages. */
  bootstrap(app: StrapiApp) {
    // Strapi types every plugin's apis as unknown; this is the Content Manager's side-panel API.
    const contentManager = app.getPlugin('content-manager').apis as ContentManagerApis;
    contentManager.addEditViewSidePanel([EntryPanel]);
  },

  async registerTrads({ locales }: { locales: string[] }) {
    return Promise.all(
      locales.map(async (locale) => {
        try {
          const { default: data } = await import(`./translations/${locale}.json`);
          return { data: prefixPluginTranslations(data, PLUGIN_ID), locale };
        } catch {
          return { data: {}, locale };
        }
      })
    );
  },
};
