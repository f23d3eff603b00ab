#!/usr/bin/env node
/**
 * `npm run test:e2e`: the settings page in a real browser, against the example site as a user
 * runs it.
 *
 *   1. builds the plugin, then the example's admin panel when its inputs changed (as `npm run demo`),
 *   2. for each scenario (SCENARIOS), starts the example site (`strapi start`) on a free port with
 *      a fresh SQLite file and the scenario's environment: a site with one connection, then one
 *      with two (config `connections`),
 *   3. drives Debian's chromium with playwright-core through the scenario's steps
 *      (test/e2e/settings-page.js, test/e2e/connections-page.js), saving a screenshot of every
 *      screen under test/artifacts/e2e/ (the second scenario's in a folder of its own); a step
 *      fails on any page error, 5xx or console error it did not expect (EXPECTED_PAGE_ERRORS),
 *   4. prints `N passed, N failed` as its last line and exits non-zero on any failure.
 *
 * CHROMIUM (default /usr/bin/chromium) names another browser binary; E2E_HEADED=1 shows it.
 *
 * `--docs-screenshots` (`npm run docs:screenshots`) runs the same steps and, when all pass, also
 * writes the pictures the steps mark with `docs` (the README's) into docs/screenshots/: at
 * 1280 pixels wide, cut off below the open tab's content, with the site on port 1337 (as
 * `npm run demo`) so the addresses on the page stay the same from one run to the next.
 * Without the flag nothing under docs/ is written.
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const crypto = require('node:crypto');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const {
  ROOT,
  EXAMPLE_DIR,
  ScriptError,
  binary,
  ensureBuilds,
  waitForHealth,
  freePort,
} = require('./lib/example-site');
const { settingsPageSteps } = require('../test/e2e/settings-page');
const { connectionsPageSteps, CONNECTIONS_ENVIRONMENT } = require('../test/e2e/connections-page');
const { startPlatformStub } = require('../test/e2e/platform-stub');

const ARTIFACTS_DIR = path.join(ROOT, 'test', 'artifacts', 'e2e');
const DOCS_SCREENSHOTS = process.argv.includes('--docs-screenshots');
const DOCS_DIR = path.join(ROOT, 'docs', 'screenshots');
/** The pictures the README shows; a docs run fails unless the steps took each of them. */
const DOCS_NAMES = ['connection', 'connections', 'activity', 'delivery-log', 'content-manager-panel'];
const DOCS_PORT = 1337;
/** Space kept below a docs picture's last card: less than the gap before the next card. */
const DOCS_BOTTOM_MARGIN = 16;
const BOOT_TIMEOUT_MS = 120_000;
/**
 * What the admin panel may report while any step passes (a step lists its own in
 * `expectedPageErrors`); anything else (an uncaught error, a 5xx, a console error) fails the step
 * it happened in.
 */
const EXPECTED_PAGE_ERRORS = [
  // The admin panel asks GitHub for Strapi's latest release; CI has no route to the internet.
  /^Failed to load resource: net::ERR_NAME_NOT_RESOLVED \(https:\/\/api\.github\.com\/repos\/strapi\/strapi\/releases\/latest\)$/,
];
/**
 * Each on a site of its own (fresh database, the scenario's environment) and in a browser context
 * of its own; `artifacts` is its screenshots' folder under ARTIFACTS_DIR.
 * @type {{ name: string; artifacts: string; environment: NodeJS.ProcessEnv; steps: import('../test/e2e/helpers').Step[] }[]}
 */
const SCENARIOS = [
  { name: 'one connection', artifacts: '', environment: {}, steps: settingsPageSteps },
  {
    name: 'two connections',
    artifacts: 'two-connections',
    environment: CONNECTIONS_ENVIRONMENT,
    steps: connectionsPageSteps,
  },
];
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Runs a build step to completion with its output shown; throws when it fails.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd: string; env: NodeJS.ProcessEnv }} options
 */
function run(command, args, { cwd, env }) {
  const { status } = spawnSync(command, args, { cwd, env, stdio: 'inherit' });
  if (status !== 0) throw new ScriptError(`${[command, ...args].join(' ')} failed (exit ${status}).`);
}

/**
 * Every variable Strapi reads is set here, so an example/.env left by the demo changes nothing.
 * @param {{ port: number; databaseFile: string }} site
 */
function siteEnvironment({ port, databaseFile }) {
  const secret = () => crypto.randomBytes(16).toString('base64');
  return {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: '',
    APP_KEYS: [secret(), secret()].join(','),
    API_TOKEN_SALT: secret(),
    ADMIN_JWT_SECRET: secret(),
    TRANSFER_TOKEN_SALT: secret(),
    JWT_SECRET: secret(),
    ENCRYPTION_KEY: crypto.randomBytes(32).toString('base64'),
    DATABASE_CLIENT: 'sqlite',
    DATABASE_FILENAME: databaseFile,
    SERVE_ADMIN_PANEL: 'true',
    PUBLISH_BRIDGE_API_KEY: '',
    // The stub platform listens on loopback, which the delivery-log fetch refuses unless listed.
    PUBLISH_BRIDGE_PLATFORM_ALLOWED_HOSTS: '127.0.0.1',
    STRAPI_TELEMETRY_DISABLED: 'true',
    BROWSER: 'false',
    STRAPI_LOG_LEVEL: process.env.STRAPI_LOG_LEVEL ?? 'warn',
  };
}

