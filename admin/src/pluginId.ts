export const PLUGIN_ID = 'publish-bridge';
