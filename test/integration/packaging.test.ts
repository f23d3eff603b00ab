import fs from 'node:fs';
import path from 'node:path';
import { readmeBlock } from '../../scripts/lib/readme-blocks.js';
import { testDatabaseClient } from '../helpers/databases';
import { signedHeaders, TEST_KEY } from '../helpers/signing';
import { PREFIX } from '../helpers/site';
import {
  bootScratchApp,
  createScratchApp,
  makeWorkDir,
  packRepository,
  ROOT,
  typeCheckInSite,
  type BootedApp,
  type PackedTarball,
} from '../packaging/scratch-app';

const SECRETS = {
  APP_KEYS: 'packKeyOne,packKeyTwo',
  API_TOKEN_SALT: 'pack-api-token-salt',
  ADMIN_JWT_SECRET: 'pack-admin-jwt-secret',
  TRANSFER_TOKEN_SALT: 'pack-transfer-token-salt',
  JWT_SECRET: 'pack-jwt-secret',
  ENCRYPTION_KEY: 'pack-encryption-key-0123456789abcdef',
  SERVE_ADMIN_PANEL: 'false',
  STRAPI_TELEMETRY_DISABLED: 'true',
  BROWSER: 'false',
  STRAPI_LOG_LEVEL: 'warn',
  DATABASE_CLIENT: 'sqlite',
  DATABASE_FILENAME: '.tmp/packaging.db',
  PUBLISH_BRIDGE_API_KEY: TEST_KEY,
  PUBLISH_BRIDGE_DEMO_SEED: 'false',
};

/**
 * The README's typed `'publish-bridge'` keys, each in the config/plugins.ts a TypeScript site ends
 * up with: the README's import line at the top, the key in the object the file returns.
 */
function readmeTypedPluginsConfigs(): string[] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const importLine = readmeBlock('plugins-import', readme);
  const snippets = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code]) => code);
  return snippets
    .filter((code) => code.includes('satisfies PublishBridgeConfig'))
    .map((key) => `${importLine}\n\nexport default () => ({\n${key}});\n`);
}

// Packaging does not depend on the database: it runs once, in the SQLite pass of the matrix.
const describePackaging = testDatabaseClient() === 'sqlite' ? describe : describe.skip;

describePackaging(
  'the npm package installed into a fresh Strapi app (SQLite pass only: packaging does not depend on the database)',
  () => {
    let workDir: string;
    let tarball: PackedTarball;
    let appDir: string;
    let app: BootedApp;

    beforeAll(async () => {
      workDir = makeWorkDir();
      tarball = packRepository(workDir);
      appDir = createScratchApp(workDir, tarball.file);
      app = await bootScratchApp(appDir, SECRETS);
    });

    afterAll(async () => {
      await app?.stop();
      if (workDir) fs.rmSync(workDir, { recursive: true, force: true });
    });

    const send = (path: string, body: string) =>
      fetch(`http://127.0.0.1:${app.report.port}${PREFIX}${path}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...signedHeaders(body) },
        body,
      });

    it('ships the build, the entry points, the licence and the changelog, not the sources or the example', () => {
      expect(tarball.files).toEqual(
        expect.arrayContaining([
          'package.json',
          'LICENSE',
          'CHANGELOG.md',
          'strapi-server.js',
          'dist/server/index.js',
          'dist/admin/index.js',
        ])
      );
      expect(tarball.files.filter((file) => /^(server|admin|test|example|scripts)\//.test(file))).toEqual([]);
    });

    it('is loaded from the installed tarball, enabled by package name', () => {
      expect(app.report.pluginLoaded).toBe(true);
      expect(app.report.postTypeRegistered).toBe(true);
      expect(app.report.serverEntries).toEqual([
        'node_modules/strapi-plugin-publish-bridge/dist/server/index.js',
      ]);
    });

    it("type-checks the README's typed config/plugins.ts against the installed types, and refuses a misspelt option", () => {
      const typed = readmeTypedPluginsConfigs();
      expect(typed.length).toBeGreaterThanOrEqual(2);
      const misspelt = typed[0].replace('urlTemplates:', 'urlTemplate:');
      expect(misspelt).not.toBe(typed[0]);
      const files = Object.fromEntries(typed.map((code, index) => [`readme-${index + 1}.ts`, code]));
      // One compiler run for all files: loading Strapi's types is most of its cost.
      const { status, output } = typeCheckInSite(workDir, appDir, { ...files, 'misspelt.ts': misspelt });
      const errors = output.split('\n').filter((line) => / error TS\d+:/.test(line));
      expect(errors).toEqual([
        expect.stringMatching(/^misspelt\.ts\(\d+,\d+\): error TS(2353|2561): .*'urlTemplate'/),
      ]);
      expect(status).not.toBe(0);
    });

    it('answers a signed handshake', async () => {
      const response = await send('/handshake', '{}');
      expect(response.status).toBe(200);
      const body = (await response.json()) as Record<string, unknown>;
      expect(body).toMatchObject({ ok: true, contract: 'v1', version: '1.0' });
      expect(Array.isArray(body.capabilities)).toBe(true);
    });

    it('creates a post with the configured URL template', async () => {
      const response = await send('/posts', '{"title":"Packed","content":"<p>x</p>","status":"publish"}');
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        id: expect.any(String),
        url: 'https://scratch.example/blog/packed',
      });
    });

    it('refuses an unsigned request', async () => {
      const response = await fetch(`http://127.0.0.1:${app.report.port}${PREFIX}/handshake`, {
        method: 'POST',
      });
      expect(response.status).toBe(401);
    });
  }
);