/** @param {NodeJS.ProcessEnv} env */
async function startSite(env) {
  const baseUrl = `http://localhost:${env.PORT}`;
  const child = spawn(binary('strapi'), ['start'], {
    cwd: EXAMPLE_DIR,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  /** @type {Promise<number | NodeJS.Signals | null>} */
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const stop = async () => {
    child.kill('SIGTERM');
    await exited;
  };
  try {
    await waitForHealth(baseUrl, exited, { timeoutMs: BOOT_TIMEOUT_MS, pid: child.pid });
  } catch (error) {
    await stop();
    throw error;
  }
  return { baseUrl, stop };
}

async function launchBrowser() {
  const executablePath = process.env.CHROMIUM ?? '/usr/bin/chromium';
  if (!fs.existsSync(executablePath)) {
    throw new ScriptError(`No browser at ${executablePath}: apt-get install -y chromium (or set CHROMIUM).`);
  }
  const { chromium } = require('playwright-core');
  const args = process.env.E2E_HEADED ? CHROMIUM_ARGS.filter((arg) => arg !== '--headless') : CHROMIUM_ARGS;
  return chromium.launch({ executablePath, args, headless: !process.env.E2E_HEADED });
}

/**
 * The docs' pictures show the site's address, so a docs run needs the same port every time.
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function portFree(port) {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * Runs a scenario's steps on a site of its own, in a browser context of its own, and adds its
 * passed and failed steps to `results`.
 * @param {(typeof SCENARIOS)[number]} scenario
 * @param {{
 *   browser: import('playwright-core').Browser;
 *   port: number;
 *   platform: Awaited<ReturnType<typeof startPlatformStub>>;
 *   docsDraftDir: string | undefined;
 *   results: { passed: number; failed: number };
 * }} run
 */
async function runScenario(scenario, { browser, port, platform, docsDraftDir, results }) {
  const databaseFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pb-e2e-')), 'data.db');
  const env = { ...siteEnvironment({ port, databaseFile }), ...scenario.environment };
  const artifactsDir = path.join(ARTIFACTS_DIR, scenario.artifacts);
  fs.mkdirSync(artifactsDir, { recursive: true });
  let site;
  let context;
  let failures = 0;
  try {
    console.log(`[e2e] Starting the example site (${scenario.name})...`);
    site = await startSite(env);
    context = await browser.newContext({
      viewport: { width: DOCS_SCREENSHOTS ? 1280 : 1440, height: 1900 },
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.baseUrl });
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    // Uncaught errors in the admin app explain most failures better than the timeout that follows.
    /** @type {string[]} */
    const pageErrors = [];
    page.on('pageerror', (error) => pageErrors.push(error.stack ?? String(error)));
    page.on('response', (response) => {
      if (response.status() >= 500) pageErrors.push(`HTTP ${response.status()} from ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error')
        pageErrors.push(`${message.text()} (${message.location().url || 'page'})`);
    });

    /**
     * `docs` names the picture in docs/screenshots/ this screen also makes, in a docs run;
     * `docsUntil` the heading of the card the picture ends with (else it ends with the open tab).
     * @type {import('../test/e2e/helpers').StepContext['screenshot']}
     */
    const screenshot = async (name, { docs, docsUntil } = {}) => {
      const file = path.join(artifactsDir, `${name}.png`);
      // Modals and toasts fade in: a picture mid-animation shows half-transparent layers.
      await page.waitForFunction(() =>
        document.getAnimations().every((animation) => animation.playState !== 'running')
      );
      await page.screenshot({ path: file, fullPage: true });
      if (docsDraftDir && docs) {
        // Strapi's announcement of its own new Media Library is not this plugin's page.
        const banner = page.getByText('Introducing the new Media Library');
        if (await banner.isVisible()) {
          await banner
            .locator('xpath=ancestor::*[.//button][1]')
            .getByRole('button', { name: 'Close' })
            .click();
          await banner.waitFor({ state: 'hidden' });
        }
        // The whole window's width (the admin's menus say where the page is), down to the end of
        // the open tab, or of the card named, rather than the bottom of the tall test viewport.
        const bottom = await page.evaluate((heading) => {
          const panel = [...document.querySelectorAll('[role="tabpanel"]')].find(
            (element) => element.getBoundingClientRect().height > 0
          );
          if (!panel) return undefined;
          let end = panel;
          if (heading) {
            const title = [...panel.querySelectorAll('h2')].find((h2) => h2.textContent.trim() === heading);
            if (!title) throw new Error(`no card "${heading}" on the open tab`);
            // The card: the largest box around its title that holds no other card's title.
            end = title;
            // The title is inside the panel, so the climb stops at the panel before running out of parents.
            for (let parent = end.parentElement; parent && parent !== panel; parent = end.parentElement) {
              if (parent.querySelectorAll('h2').length !== 1) break;
              end = parent;
            }
          }
          return end.getBoundingClientRect().bottom + window.scrollY;
        }, docsUntil);
        const { width, height } = await page.evaluate(() => ({
          width: document.documentElement.clientWidth,
          height: document.documentElement.scrollHeight,
        }));
        const clipHeight = Math.min(height, Math.ceil((bottom ?? height) + DOCS_BOTTOM_MARGIN));
        await page.screenshot({
          path: path.join(docsDraftDir, `${docs}.png`),
          fullPage: true,
          clip: { x: 0, y: 0, width, height: clipHeight },
        });
      }
      return file;
    };
    for (const [index, step] of scenario.steps.entries()) {
      const label = `${String(index + 1).padStart(2, '0')} ${step.name}`;
      // Each step starts where the last one left the page: after a failure the rest cannot run.
      if (failures > 0) {
        failures += 1;
        console.log(`  - ${label} (not run: an earlier step failed)`);
        continue;
      }
      const errorsBefore = pageErrors.length;
      try {
        await step.run({ page, baseUrl: site.baseUrl, platform, screenshot });
        const expected = [...EXPECTED_PAGE_ERRORS, ...(step.expectedPageErrors ?? [])];
        const unexpected = pageErrors
          .slice(errorsBefore)
          .filter((text) => !expected.some((pattern) => pattern.test(text)));
        if (unexpected.length > 0) throw new Error(`the page reported ${unexpected.length} error(s)`);
        results.passed += 1;
        console.log(`  ✓ ${label}`);
      } catch (error) {
        failures += 1;
        const file = await screenshot(`failure-${String(index + 1).padStart(2, '0')}`).catch(() => undefined);
        const details = [
          error instanceof Error ? error.message : String(error),
          ...pageErrors.slice(errorsBefore).map((stack) => `page error: ${stack}`),
        ];
        console.log(`  ✕ ${label}\n      ${details.join('\n').split('\n').join('\n      ')}`);
        if (file) console.log(`      screenshot: ${path.relative(ROOT, file)}`);
      }
    }
  } finally {
    results.failed += failures;
    await context?.close();
    await site?.stop();
    fs.rmSync(path.dirname(databaseFile), { recursive: true, force: true });
  }
}

async function main() {
  if (DOCS_SCREENSHOTS && !(await portFree(DOCS_PORT))) {
    throw new ScriptError(
      `Port ${DOCS_PORT} is in use (a demo?). The docs' screenshots show the site's address, so they are taken on ${DOCS_PORT}: stop what uses it and run again.`
    );
  }
  // The scenarios' sites run one after the other, on the same port.
  const port = DOCS_SCREENSHOTS ? DOCS_PORT : await freePort();
  // Building opens no database.
  const buildEnvironment = siteEnvironment({ port, databaseFile: '' });
  await ensureBuilds({ env: buildEnvironment, run, log: (message) => console.log(`[e2e] ${message}`) });
  fs.rmSync(ARTIFACTS_DIR, { recursive: true, force: true });
  fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
  // Docs pictures wait here until every step passed, so a failed run leaves docs/ as it was.
  const docsDraftDir = DOCS_SCREENSHOTS ? path.join(ARTIFACTS_DIR, 'docs') : undefined;
  if (docsDraftDir) fs.mkdirSync(docsDraftDir, { recursive: true });

  const platform = await startPlatformStub();
  let browser;
  const results = { passed: 0, failed: 0 };
  try {
    browser = await launchBrowser();
    for (const scenario of SCENARIOS)
      await runScenario(scenario, { browser, port, platform, docsDraftDir, results });
  } finally {
    await browser?.close();
    await platform.close();
  }
  console.log(`[e2e] Screenshots in ${path.relative(ROOT, ARTIFACTS_DIR)}/`);
  if (docsDraftDir) {
    const missing = DOCS_NAMES.filter((name) => !fs.existsSync(path.join(docsDraftDir, `${name}.png`)));
    if (results.failed > 0) {
      console.log(`[e2e] docs/screenshots/ left as it was: a step failed.`);
    } else if (missing.length > 0) {
      results.failed += 1;
      console.log(`[e2e] docs/screenshots/ left as it was: no step took ${missing.join(', ')}.`);
    } else {
      fs.mkdirSync(DOCS_DIR, { recursive: true });
      for (const name of DOCS_NAMES) {
        const target = path.join(DOCS_DIR, `${name}.png`);
        fs.copyFileSync(path.join(docsDraftDir, `${name}.png`), target);
        console.log(
          `[e2e] Wrote ${path.relative(ROOT, target)} (${Math.round(fs.statSync(target).size / 1024)} KB)`
        );
      }
    }
  }
  console.log(`${results.passed} passed, ${results.failed} failed`);
  process.exitCode = results.failed > 0 ? 1 : 0;
}

main().catch((error) => {
  console.error(`\n[e2e] ${error instanceof ScriptError ? error.message : error.stack}\n`);
  console.log('0 passed, 1 failed');
  process.exitCode = 1;
});
