'use strict';

const http = require('node:http');

const LOGS_PATH = '/back/integrations/platform/logs';

/**
 * Stands in for the publishing platform's delivery-log endpoint (contract section 2.10), the
 * one part of the flow outside this project. `answer` switches what it says next.
 */
async function startPlatformStub() {
  const key = 'e2e_platform_log_key_4e1d9a';
  /** @type {{ entries: unknown[]; answer: string }} */
  const state = { entries: [], answer: 'ok' };
  const server = http.createServer((req, res) => {
    const json = (/** @type {number} */ status, /** @type {unknown} */ body) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url !== LOGS_PATH) return json(404, { error: 'Not found' });
    if (state.answer === 'unauthorized' || req.headers['x-api-key'] !== key) {
      return json(401, { error: 'Invalid API key' });
    }
    json(200, { status: 200, data: state.entries });
  });
  await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
  // Listening on an IP address and port: the address is an AddressInfo, not a pipe's name.
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}`,
    key,
    setEntries: (/** @type {unknown[]} */ entries) => (state.entries = entries),
    answer: (/** @type {'ok' | 'unauthorized'} */ mode) => (state.answer = mode),
    close: () => /** @type {Promise<void>} */ (new Promise((resolve) => server.close(() => resolve()))),
  };
}

module.exports = { startPlatformStub };
