/**
 * Boots the scratch app this file was copied into, as a separate Node process, and prints
 * one JSON line: the port it listens on and where the plugin's server code was loaded from.
 * Run with --preserve-symlinks: the scratch app's node_modules entries are symlinks into the
 * repository's node_modules, and Strapi finds installed plugins from its own location.
 */
const path = require('node:path');
const { createStrapi } = require('@strapi/strapi');

const appDir = __dirname;

async function main() {
  const strapi = await createStrapi({ appDir, distDir: appDir, autoReload: false }).load();
  await strapi.server.mount();
  const { httpServer } = strapi.server;
  if (!httpServer.listening) await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', resolve));

  const serverEntries = Object.keys(require.cache).filter((file) =>
    /publish-bridge.*[\\/]dist[\\/]server[\\/]index\.js$/.test(file)
  );
  const report = {
    port: httpServer.address().port,
    pluginLoaded: Boolean(strapi.plugin('publish-bridge')),
    postTypeRegistered: Boolean(strapi.contentType('plugin::publish-bridge.post')),
    serverEntries: serverEntries.map((file) => path.relative(appDir, file)),
  };
  process.stdout.write(`${JSON.stringify(report)}\n`);

  const stop = async () => {
    await strapi.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
