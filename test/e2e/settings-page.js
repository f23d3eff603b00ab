'use strict';

const {
  PREFIX,
  EDIT_VIEW_PAGE_ERRORS,
  check,
  sendSigned,
  refreshUntilVisible,
  inViewport,
  expectNotification,
  registerAdminStep,
} = require('./helpers');

/**
 * The path a first-time user takes through Settings > Publish Bridge, one step per screen.
 * Steps share `session` and run in order; scripts/e2e.js runs them and counts the results.
 * `screenshot(name, { docs })` also makes docs/screenshots/<docs>.png, the README's picture of
 * that screen, when the run was asked for them (`npm run docs:screenshots`).
 */
const KEY = 'pb_e2e_connection_key_5f0c2d9e8b7a6';
/** The publisher's id of the post the browser test sends; the Content Manager's panel shows it. */
const SOURCE_ID = 'e2e-source-1001';
/** What a step leaves for the later ones. */
/** @type {{ postId?: string; postEditPath?: string }} */
const session = {};

/** @typedef {import('./helpers').Step} Step */

/** @type {Step[]} */
const settingsPageSteps = [
  registerAdminStep,
  {
    name: 'finds Settings > Publish Bridge',
    async run({ page, screenshot }) {
      await page.getByRole('link', { name: 'Settings', exact: true }).click();
      await page.getByRole('link', { name: 'Publish Bridge' }).click();
      await page.getByRole('heading', { name: 'Publish Bridge', level: 1 }).waitFor();
      await page.getByText('Not set', { exact: true }).waitFor();
      await screenshot('03-settings-first-visit');
    },
  },
  {
    name: 'copies the base URL to register with the publisher',
    async run({ page, baseUrl }) {
      const expected = `${baseUrl}${PREFIX}`;
      check((await page.getByLabel('Base URL').inputValue()) === expected, `base URL is not ${expected}`);
      // Only the address the page was opened at so far: shown, but marked as a guess.
      await page.getByText('Not confirmed', { exact: true }).waitFor();
      await page.getByRole('button', { name: 'Copy base URL' }).click();
      await expectNotification(page, 'Base URL copied');
      const copied = await page.evaluate(() => navigator.clipboard.readText());
      check(copied === expected, `clipboard holds "${copied}", not ${expected}`);
    },
  },
  {
    name: 'pastes the connection key, turns a capability off and saves',
    async run({ page, baseUrl, screenshot }) {
      check(
        (await sendSigned(baseUrl, 'POST', '/handshake', {}, { key: KEY })).status === 401,
        'a request passed before any key'
      );
      // The form checks with the server's schema, in its words, before anything is sent.
      await page.getByLabel('Connection key').fill(KEY.slice(0, 15));
      await page
        .getByText('Connection key is too short: paste the whole key (at least 16 characters)')
        .waitFor();
      await page.getByLabel('Connection key').fill(KEY);
      // Test connection sends the key only to a configured address, never to the page's own.
      await page.getByLabel('Public URL').fill(baseUrl);
      await page.getByRole('checkbox', { name: 'Authors' }).click({ force: true });
      await screenshot('04-key-pasted');
      // Saved where the change was made: at the foot of the page, the header's Save stays in view.
      await page.getByLabel('Log key').scrollIntoViewIfNeeded();
      await page.locator('[data-strapi-header-sticky]').getByRole('button', { name: 'Save' }).waitFor();
      check(await inViewport(page.getByRole('button', { name: 'Save' })), 'Save scrolled out of view');
      await page.getByRole('button', { name: 'Save' }).click();
      await expectNotification(page, 'Saved');
      await page.getByText(`•••• ${KEY.slice(-4)}`, { exact: true }).waitFor();
      check(
        (await page.getByLabel('Connection key').inputValue()) === '',
        'the key stays in the field after saving'
      );
      await page.getByText('Not confirmed', { exact: true }).waitFor({ state: 'hidden' });
      const handshake = await sendSigned(baseUrl, 'POST', '/handshake', {}, { key: KEY });
      check(handshake.status === 200, `signed handshake answered ${handshake.status}`);
      check(!handshake.body.capabilities.includes('authors'), 'the handshake still declares "authors"');
      check(handshake.body.capabilities.includes('posts.delete'), 'the handshake lost "posts.delete"');
      await screenshot('05-saved');
    },
  },
  {
    name: 'runs Test connection and shows the parsed handshake',
    async run({ page, screenshot }) {
      await page.getByRole('button', { name: 'Test connection' }).click();
      await page.getByText('Connection works.').waitFor();
      await page.getByText(/\(contract v1, version 1\.0\)/).waitFor();
      await page.getByText('Declared capabilities').waitFor();
      await screenshot('06-test-connection', { docs: 'connection', docsUntil: 'Capabilities' });
    },
  },
  {
    name: 'shows a signed request from the test in the activity log',
    async run({ page, baseUrl, screenshot }) {
      const created = await sendSigned(
        baseUrl,
        'POST',
        '/posts',
        {
          title: 'Hello from the publisher',
          content: '<p>Sent by the browser test.</p>',
          status: 'publish',
          source_id: SOURCE_ID,
        },
        { key: KEY }
      );
      check(created.status === 200, `signed POST /posts answered ${created.status}`);
      session.postId = created.body.id;
      const refused = await sendSigned(
        baseUrl,
        'POST',
        '/posts',
        { title: 'x' },
        { key: 'not-the-key-123456' }
      );
      check(refused.status === 401, `a wrong key answered ${refused.status}`);

      await page.getByRole('tab', { name: 'Activity log' }).click();
      // The entry is named by its title, as the Content Manager lists it.
      const link = page.getByRole('link', { name: 'Hello from the publisher' });
      await refreshUntilVisible(page, link);
      const href = await link.getAttribute('href');
      // The post's type is the plugin's own or the one the site maps posts onto (the example: articles).
      check(
        href !== null &&
          new RegExp(`/admin/content-manager/collection-types/[\\w:.-]+/${session.postId}$`).test(href),
        `entity link goes to ${href}`
      );
      session.postEditPath = href;
      await page
        .getByRole('gridcell', { name: /^posts\.create\s*POST \/posts$/ })
        .first()
        .waitFor();
      // Refusals of unauthenticated requests are counted per minute and shown once their minute ends.
      const refusal = page.getByText(/Refused 1× · wrong key/);
      await refreshUntilVisible(page, refusal, 150);
      await screenshot('07-activity-log', { docs: 'activity' });

      await page.getByRole('row').filter({ hasText: 'Refused 1×' }).first().click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText("The X-API-Key does not match this site's connection key").waitFor();
      await screenshot('08-activity-details');
      await dialog.getByRole('button', { name: 'Close' }).last().click();
    },
  },
  {
    name: 'filters the activity log by outcome',
    async run({ page, screenshot }) {
      await page.getByRole('button', { name: 'Filters' }).click();
      await page.getByRole('combobox', { name: 'Select field' }).click();
      await page.getByRole('option', { name: 'Outcome' }).click();
      await page.getByRole('combobox', { name: 'Select filter' }).click();
      await page.getByRole('option', { name: 'is', exact: true }).click();
      await page.getByRole('combobox', { name: 'Outcome' }).click();
      await page.getByRole('option', { name: 'Rejected' }).click();
      await page.getByRole('button', { name: 'Add filter' }).click();
      await page.waitForURL(/filters/);
      await page.getByText('Outcome is rejected').waitFor();
      const rows = page.locator('tbody tr');
      await rows.first().waitFor();
      // The filter changes the URL first; the filtered rows replace the others when their fetch returns.
      /** @typedef {(string | null | undefined)[]} Cells */
      const onlyRejected = (/** @type {Cells} */ statuses) =>
        statuses.length > 0 && statuses.every((status) => status === '401');
      let statuses = /** @type {Cells} */ ([]);
      for (let waited = 0; waited <= 10_000 && !onlyRejected(statuses); waited += 250) {
        if (waited > 0) await page.waitForTimeout(250);
        statuses = await rows.evaluateAll((elements) => elements.map((row) => row.children[3]?.textContent));
      }
      check(onlyRejected(statuses), `rows shown: ${statuses}`);
      await screenshot('09-activity-filtered');
    },
  },
  {
    name: 'reads the platform delivery log through the server',
    async run({ page, platform, screenshot }) {
      platform.setEntries([
        {
          log_id: 'dl_1001',
          action: 'send_posts',
          status: 'success',
          request_payload: JSON.stringify({ title: 'Hello from the publisher', status: 'publish' }),
          response_payload: JSON.stringify({ id: session.postId }),
          external_id: session.postId,
          create_at: '2026-11-22 09:15:02',
        },
        {
          log_id: 'dl_1000',
          action: 'send_posts',
          status: 'failed',
          request_payload: JSON.stringify({ title: 'Before the key was set' }),
          response_payload: JSON.stringify({ error: 'This site has no connection key yet.' }),
          external_id: '',
          create_at: '2026-11-22 09:01:44',
        },
      ]);
      await page.getByRole('tab', { name: 'Connection' }).click();
      await page.getByLabel('Platform URL').fill(platform.url);
      await page.getByLabel('Log key').fill(platform.key);
      await page.getByRole('button', { name: 'Save' }).click();
      await expectNotification(page, 'Saved');

      await page.getByRole('tab', { name: 'Delivery log' }).click();
      await page.getByRole('gridcell', { name: 'dl_1001' }).waitFor();
      const href = await page.getByRole('link', { name: session.postId }).getAttribute('href');
      check(href?.endsWith(`/${session.postId}`), `external id links to ${href}`);
      await screenshot('10-delivery-log', { docs: 'delivery-log' });

      await page.getByRole('button', { name: 'Request and response payloads' }).first().click();
      await page.getByRole('dialog').getByText('Response payload').waitFor();
      await screenshot('11-delivery-payloads');
      await page.getByRole('dialog').getByRole('button', { name: 'Close' }).last().click();
    },
  },
  {
    name: 'shows a platform failure as a message, not an empty table',
    // The server answers the page 502 when the platform refuses: the upstream failed, not the site.
    expectedPageErrors: [/502.*\/publish-bridge\/platform-logs\)?$/],
    async run({ page, platform, screenshot }) {
      platform.answer('unauthorized');
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByText('The platform refused the log key (HTTP 401)').waitFor();
      await screenshot('12-delivery-log-error');
      platform.answer('ok');
    },
  },
  {
    name: 'warns that a plain-HTTP public URL will not do for the platform',
    async run({ page, baseUrl, screenshot }) {
      await page.getByRole('tab', { name: 'Connection' }).click();
      const save = async () => {
        await page.getByRole('button', { name: 'Save' }).click();
        await expectNotification(page, 'Saved');
      };
      await page.getByLabel('Public URL').fill('http://cms.example.test');
      await save();
      await page.getByText('The platform requires HTTPS.').waitFor();
      await screenshot('13-https-warning');
      await page.getByLabel('Public URL').fill(baseUrl);
      await save();
      await page.getByText('The platform requires HTTPS.').waitFor({ state: 'hidden' });
    },
  },
  {
    name: "shows the Publish Bridge panel on a post's edit view and restores the editor's title",
    expectedPageErrors: EDIT_VIEW_PAGE_ERRORS,
    async run({ page, baseUrl, screenshot }) {
      const { postId, postEditPath } = session;
      check(postId && postEditPath, 'an earlier step publishes the post and finds its edit view');
      const editView = `${baseUrl}${postEditPath}`;
      const title = page.locator('input[name="title"]');
      await page.goto(editView);
      await title.fill('Edited in the browser');
      const saved = page.waitForResponse(
        (response) => response.request().method() === 'PUT' && response.url().includes(postId)
      );
      await page.getByRole('button', { name: 'Save' }).click();
      check((await saved).ok(), "the Content Manager saved the editor's title");
      const updated = await sendSigned(
        baseUrl,
        'PUT',
        `/posts/${postId}`,
        {
          title: 'Updated by the publisher',
        },
        { key: KEY }
      );
      check(updated.status === 200, `signed PUT answered ${updated.status}`);

      await page.goto(editView);
      await page.getByText('From the publishing platform').waitFor();
      await page.getByText(/before an update · title/).waitFor();
      await page.getByText(SOURCE_ID, { exact: true }).waitFor();
      await page.getByText('Edited in Strapi after the platform’s last update').waitFor();
      check(
        (await title.inputValue()) === 'Updated by the publisher',
        "the draft holds the publisher's title"
      );
      await screenshot('14-content-manager-panel', { docs: 'content-manager-panel' });

      // A restore overwrites the draft, so it asks first, naming the fields it will write.
      await page.getByRole('button', { name: 'Restore', exact: true }).click();
      await page
        .getByText(/writes these fields into the entry’s draft, replacing what they hold now: title\./)
        .waitFor();
      await screenshot('15-content-manager-restore-dialog');
      await page.getByRole('button', { name: 'Restore into the draft' }).click();
      await page.getByText('Restored into the draft. Publish it').waitFor();
      let value = '';
      for (let waited = 0; waited <= 10_000 && value !== 'Edited in the browser'; waited += 250) {
        if (waited > 0) await page.waitForTimeout(250);
        value = await title.inputValue();
      }
      check(value === 'Edited in the browser', `the title field shows "${value}" after the restore`);
      await screenshot('16-content-manager-restored');
    },
  },
];

module.exports = { settingsPageSteps };
