/**
 * Strapi's Preview, only when PREVIEW_URL names the frontend: the handler is the shape Strapi's
 * documentation gives (it reads the entry to build the frontend's draft route), so the preview
 * test sees what a real site's handler does, and every other test boots without Preview.
 */
const preview = (base) => ({
  enabled: true,
  config: {
    allowedOrigins: [new URL(base).origin],
    async handler(uid, { documentId, locale, status }) {
      const entry = await strapi.documents(uid).findOne({ documentId, locale, status });
      const query = { uid, documentId, status, slug: entry?.slug ?? '', ...(locale ? { locale } : {}) };
      return `${base}/api/preview?${new URLSearchParams(query)}`;
    },
  },
});

module.exports = ({ env }) => ({
  // Tests boot without the admin build; the demo and the browser tests serve it.
  serveAdminPanel: env.bool('SERVE_ADMIN_PANEL', true),
  auth: {
    secret: env('ADMIN_JWT_SECRET'),
  },
  apiToken: {
    salt: env('API_TOKEN_SALT'),
  },
  transfer: {
    token: {
      salt: env('TRANSFER_TOKEN_SALT'),
    },
  },
  secrets: {
    encryptionKey: env('ENCRYPTION_KEY'),
  },
  ...(env('PREVIEW_URL') ? { preview: preview(env('PREVIEW_URL')) } : {}),
});
