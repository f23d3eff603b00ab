'use strict';

/**
 * Scenario I's image host: a publisher's CDN on loopback that answers every image after a fixed
 * delay, as a slow host far away does. Every path gets the same small PNG (made once with the
 * sharp that Strapi's upload plugin uses), so each URL in a post is a download of its own.
 */

const http = require('node:http');
const path = require('node:path');

const EXAMPLE_DIR = path.resolve(__dirname, '../../example');

async function startImageHost({ delayMs }) {
  const sharp = require(require.resolve('sharp', { paths: [EXAMPLE_DIR] }));
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#6a8caf' } })
    .png()
    .toBuffer();
  let served = 0;
  const server = http.createServer((request, response) => {
    setTimeout(() => {
      served += 1;
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length });
      response.end(png);
    }, delayMs);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    served: () => served,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

module.exports = { startImageHost };
