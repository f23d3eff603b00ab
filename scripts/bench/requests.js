'use strict';

/**
 * What the bench and its statement count (bench-statements.js) share: the server's environment,
 * the signed and native requests of both sides, and the checks run before measuring.
 */

const { isDeepStrictEqual } = require('node:util');
const { AUTHORS, CATEGORIES, HTML, createBody, revisionBlock, revisionHtml, sign } = require('./workload');

/** @typedef {import('./measure').Request} Request */
/**
 * A reply as fetch gives it, the body parsed when it is JSON; `any`: each caller reads the fields
 * of the endpoint it called, and expectStatus has already checked the status.
 * @typedef {{ status: number; body: any }} Reply
 */

const PREFIX = '/api/publish-bridge';

const SECRETS = {
  APP_KEYS: 'benchKeyOne,benchKeyTwo',
  API_TOKEN_SALT: 'bench-api-token-salt',
  ADMIN_JWT_SECRET: 'bench-admin-jwt-secret',
  TRANSFER_TOKEN_SALT: 'bench-transfer-token-salt',
  JWT_SECRET: 'bench-jwt-secret',
  ENCRYPTION_KEY: 'bench-encryption-key-0123456789abcdef',
};

class BenchError extends Error {}

/**
 * The example's environment for a bench server: production, no admin panel, the plugin with `key`
 * on a site of `siteConnections` connections (--site-connections: `default`, at the prefix with
 * `key`, sets an option of its own, so each request finds its connection and merges its options;
 * `c2`… sit beside it; one is a site without `connections`).
 * @param {NodeJS.ProcessEnv} databaseEnv
 * @param {string} key
 * @param {number} [siteConnections]
 * @returns {NodeJS.ProcessEnv}
 */
const benchEnv = (databaseEnv, key, siteConnections = 1) => ({
  ...process.env,
  ...SECRETS,
  ...databaseEnv,
  NODE_ENV: 'production',
  SERVE_ADMIN_PANEL: 'false',
  STRAPI_TELEMETRY_DISABLED: 'true',
  STRAPI_LOG_LEVEL: 'warn',
  BROWSER: 'false',
  PUBLISH_BRIDGE_DEMO_SEED: 'false',
  PUBLISH_BRIDGE_CONTENT_TYPES: 'site',
  PUBLISH_BRIDGE_API_KEY: key,
  // I's image host listens on loopback, which the download guard refuses unless allowed.
  PUBLISH_BRIDGE_MEDIA_ALLOWED_HOSTS: '127.0.0.1',
  ...(siteConnections > 1
    ? {
        PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({
          default: { timezone: 'UTC' },
          ...Object.fromEntries(
            Array.from({ length: siteConnections - 1 }, (_, index) => [`c${index + 2}`, {}])
          ),
        }),
      }
    : {}),
});

/**
 * @param {string} url
 * @param {RequestInit} init
 * @returns {Promise<Reply>}
 */
async function fetchJson(url, init) {
  const response = await fetch(url, init);
  const text = await response.text();
  /** @type {unknown} */
  let body = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Kept as text for the error message.
  }
  return { status: response.status, body };
}

/**
 * Requests of both sides, as autocannon and fetch send them: the plugin's signed with `key`.
 * @param {string} apiToken
 * @param {string} key
 */
function clients(apiToken, key) {
  const json = (/** @type {unknown} */ value) => JSON.stringify(value);
  return {
    /**
     * @param {string} method
     * @param {string} pathUnderPrefix
     * @param {unknown} [body]
     * @returns {Request}
     */
    plugin(method, pathUnderPrefix, body) {
      const raw = body === undefined ? '' : json(body);
      return {
        method,
        path: `${PREFIX}${pathUnderPrefix}`,
        headers: { ...(raw ? { 'content-type': 'application/json' } : {}), ...sign(key, raw) },
        body: raw || undefined,
      };
    },
    /**
     * @param {string} method
     * @param {string} pathUnderPrefix
     * @param {unknown} body
     * @returns {Request}
     */
    forged(method, pathUnderPrefix, body) {
      const raw = json(body);
      return {
        method,
        path: `${PREFIX}${pathUnderPrefix}`,
        headers: {
          'content-type': 'application/json',
          ...sign(key, raw),
          'x-publisher-signature': '0'.repeat(64),
        },
        body: raw,
      };
    },
    /**
     * @param {string} method
     * @param {string} apiPath
     * @param {unknown} [data]
     * @returns {Request}
     */
    native(method, apiPath, data) {
      return {
        method,
        path: apiPath,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${apiToken}` },
        body: data === undefined ? undefined : json({ data }),
      };
    },
  };
}

/** @typedef {ReturnType<typeof clients>} Clients */

/**
 * @param {string} baseUrl
 * @param {Request} request
 */
const send = (baseUrl, request) =>
  fetchJson(`${baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    body: request.body,
  });

/**
 * @param {Reply} reply
 * @param {number[]} statuses
 * @param {string} what
 */
function expectStatus(reply, statuses, what) {
  if (!statuses.includes(reply.status)) {
    throw new BenchError(`${what} answered ${reply.status}: ${JSON.stringify(reply.body).slice(0, 800)}`);
  }
  return reply.body;
}

/**
 * Checks that both sides store the same thing before timing them: the plugin's Blocks for the
 * bench HTML are read back and become the native side's content.
 * @param {string} baseUrl
 * @param {Clients} client
 */
async function probe(baseUrl, client) {
  const pluginReply = await send(
    baseUrl,
    client.plugin('POST', '/posts', { ...createBody('probe', 0), content: revisionHtml(0) + HTML })
  );
  const { id } = expectStatus(pluginReply, [200], 'The probe publish');
  const stored = expectStatus(
    await send(baseUrl, client.native('GET', `/api/articles/${id}`)),
    [200],
    'Reading the probe post back'
  ).data;
  const [first, ...blocks] = stored.content;
  if (!isDeepStrictEqual(first, revisionBlock(0))) {
    throw new BenchError(
      `The plugin converted <p>Revision 0</p> to ${JSON.stringify(first)}; update bodies would differ.`
    );
  }
  const nativeReply = await send(
    baseUrl,
    client.native('POST', '/api/articles', {
      title: 'Bench native probe',
      slug: 'bench-native-probe',
      content: blocks,
    })
  );
  const native = expectStatus(nativeReply, [201], 'The native probe create').data;
  if (!isDeepStrictEqual(native.content, blocks) || !native.publishedAt || !stored.publishedAt) {
    throw new BenchError('The native probe did not store the same published Blocks as the plugin.');
  }
  return { blocks, contentBytes: Buffer.byteLength(HTML) };
}

/**
 * The categories and authors B's posts refer to, created through the REST API so the native
 * side can relate to them by documentId; the plugin's publishes find the same entries by name.
 * @param {string} baseUrl
 * @param {Clients} client
 */
async function nativeRelated(baseUrl, client) {
  /** @type {(apiPath: string, data: { name: string }) => Promise<string>} */
  const create = async (apiPath, data) =>
    expectStatus(await send(baseUrl, client.native('POST', apiPath, data)), [201], `Creating ${data.name}`)
      .data.documentId;
  /** @type {Record<string, string>} */
  const categoryIds = {};
  for (const name of CATEGORIES) categoryIds[name] = await create('/api/categories', { name });
  /** @type {Record<string, string>} */
  const authorIds = {};
  for (const name of AUTHORS) authorIds[name] = await create('/api/authors', { name });
  return { categoryIds, authorIds };
}

module.exports = { BenchError, PREFIX, benchEnv, clients, expectStatus, nativeRelated, probe, send };
