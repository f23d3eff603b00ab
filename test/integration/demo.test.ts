import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import * as demoScript from '../../scripts/demo.js';
import * as exampleSite from '../../scripts/lib/example-site.js';

/**
 * The decisions `npm run demo` (and `npm run test:e2e`, through scripts/lib) takes before it starts Strapi: the secrets it writes on the first
 * start, and when the plugin and admin builds may be reused. Starting the demo itself is left to
 * the README check; these run on temporary directories.
 */
type Demo = {
  isPluginBuildFresh(root: string): boolean;
  secretsEnvFile(randomBytes?: (size: number) => Buffer): string;
  ensureEnvFile(file: string): boolean;
  adminBuildHash(options: { root: string; exampleDir: string; env: Record<string, string> }): string;
  adminBuildState(buildDir: string, hash: string): 'missing' | 'outdated' | 'current';
  ADMIN_HASH_FILE: string;
};
const demo: Demo = { ...demoScript, ...exampleSite };

// The exact dotenv Strapi loads example/.env with.
const dotenv = createRequire(require.resolve('@strapi/core'))('dotenv');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-demo-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function write(file: string, content: string, mtimeSeconds?: number) {
  const full = path.join(dir, file);
  fs.mkdirSync(path.dirname(full), { recursive: true });
  fs.writeFileSync(full, content);
  if (mtimeSeconds !== undefined) fs.utimesSync(full, mtimeSeconds, mtimeSeconds);
}

describe('example/.env on the first start', () => {
  it('holds every secret Strapi needs, as dotenv reads it', () => {
    const file = path.join(dir, '.env');
    expect(demo.ensureEnvFile(file)).toBe(true);
    const env = dotenv.parse(fs.readFileSync(file));

    expect(Object.keys(env).sort()).toEqual(
      [
        'ADMIN_JWT_SECRET',
        'API_TOKEN_SALT',
        'APP_KEYS',
        'ENCRYPTION_KEY',
        'JWT_SECRET',
        'TRANSFER_TOKEN_SALT',
      ].sort()
    );
    const appKeys = env.APP_KEYS.split(',');
    expect(appKeys).toHaveLength(4);
    expect(new Set(appKeys).size).toBe(4);
    for (const value of [
      ...appKeys,
      env.API_TOKEN_SALT,
      env.ADMIN_JWT_SECRET,
      env.TRANSFER_TOKEN_SALT,
      env.JWT_SECRET,
    ]) {
      expect(Buffer.from(value, 'base64')).toHaveLength(16);
    }
    expect(Buffer.from(env.ENCRYPTION_KEY, 'base64')).toHaveLength(32);
  });

  it('is private to its owner', () => {
    const file = path.join(dir, '.env');
    demo.ensureEnvFile(file);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
  });

  it('gets fresh values each time it is generated', () => {
    expect(demo.secretsEnvFile()).not.toEqual(demo.secretsEnvFile());
  });

  it('never replaces an existing file', () => {
    const file = path.join(dir, '.env');
    fs.writeFileSync(file, 'APP_KEYS=mine\n');
    expect(demo.ensureEnvFile(file)).toBe(false);
    expect(fs.readFileSync(file, 'utf8')).toBe('APP_KEYS=mine\n');
  });
});

describe('reusing the plugin build', () => {
  const SOURCE_TIME = 1_700_000_000;
  const BUILD_TIME = SOURCE_TIME + 60;

  beforeEach(() => {
    write('package.json', '{}', SOURCE_TIME);
    write('server/src/index.ts', 'export default {};', SOURCE_TIME);
    write('admin/src/index.ts', 'export default {};', SOURCE_TIME);
    write('dist/server/index.js', '', BUILD_TIME);
    write('dist/admin/index.mjs', '', BUILD_TIME);
    write('dist/admin/src/index.d.ts', '', BUILD_TIME);
  });

  it('is fine when every built file is newer than every source', () => {
    expect(demo.isPluginBuildFresh(dir)).toBe(true);
  });

  it.each(['server/src/index.ts', 'admin/src/index.ts', 'package.json'])(
    'is stale after %s changes',
    (source) => {
      write(source, 'changed', BUILD_TIME + 1);
      expect(demo.isPluginBuildFresh(dir)).toBe(false);
    }
  );

  it('is stale when a source file is added after the build', () => {
    write('server/src/services/new.ts', '', BUILD_TIME + 1);
    expect(demo.isPluginBuildFresh(dir)).toBe(false);
  });

  it('is stale when a built file is older than a source (an interrupted build)', () => {
    write('dist/admin/src/index.d.ts', '', SOURCE_TIME - 1);
    expect(demo.isPluginBuildFresh(dir)).toBe(false);
  });

  it.each(['dist/server/index.js', 'dist/admin/index.mjs'])('is stale without %s', (entry) => {
    fs.rmSync(path.join(dir, entry));
    expect(demo.isPluginBuildFresh(dir)).toBe(false);
  });
});

