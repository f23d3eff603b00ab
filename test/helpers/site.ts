import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type { Core } from '@strapi/strapi';
import { createTestDatabase, type TestDatabase } from './databases';
import { signedHeaders, TEST_KEY } from './signing';
import { getService, type Services } from '../../server/src/plugin';

export const EXAMPLE_DIR = path.resolve(__dirname, '..', '..', 'example');
export const PREFIX = '/api/publish-bridge';

/** Fixed secrets and quiet defaults for every test site, in this process or in one of its own. */
export const TEST_ENV = {
  APP_KEYS: 'testKeyOne,testKeyTwo',
  API_TOKEN_SALT: 'test-api-token-salt',
  ADMIN_JWT_SECRET: 'test-admin-jwt-secret',
  TRANSFER_TOKEN_SALT: 'test-transfer-token-salt',
  JWT_SECRET: 'test-jwt-secret',
  ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdef',
  SERVE_ADMIN_PANEL: 'false',
  STRAPI_TELEMETRY_DISABLED: 'true',
  BROWSER: 'false',
  STRAPI_LOG_LEVEL: 'warn',
  PUBLISH_BRIDGE_DEMO_SEED: 'false',
  PUBLISH_BRIDGE_CONTENT_TYPES: 'plugin',
  // Products stay in the plugin's types, which a site uses for them only when it opts in.
  PUBLISH_BRIDGE_CAPABILITIES: 'products,product_categories',
};

export type Site = {
  strapi: Core.Strapi;
  baseUrl: string;
  database: TestDatabase;
  /** Sends a request signed as the publisher signs it; `body` is sent byte for byte. */
  send(
    method: string,
    pathUnderPrefix: string,
    body?: string | Buffer | object,
    options?: SendOptions
  ): Promise<Reply>;
  stop(): Promise<void>;
};

export type SendOptions = {
  headers?: Record<string, string>;
  key?: string;
  timestamp?: number;
  unsigned?: boolean;
};
export type Reply = { status: number; body: any; headers: Headers };

/**
 * Boots the example site in this process with the plugin loaded from its build, on a fresh
 * database, listening on a free port. `env` overrides the site's environment (undefined
 * unsets a variable) until `stop()`, which restores it: jest reuses a worker process for
 * the next test file, and a leaked PUBLISH_BRIDGE_TIMEZONE would change its results.
 * `beforeLoad` sees the instance before it registers and bootstraps, e.g. to watch the boot's log.
 */
export async function startSite(
  env: Record<string, string | undefined> = {},
  beforeLoad?: (strapi: Core.Strapi) => void
): Promise<Site> {
  const database = await createTestDatabase();
  const settings = { ...TEST_ENV, PUBLISH_BRIDGE_API_KEY: TEST_KEY, ...database.env, ...env };
  const previousEnv = Object.fromEntries(Object.keys(settings).map((name) => [name, process.env[name]]));
  applyEnv(settings);
  // Loaded here, not on import: files that only read this module's constants skip Strapi's load.
  const { createStrapi } = await import('@strapi/strapi');
  const created: Core.Strapi = createStrapi({ appDir: EXAMPLE_DIR, distDir: EXAMPLE_DIR, autoReload: false });
  beforeLoad?.(created);
  const strapi: Core.Strapi = await created.load();
  await strapi.server.mount();
  const httpServer = strapi.server.httpServer;
  // fetch (undici) drops idle sockets after 4 s; a server that drops them at 5 s (Node's default)
  // races it under load, and a request sent on a socket being closed fails with "other side closed".
  httpServer.keepAliveTimeout = 60_000;
  if (!httpServer.listening) await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  const { port } = httpServer.address() as AddressInfo;
  const baseUrl = `http://127.0.0.1:${port}`;

  return {
    strapi,
    baseUrl,
    database,
    async send(method, pathUnderPrefix, body, options = {}) {
      const raw =
        body === undefined
          ? ''
          : typeof body === 'string' || Buffer.isBuffer(body)
            ? body
            : JSON.stringify(body);
      const headers: Record<string, string> = {
        ...(raw.length > 0 ? { 'Content-Type': 'application/json' } : {}),
        ...(options.unsigned ? {} : signedHeaders(raw, { key: options.key, timestamp: options.timestamp })),
        ...options.headers,
      };
      const response = await fetch(`${baseUrl}${PREFIX}${pathUnderPrefix}`, {
        method,
        headers,
        body: raw.length > 0 ? raw : undefined,
      });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // Left as text so a test can show what came back.
      }
      return { status: response.status, body: parsed, headers: response.headers };
    },
    async stop() {
      await databaseWorkSettled(strapi);
      await strapi.destroy();
      await database.drop();
      applyEnv(previousEnv);
    },
  };
}

/**
 * Waits until the site's pool has had nothing in use or waiting for a few checks in a row, at most
 * five seconds. Strapi emits a document's events after its transaction commits, in a callback no
 * one awaits (document-service/events.ts): the last request's emit may still be reading the entry
 * when a test ends, and destroying the pool then aborts that read, an unhandled KnexTimeoutError
 * that fails the whole suite after its tests passed.
 */
async function databaseWorkSettled(strapi: Core.Strapi): Promise<void> {
  const pool = (strapi.db.connection as any).client.pool;
  const busy = () => pool.numUsed() + pool.numPendingAcquires() + pool.numPendingCreates() > 0;
  const giveUpAt = Date.now() + 5_000;
  for (let quietChecks = 0; quietChecks < 3 && Date.now() < giveUpAt; ) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    quietChecks = busy() ? 0 : quietChecks + 1;
  }
}

function applyEnv(values: Record<string, string | undefined>) {
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
}

export type UseSiteOptions = {
  /** Sees the instance before it registers and bootstraps, as `startSite`'s `beforeLoad`. */
  beforeLoad?: (strapi: Core.Strapi) => void;
};

/** A site that `useSite` starts and stops: each property reads the site its `beforeAll` started. */
export type UsedSite = Site & {
  /** The started site itself, for a test that keeps it beyond a getter's reach. */
  readonly site: Site;
};

/**
 * Starts a site (as `startSite`) before the tests of the enclosing `describe`, or of the file, and
 * stops it after them. Call it where the tests' block begins: hooks registered after it run after
 * the site has started, so they can log in or seed. The object it returns is usable as a `Site`
 * at once; its properties read the started site when a hook or a test runs.
 */
export function useSite(
  env: Record<string, string | undefined> = {},
  options: UseSiteOptions = {}
): UsedSite {
  let started: Site | undefined;
  beforeAll(async () => {
    started = await startSite(env, options.beforeLoad);
  });
  afterAll(async () => {
    await started?.stop();
    started = undefined;
  });
  const current = (): Site => {
    if (!started) throw new Error('The site is read outside the tests useSite started it for');
    return started;
  };
  return {
    get site() {
      return current();
    },
    get strapi() {
      return current().strapi;
    },
    get baseUrl() {
      return current().baseUrl;
    },
    get database() {
      return current().database;
    },
    send: (...args) => current().send(...args),
    stop: () => current().stop(),
  };
}

/** One of the plugin's services on a running site, typed as the plugin's `getService` types it. */
export const serviceOf = <Name extends keyof Services>(
  site: Pick<Site, 'strapi'>,
  name: Name
): Services[Name] => getService(site.strapi, name);
