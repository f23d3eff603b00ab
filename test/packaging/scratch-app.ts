import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The plugin as a user installs it: `npm pack` of this repository, extracted as
 * node_modules/strapi-plugin-publish-bridge of a copy of the example app that enables the
 * plugin by its name alone (no `resolve`). Strapi and the other dependencies are the
 * repository's own, symlinked, so nothing is downloaded.
 */

export const ROOT = path.resolve(__dirname, '..', '..');
const EXAMPLE_DIR = path.join(ROOT, 'example');
const PACKAGE_NAME = 'strapi-plugin-publish-bridge';
const BUILD_LOCK = '/tmp/pb-build.lock';

export type PackedTarball = { file: string; files: string[] };

/** `npm pack` under the build lock, so a concurrent rebuild of dist/ is not packed half-written. */
export function packRepository(destination: string): PackedTarball {
  const serverEntry = path.join(ROOT, 'dist', 'server', 'index.js');
  if (!fs.existsSync(serverEntry)) {
    throw new Error('dist/server/index.js is missing: build the plugin (npm run build) before packing it.');
  }
  const npmArgs = ['pack', '--json', '--ignore-scripts', '--pack-destination', destination];
  let result = spawnSync('flock', [BUILD_LOCK, 'npm', ...npmArgs], { cwd: ROOT, encoding: 'utf8' });
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    result = spawnSync('npm', npmArgs, { cwd: ROOT, encoding: 'utf8' });
  }
  if (result.status !== 0) throw new Error(`npm pack failed:\n${result.stderr}`);
  const [summary] = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as {
    filename: string;
    files: { path: string }[];
  }[];
  return { file: path.join(destination, summary.filename), files: summary.files.map((entry) => entry.path) };
}

const PLUGINS_CONFIG = `module.exports = ({ env }) => ({
  'users-permissions': { config: { jwtSecret: env('JWT_SECRET') } },
  // Enabled by package name, as an installed plugin: no resolve.
  'publish-bridge': {
    enabled: true,
    config: { urlTemplates: { post: 'https://scratch.example/blog/{slug}' } },
  },
});
`;

/** A copy of the example app with the tarball installed; returns the app's directory. */
export function createScratchApp(workDir: string, tarball: string): string {
  const appDir = path.join(workDir, 'app');
  for (const part of ['config', 'src', 'public', 'database']) {
    // database/ is made by the example's first start (and ignored by git): a fresh clone has none.
    if (!fs.existsSync(path.join(EXAMPLE_DIR, part))) continue;
    fs.cpSync(path.join(EXAMPLE_DIR, part), path.join(appDir, part), { recursive: true });
  }
  fs.writeFileSync(path.join(appDir, 'config', 'plugins.js'), PLUGINS_CONFIG);

  const example = JSON.parse(fs.readFileSync(path.join(EXAMPLE_DIR, 'package.json'), 'utf8'));
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const manifest = {
    name: 'publish-bridge-scratch-app',
    private: true,
    version: '0.0.0',
    dependencies: { ...example.dependencies, [PACKAGE_NAME]: version },
  };
  fs.writeFileSync(path.join(appDir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);

  const modules = path.join(appDir, 'node_modules');
  fs.mkdirSync(modules);
  const shared = path.join(ROOT, 'node_modules');
  for (const entry of fs.readdirSync(shared)) {
    if (entry.startsWith('.') || entry === PACKAGE_NAME || entry === example.name) continue;
    fs.symlinkSync(path.join(shared, entry), path.join(modules, entry));
  }
  const installed = path.join(modules, PACKAGE_NAME);
  fs.mkdirSync(installed);
  const untar = spawnSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1'], {
    encoding: 'utf8',
  });
  if (untar.status !== 0) throw new Error(`tar failed:\n${untar.stderr}`);

  fs.copyFileSync(path.join(__dirname, 'boot.js'), path.join(appDir, 'boot.js'));
  return appDir;
}

export type BootReport = {
  port: number;
  pluginLoaded: boolean;
  postTypeRegistered: boolean;
  serverEntries: string[];
};

export type BootedApp = { report: BootReport; stop(): Promise<void>; output(): string };

/** Starts boot.js in its own Node process and waits for its report line. */
export function bootScratchApp(appDir: string, env: Record<string, string>): Promise<BootedApp> {
  const child: ChildProcess = spawn(process.execPath, ['--preserve-symlinks', 'boot.js'], {
    cwd: appDir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };

  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      const line = stdout.split('\n').find((candidate) => candidate.startsWith('{"port"'));
      if (line) resolve({ report: JSON.parse(line) as BootReport, stop, output: () => stdout + stderr });
    });
    child.once('exit', (code) =>
      reject(new Error(`the scratch app exited with code ${code} before listening:\n${stdout}\n${stderr}`))
    );
  });
}

export const makeWorkDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'pb-packaging-'));

/** The compiler options `create-strapi-app --typescript` writes into a new project's tsconfig.json. */
const GENERATED_PROJECT_COMPILER_OPTIONS = {
  module: 'CommonJS',
  moduleResolution: 'Node',
  lib: ['ES2020'],
  target: 'ES2019',
  strict: false,
  skipLibCheck: true,
  forceConsistentCasingInFileNames: true,
  esModuleInterop: true,
  resolveJsonModule: true,
  noImplicitThis: true,
};

/**
 * `tsc --noEmit` over `files` (name → source) in a TypeScript project beside the scratch app,
 * resolving packages from the app's node_modules, so the plugin's types are the installed
 * tarball's. Returns the compiler's exit status and its diagnostics.
 */
export function typeCheckInSite(
  workDir: string,
  appDir: string,
  files: Record<string, string>
): { status: number | null; output: string } {
  const siteDir = path.join(workDir, 'typed-site');
  fs.mkdirSync(siteDir);
  fs.symlinkSync(path.join(appDir, 'node_modules'), path.join(siteDir, 'node_modules'));
  for (const [name, source] of Object.entries(files)) fs.writeFileSync(path.join(siteDir, name), source);
  const tsconfig = { compilerOptions: GENERATED_PROJECT_COMPILER_OPTIONS, files: Object.keys(files) };
  fs.writeFileSync(path.join(siteDir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const result = spawnSync(process.execPath, [tsc, '--noEmit', '-p', siteDir], {
    cwd: siteDir,
    encoding: 'utf8',
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
