'use strict';

const { createHmac } = require('node:crypto');

/** What the browser tests' steps share: the site's first admin, signed requests, waits. */
const PREFIX = '/api/publish-bridge';
const ADMIN = {
  firstname: 'Ada',
  lastname: 'Admin',
  email: 'ada@example.com',
  password: 'E2e-Password-1234',
};

/**
 * What scripts/e2e.js hands each step: the browser page, the site, the platform stub, and
 * `screenshot`, which answers the file it wrote.
 * @typedef {{
 *   page: import('playwright-core').Page;
 *   baseUrl: string;
 *   platform: Awaited<ReturnType<typeof import('./platform-stub').startPlatformStub>>;
 *   screenshot: (name: string, options?: { docs?: string; docsUntil?: string }) => Promise<string>;
 * }} StepContext
 */
/** @typedef {{ name: string; run(context: StepContext): Promise<void>; expectedPageErrors?: RegExp[] }} Step */

/**
 * @param {unknown} condition
 * @param {string} message
 * @returns {asserts condition}
 */
function check(condition, message) {
  if (!condition) throw new Error(message);
}

/**
 * A request signed exactly as the publisher signs it (contract section 5), to `path` under a
 * connection's base URL (`connection`: its name on a site with several, none for the only one).
 * The body is the JSON reply, `any`: each step reads the fields of the endpoint it called.
 * @param {string} baseUrl
 * @param {string} method
 * @param {string} path
 * @param {unknown} body
 * @param {{ key: string; connection?: string }} options
 * @returns {Promise<{ status: number; body: any }>}
 */
async function sendSigned(baseUrl, method, path, body, { key, connection }) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const timestamp = String(Date.now());
  const signature = createHmac('sha256', key).update(`${timestamp}.`).update(raw).digest('hex');
  const response = await fetch(`${baseUrl}${PREFIX}${connection ? `/${connection}` : ''}${path}`, {
    method,
    headers: {
      ...(raw ? { 'Content-Type': 'application/json' } : {}),
      'X-API-Key': key,
      'X-Publisher-Timestamp': timestamp,
      'X-Publisher-Signature': signature,
    },
    body: raw || undefined,
  });
  return { status: response.status, body: await response.json() };
}

/**
 * Log writes are batched after the answer, so a fresh entry can take a moment to show.
 * @param {import('playwright-core').Page} page
 * @param {import('playwright-core').Locator} locator
 */
async function refreshUntilVisible(page, locator, attempts = 20) {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if (await locator.first().isVisible()) return;
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.waitForTimeout(500);
  }
  await locator.first().waitFor({ state: 'visible', timeout: 1_000 });
}

/**
 * Whether the element is wholly inside the window, not merely rendered somewhere on the page.
 * @param {import('playwright-core').Locator} locator
 */
async function inViewport(locator) {
  return locator.evaluate((element) => {
    const { top, bottom } = element.getBoundingClientRect();
    return top >= 0 && bottom <= window.innerHeight;
  });
}

/**
 * Waits for a toast, then closes it so it does not cover the next screenshots.
 * @param {import('playwright-core').Page} page
 * @param {string | RegExp} text
 */
async function expectNotification(page, text) {
  const message = page.getByRole('status').filter({ hasText: text }).first();
  await message.waitFor();
  // The close button sits beside the message, in the toast that holds both.
  await message.locator('xpath=..').getByRole('button', { name: 'Close' }).click();
  await message.waitFor({ state: 'hidden' });
}

/** @type {Step} */
const registerAdminStep = {
  name: 'registers the first admin',
  async run({ page, baseUrl, screenshot }) {
    await page.goto(`${baseUrl}/admin`);
    await page.waitForURL(/\/admin\/auth\/register-admin/);
    for (const [name, value] of Object.entries(ADMIN))
      await page.locator(`input[name="${name}"]`).fill(value);
    await page.locator('input[name="confirmPassword"]').fill(ADMIN.password);
    await screenshot('01-register-admin');
    await page.getByRole('button', { name: "Let's start" }).click();
    await page.waitForURL((url) => !url.pathname.includes('/auth/'));
    await page.getByRole('link', { name: 'Settings', exact: true }).waitFor();
    await screenshot('02-home');
  },
};

/** What Strapi's own edit view asks for that the test site has not set up (AI, preview, the update check). */
const EDIT_VIEW_PAGE_ERRORS = [
  /api\.github\.com/,
  /ai-feature-config/,
  /ai-localization-jobs/,
  /content-manager\/preview\/url/,
];

module.exports = {
  PREFIX,
  EDIT_VIEW_PAGE_ERRORS,
  check,
  sendSigned,
  refreshUntilVisible,
  inViewport,
  expectNotification,
  registerAdminStep,
};
