'use strict';

const {
  PREFIX,
  EDIT_VIEW_PAGE_ERRORS,
  check,
  sendSigned,
  refreshUntilVisible,
  expectNotification,
  registerAdminStep,
} = require('./helpers');

/**
 * Settings > Publish Bridge on a site with two connections, en and fr (config `connections`, as
 * CONNECTIONS_ENVIRONMENT sets it): the picker, each connection's own base URL, key and Test
 * connection, the activity log filtered by connection, and the Content Manager's panel naming
 * the connection a post came from. scripts/e2e.js runs these steps on a site of their own.
 */
const KEYS = {
  en: 'pb_e2e_en_key_7c41a0d95b2e8',
  fr: 'pb_e2e_fr_key_3b96e1f0a7d24',
};
/** Keys come from the settings page only: no PUBLISH_BRIDGE_API_KEY_<NAME> from the shell. */
const CONNECTIONS_ENVIRONMENT = {
  PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({ en: { locale: 'en' }, fr: { locale: 'fr' } }),
  PUBLISH_BRIDGE_API_KEY_EN: '',
  PUBLISH_BRIDGE_API_KEY_FR: '',
};
const POSTS = {
  en: { title: 'Hello from the en project', source_id: 'e2e-en-2001' },
  fr: { title: 'Bonjour du projet fr', source_id: 'e2e-fr-2001' },
};
/** What a step leaves for the later ones. */
/** @type {{ frPostEditPath?: string }} */
const session = {};

/** @typedef {import('./helpers').Step} Step */
/** @typedef {import('playwright-core').Page} Page */

/**
 * Chooses a connection in the picker above the tabs, as a user does, and waits for its page.
 * @param {Page} page
 * @param {string} baseUrl
 * @param {'en' | 'fr'} name
 */
async function pickConnection(page, baseUrl, name) {
  await page.getByRole('combobox', { name: 'Connection' }).click();
  await page.getByRole('option', { name: `${name} (${name}): ${baseUrl}${PREFIX}/${name}` }).click();
  await page.waitForURL(new RegExp(`[?&]connection=${name}(&|$)`));
  // The address changes first; the connection's settings replace the form when their fetch returns.
  const expected = `${baseUrl}${PREFIX}/${name}`;
  let shown = '';
  for (let waited = 0; waited <= 10_000 && shown !== expected; waited += 250) {
    if (waited > 0) await page.waitForTimeout(250);
    shown = await page.getByLabel('Base URL').inputValue();
  }
  check(shown === expected, `${name} picked: base URL is ${shown}, not ${expected}`);
}

/**
 * The value shown under a label, as the activity log's details and the Content Manager's panel
 * lay out their facts.
 * @param {Page | import('playwright-core').Locator} scope
 * @param {string} label
 */
async function detailValue(scope, label) {
  return scope.getByText(label, { exact: true }).locator('xpath=following-sibling::*[1]').textContent();
}

