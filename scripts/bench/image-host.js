'use strict';

/**
 * Scenario I's image host: a publisher's CDN on loopback that answers every image after a fixed
 * delay, as a slow host far away does. Every path gets the same small PNG (made once with the
 * sharp that Strapi's upload plugin uses), so each URL in a post is a download of its own.
 */

const http = require('node:http');
const path = require('node:path');

const EXAMPLE_DIR = path.resolve(__dirname, '../../example');

/** @param {{ delayMs: number }} options */
async function startImageHost({ delayMs }) {
  const sharp = require(require.resolve('sharp', { paths: [EXAMPLE_DIR] }));
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#6a8caf' } })
    .png()
    .toBuffer();
  let served = 0;
  const server = http.createServer((_request, response) => {
    setTimeout(() => {
      served += 1;
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      response.end(png);
    }, delayMs);
  });
  await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
  // Listening on an IP address and port: the address is an AddressInfo, not a pipe's name.
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    served: () => served,
    close: () =>
      /** @type {Promise<void>} */ (
        new Promise((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        })
      ),
  };
}

module.exports = { startImageHost };
