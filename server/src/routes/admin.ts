/** Admin API of the settings page, mounted by Strapi under `/publish-bridge`. */
const guardedBy = (action: 'settings.read' | 'settings.update' | 'logs.read') => ({
  policies: [
    'admin::isAuthenticatedAdmin',
    { name: 'admin::hasPermissions', config: { actions: [`plugin::publish-bridge.${action}`] } },
  ],
});

/** A route about one connection: `?connection=name` chooses which (middlewares/admin-connection). */
const forOneConnection = (action: 'settings.read' | 'settings.update' | 'logs.read') => ({
  ...guardedBy(action),
  middlewares: ['plugin::publish-bridge.admin-connection'],
});

export default {
  type: 'admin',
  routes: [
    {
      method: 'GET',
      path: '/settings',
      handler: 'admin-settings.find',
      config: forOneConnection('settings.read'),
    },
    {
      method: 'PUT',
      path: '/settings',
      handler: 'admin-settings.update',
      config: forOneConnection('settings.update'),
    },
    /*
     * settings.read is enough: the test sends the connection key only to the base URL that
     * server.url or an admin with settings.update configured, and only after a keyless probe
     * proved that it leads back to this site (services/connection-test). A reader learns whether
     * the connection works and what the handshake declared, never the key or another server's
     * answer, and cannot choose where it goes (not through Host or X-Forwarded-Host either).
     */
    {
      method: 'POST',
      path: '/connection-test',
      handler: 'admin-connection-test.run',
      config: forOneConnection('settings.read'),
    },
    { method: 'GET', path: '/activity', handler: 'admin-activity.find', config: guardedBy('logs.read') },
    /* Guarded like the logs here; the controller also asks the Content Manager's permission on the revision's type. */
    { method: 'GET', path: '/revisions', handler: 'admin-revisions.find', config: guardedBy('logs.read') },
    { method: 'GET', path: '/entries', handler: 'admin-revisions.entry', config: guardedBy('logs.read') },
    /*
     * Any admin: the controller allows it only to whoever may publish the entry in the Content
     * Manager, the permission that decides when an entry is published.
     */
    {
      method: 'DELETE',
      path: '/entries/schedule',
      handler: 'admin-revisions.cancelSchedule',
      config: { policies: ['admin::isAuthenticatedAdmin'] },
    },
    {
      method: 'POST',
      path: '/revisions/:id/restore',
      handler: 'admin-revisions.restore',
      config: guardedBy('logs.read'),
    },
    {
      method: 'GET',
      path: '/platform-logs',
      handler: 'admin-platform-logs.find',
      config: forOneConnection('logs.read'),
    },
  ],
};