describe('reusing the admin panel build', () => {
  const exampleDir = () => path.join(dir, 'example');
  const hash = (env: Record<string, string> = {}) =>
    demo.adminBuildHash({ root: dir, exampleDir: exampleDir(), env });
  const lock = (strapiVersion: string, reactVersion = '18.3.1') =>
    JSON.stringify({
      packages: {
        '': {},
        'node_modules/@strapi/admin': { version: strapiVersion },
        'node_modules/@strapi/strapi': { version: strapiVersion },
        'node_modules/react': { version: reactVersion },
      },
    });

  beforeEach(() => {
    write('dist/admin/index.mjs', 'export default { register() {} };');
    write('example/config/admin.js', 'module.exports = {};');
    write('example/config/server.js', 'module.exports = {};');
    write('example/package.json', '{"name":"example"}');
    write('package-lock.json', lock('5.54.0'));
  });

  it('does not change when nothing it is built from changes', () => {
    const before = hash({ PORT: '1337' });
    write('dist/admin/index.mjs', 'export default { register() {} };', 1_800_000_000);
    expect(
      hash({ PORT: '1338', PUBLISH_BRIDGE_API_KEY: 'k', DATABASE_CLIENT: 'postgres', PUBLIC_URL: '' })
    ).toBe(before);
    write('package-lock.json', lock('5.54.0', '18.3.2'));
    expect(hash()).toBe(before);
  });

  it.each([
    ['the plugin admin code', 'dist/admin/index.mjs', 'export default { register() { console.log(1); } };'],
    ['an added plugin admin chunk', 'dist/admin/chunk.mjs', 'export {};'],
    ['the admin config', 'example/config/admin.js', 'module.exports = { url: "/dashboard" };'],
    ['the server config', 'example/config/server.js', 'module.exports = { url: "https://x" };'],
    ['the example package.json', 'example/package.json', '{"name":"example","version":"2"}'],
    ['an admin customisation', 'example/src/admin/app.js', 'export default {};'],
    // `strapi start` runs the compiled example, so its other config and code count too.
    ['the plugins config', 'example/config/plugins.js', 'module.exports = { x: {} };'],
    ['the example code', 'example/src/index.js', 'module.exports = {};'],
    ['the example tsconfig', 'example/tsconfig.json', '{}'],
    ['a @strapi version', 'package-lock.json', lock('5.54.1')],
  ])('changes with %s', (_label, file, content) => {
    const before = hash();
    write(file, content);
    expect(hash()).not.toBe(before);
  });

  it.each<Record<string, string>>([{ PUBLIC_URL: 'https://cms.example.com' }, { STRAPI_ADMIN_MAP_KEY: 'x' }])(
    'changes with a variable the bundle embeds: %o',
    (env) => {
      expect(hash(env)).not.toBe(hash());
    }
  );

  it('is missing, outdated or current depending on the build folder', () => {
    const buildDir = path.join(dir, 'example', 'dist', 'build');
    expect(demo.adminBuildState(buildDir, hash())).toBe('missing');

    write('example/dist/build/index.html', '<html></html>');
    expect(demo.adminBuildState(buildDir, hash())).toBe('outdated');

    write(`example/dist/build/${demo.ADMIN_HASH_FILE}`, `${hash()}\n`);
    expect(demo.adminBuildState(buildDir, hash())).toBe('current');

    write('example/config/admin.js', 'module.exports = { url: "/dashboard" };');
    expect(demo.adminBuildState(buildDir, hash())).toBe('outdated');
  });
});
