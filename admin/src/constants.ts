import { PLUGIN_ID } from './pluginId';

const permission = (uid: string) => [{ action: `plugin::${PLUGIN_ID}.${uid}`, subject: null }];

/** The actions the server registers in bootstrap(); the page checks them as the admin API does. */
export const PERMISSIONS = {
  read: permission('settings.read'),
  update: permission('settings.update'),
  logs: permission('logs.read'),
};