/** @type {Step[]} */
const connectionsPageSteps = [
  registerAdminStep,
  {
    name: 'picks each connection and copies its own base URL',
    async run({ page, baseUrl, screenshot }) {
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByRole('link', { name: 'Publish Bridge' }).click();
      await page.getByRole('heading', { name: 'Publish Bridge', level: 1 }).waitFor();
      // Without ?connection= the page shows the first connection.
      const picker = page.getByRole('combobox', { name: 'Connection' });
      await picker.getByText(`en (en): ${baseUrl}${PREFIX}/en`).waitFor();
      for (const name of /** @type {const} */ (['en', 'fr'])) {
        const expected = `${baseUrl}${PREFIX}/${name}`;
        if (name === 'en') {
          const shown = await page.getByLabel('Base URL').inputValue();
          check(shown === expected, `en: base URL is ${shown}, not ${expected}`);
        } else await pickConnection(page, baseUrl, name);
        await page.getByRole('button', { name: 'Copy base URL' }).click();
        await expectNotification(page, 'Base URL copied');
        const copied = await page.evaluate(() => navigator.clipboard.readText());
        check(copied === expected, `${name}: clipboard holds "${copied}", not ${expected}`);
      }
      await screenshot('03-connection-fr');
    },
  },
  {
    name: "pastes fr's key and finds en's key as it was",
    async run({ page, baseUrl, screenshot }) {
      const fr4 = `•••• ${KEYS.fr.slice(-4)}`;
      await page.getByText('Not set', { exact: true }).waitFor();
      await page.getByLabel('Connection key').fill(KEYS.fr);
      // Test connection sends the key only to a configured address, never to the page's own.
      await page.getByLabel('Public URL').fill(baseUrl);
      await page.getByRole('button', { name: 'Save' }).click();
      await expectNotification(page, 'Saved');
      await page.getByText(fr4, { exact: true }).waitFor();
      const handshake = await sendSigned(
        baseUrl,
        'POST',
        '/handshake',
        {},
        { key: KEYS.fr, connection: 'fr' }
      );
      check(handshake.status === 200, `fr: signed handshake answered ${handshake.status}`);

      await pickConnection(page, baseUrl, 'en');
      await page.getByText('Not set', { exact: true }).waitFor();
      check((await page.getByText(fr4).count()) === 0, "en shows fr's key");
      check((await page.getByLabel('Connection key').inputValue()) === '', "en's key field is not empty");
      const refused = await sendSigned(baseUrl, 'POST', '/handshake', {}, { key: KEYS.fr, connection: 'en' });
      check(refused.status === 401, `fr's key on en answered ${refused.status}`);
      await screenshot('04-en-key-unchanged');

      await page.getByLabel('Connection key').fill(KEYS.en);
      await page.getByRole('button', { name: 'Save' }).click();
      await expectNotification(page, 'Saved');
      await page.getByText(`•••• ${KEYS.en.slice(-4)}`, { exact: true }).waitFor();
    },
  },
  {
    name: 'runs Test connection on fr',
    async run({ page, baseUrl, screenshot }) {
      await pickConnection(page, baseUrl, 'fr');
      await page.getByRole('button', { name: 'Test connection' }).click();
      await page.getByText('Connection works.').waitFor();
      await page.getByText(/\(contract v1, version 1\.0\)/).waitFor();
      await screenshot('05-test-connection-fr', { docs: 'connections', docsUntil: 'Connection' });
    },
  },
  {
    name: "sends a post on each connection and filters the activity log to fr's",
    async run({ page, baseUrl, screenshot }) {
      for (const name of /** @type {const} */ (['en', 'fr'])) {
        const body = {
          ...POSTS[name],
          content: `<p>Sent to ${name} by the browser test.</p>`,
          status: 'publish',
        };
        const created = await sendSigned(baseUrl, 'POST', '/posts', body, {
          key: KEYS[name],
          connection: name,
        });
        check(created.status === 200, `${name}: signed POST /posts answered ${created.status}`);
      }
      await page.getByRole('tab', { name: 'Activity log' }).click();
      const enPost = page.getByRole('link', { name: POSTS.en.title });
      const frPost = page.getByRole('link', { name: POSTS.fr.title });
      await refreshUntilVisible(page, frPost);
      await refreshUntilVisible(page, enPost);
      session.frPostEditPath = (await frPost.getAttribute('href')) ?? undefined;
      // Each row names its connection in the table, so the log reads without opening a row.
      const rowOf = (/** @type {string} */ title) =>
        page.locator('tbody tr').filter({ has: page.getByRole('link', { name: title }) });
      await rowOf(POSTS.en.title).getByText('Connection en', { exact: true }).waitFor();
      await rowOf(POSTS.fr.title).getByText('Connection fr', { exact: true }).waitFor();

      await page.getByRole('button', { name: 'Filters' }).click();
      await page.getByRole('combobox', { name: 'Select field' }).click();
      await page.getByRole('option', { name: 'Connection' }).click();
      await page.getByRole('combobox', { name: 'Select filter' }).click();
      await page.getByRole('option', { name: 'is', exact: true }).click();
      // The filter's value list shares its name with the picker above the tabs, and comes after it.
      await page.getByRole('combobox', { name: 'Connection' }).last().click();
      await page.getByRole('option', { name: 'fr', exact: true }).click();
      await page.getByRole('button', { name: 'Add filter' }).click();
      await page.waitForURL(/filters/);
      await page.getByText('Connection is fr').waitFor();
      // The URL changes first; the filtered rows replace the others when their fetch returns.
      await enPost.waitFor({ state: 'hidden' });
      await frPost.waitFor();
      await screenshot('06-activity-filtered-fr');
      // A row's connection shows in its details; its time cell opens them (the entry cell links away).
      const rows = page.locator('tbody tr');
      const dialog = page.getByRole('dialog');
      /** @type {(string | null)[]} */
      const connections = [];
      for (let index = 0; index < (await rows.count()); index += 1) {
        await rows.nth(index).locator('td').first().click();
        connections.push(await detailValue(dialog, 'Connection'));
        await dialog.getByRole('button', { name: 'Close' }).last().click();
        await dialog.waitFor({ state: 'hidden' });
      }
      check(
        connections.length > 0 && connections.every((connection) => connection === 'fr'),
        `the rows' connections: ${connections.join(', ')}`
      );
    },
  },
  {
    name: "names connection fr in the Content Manager panel of fr's post",
    expectedPageErrors: EDIT_VIEW_PAGE_ERRORS,
    async run({ page, baseUrl, screenshot }) {
      check(session.frPostEditPath, "an earlier step finds fr's post in the activity log");
      await page.goto(`${baseUrl}${session.frPostEditPath}`);
      await page.getByText('From the publishing platform').waitFor();
      await page.getByText(POSTS.fr.source_id, { exact: true }).waitFor();
      const named = await detailValue(page, 'Connection');
      check(named === 'fr', `the panel names connection "${named}"`);
      await screenshot('07-content-manager-panel-fr');
    },
  },
];

module.exports = { connectionsPageSteps, CONNECTIONS_ENVIRONMENT };
