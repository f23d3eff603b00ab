import { createHmac } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredSettings } from '../../server/src/services/connection/settings';
import {
  anonymous,
  loginAs,
  loginWithPermissions,
  pluginTypesDisplayed,
  type AdminClient,
} from '../helpers/admin-client';
import { signedHeaders, TEST_KEY } from '../helpers/signing';
import { PREFIX, serviceOf, useSite } from '../helpers/site';
import { queryOf, UIDS } from '../helpers/inspect';

const ACTIVITY = UIDS.activityEntry;
const KEY_B = 'pb_rotated_key_b_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
const KEY_C = 'pb_rotated_key_c_0a1b2c3d4e5f60718293a4b5c6d7e8f9';
const PLATFORM_KEY = 'platform_log_key_7c1e5a9d3b8f2e6a4d0c';
const OTHER_PLATFORM_KEY = 'platform_log_key_other_0b9a8c7d6e5f';
const SETTINGS_READ = 'plugin::publish-bridge.settings.read';
const LOGS_READ = 'plugin::publish-bridge.logs.read';
const PLATFORM_ALLOWED_HOSTS = 'plugin::publish-bridge.platform.allowedHosts';

let superAdmin: AdminClient;
let editor: AdminClient;
let author: AdminClient;
/** Holds settings.read and nothing else: may look at the settings page, not change it or read logs. */
let settingsReader: AdminClient;

/** Posts live in the plugin's own type or in the one the example maps them onto. */
const postUid = () => serviceOf(site, 'mapping').resource('post').uid;
const activityRows = async () => {
  await serviceOf(site, 'activity-writer').flush();
  return (await queryOf(site.strapi, ACTIVITY).findMany({ orderBy: { id: 'asc' } })) as any[];
};
const clearActivity = async () => {
  await serviceOf(site, 'activity-writer').flush();
  await queryOf(site.strapi, ACTIVITY).deleteMany({});
};
const saveSettings = (body: unknown) => superAdmin.request('PUT', '/publish-bridge/settings', body);
const settingsView = async () => (await superAdmin.request('GET', '/publish-bridge/settings')).body.data;
const coreStoreText = async () =>
  JSON.stringify(await site.strapi.db.connection('strapi_core_store_settings').select('*'));

/** `filters[$and][0][outcome][$eq]=rejected`, as Strapi's admin Filters component writes it. */
function activityUrl(query: { page?: number; pageSize?: number; filters?: Record<string, string>[] } = {}) {
  const params = new URLSearchParams();
  if (query.page) params.set('page', String(query.page));
  if (query.pageSize) params.set('pageSize', String(query.pageSize));
  (query.filters ?? []).forEach((filter, index) => {
    for (const [field, value] of Object.entries(filter))
      params.set(`filters[$and][${index}][${field}][$eq]`, value);
  });
  return `/publish-bridge/activity?${params}`;
}

/** A local HTTP server standing in for something outside our control (the platform, a proxy). */
async function listen(handler: http.RequestListener) {
  const server = http.createServer(handler);
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type Recorded = { method?: string; path?: string; apiKey?: string };

/** A local server that notes each request it receives (method, path, x-api-key), then answers with `answer`. */
async function recordingServer(answer: http.RequestListener = (_req, res) => res.end()) {
  const requests: Recorded[] = [];
  const server = await listen((req, res) => {
    requests.push({
      method: req.method,
      path: req.url,
      apiKey: req.headers['x-api-key'] as string | undefined,
    });
    answer(req, res);
  });
  return { ...server, requests };
}

/** Runs `work` with a config value changed, then puts the old value back. */
async function withConfig<T>(key: string, value: unknown, work: () => Promise<T>): Promise<T> {
  const original = site.strapi.config.get(key);
  site.strapi.config.set(key, value);
  try {
    return await work();
  } finally {
    site.strapi.config.set(key, original);
  }
}

/** A reverse proxy to the site that can damage requests the way misconfigured proxies do. */
function proxyTo(target: string, damage: (headers: http.IncomingHttpHeaders, body: Buffer) => Buffer) {
  return listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', async () => {
      const headers = { ...req.headers };
      const body = damage(headers, Buffer.concat(chunks));
      for (const hopByHop of ['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']) {
        delete headers[hopByHop];
      }
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers: headers as Record<string, string>,
        body: body.length > 0 ? body : undefined,
      });
      res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
      res.end(Buffer.from(await answer.arrayBuffer()));
    });
  });
}

// The stub platforms below listen on 127.0.0.1, which the log fetch refuses unless it is listed.
const site = useSite({ PUBLISH_BRIDGE_API_KEY: '', PUBLISH_BRIDGE_PLATFORM_ALLOWED_HOSTS: '127.0.0.1' });
beforeAll(async () => {
  superAdmin = await loginAs(site, 'strapi-super-admin');
  editor = await loginAs(site, 'strapi-editor');
  author = await loginAs(site, 'strapi-author');
  settingsReader = await loginWithPermissions(site, [SETTINGS_READ]);
});

describe('admin API permissions', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', '/publish-bridge/settings'],
    ['PUT', '/publish-bridge/settings', { capabilities: { authors: false } }],
    ['POST', '/publish-bridge/connection-test'],
    ['GET', '/publish-bridge/activity'],
    ['GET', '/publish-bridge/platform-logs'],
  ];

  test('Editor and Author get 403 and change nothing; no session gets 401', async () => {
    for (const client of [editor, author]) {
      for (const [method, path, body] of routes) {
        const reply = await client.request(method, path, body);
        expect({ method, path, status: reply.status }).toEqual({ method, path, status: 403 });
      }
    }
    for (const [method, path, body] of routes) {
      const reply = await anonymous(site).request(method, path, body);
      expect({ method, path, status: reply.status }).toEqual({ method, path, status: 401 });
    }
    expect((await serviceOf(site, 'settings').capabilities()).authors).toBe(true);
  });

  test('Super Admin reaches every route', async () => {
    expect((await superAdmin.request('GET', '/publish-bridge/settings')).status).toBe(200);
    expect((await saveSettings({ capabilities: { authors: true } })).status).toBe(200);
    expect((await superAdmin.request('POST', '/publish-bridge/connection-test')).status).toBe(200);
    expect((await superAdmin.request('GET', '/publish-bridge/activity')).status).toBe(200);
    // No platform configured yet: a clear 400, which still proves the permission check passed.
    const logs = await superAdmin.request('GET', '/publish-bridge/platform-logs');
    expect(logs.status).toBe(400);
    expect(logs.body.error.message).toContain('Set the platform URL');
  });

  test('the settings show where each resource is stored', async () => {
    const { body } = await superAdmin.request('GET', '/publish-bridge/settings');
    expect(
      body.data.storage.map((storage: { resource: string; uid: string; ownedByPlugin: boolean }) => [
        storage.resource,
        storage.uid,
        storage.ownedByPlugin,
      ])
    ).toEqual([
      ['post', 'plugin::publish-bridge.post', true],
      ['blogCategory', 'plugin::publish-bridge.blog-category', true],
      ['tag', 'plugin::publish-bridge.tag', true],
      ['author', 'plugin::publish-bridge.author', true],
      ['product', 'plugin::publish-bridge.product', true],
      ['productCategory', 'plugin::publish-bridge.product-category', true],
    ]);
    const post = body.data.storage[0];
    expect(post.displayName).toBe('Post');
    expect(post.unmapped).toEqual([]);
    expect(post.fields).toContainEqual({
      field: 'seo',
      attribute: 'seoTitle, seoDescription, seoKeywords, seoCanonicalUrl',
      storedAs: 'seoFields',
    });
  });

  test('the three permissions are registered and held by Super Admin only', async () => {
    const actions = ['settings.read', 'settings.update', 'logs.read'].map(
      (uid) => `plugin::publish-bridge.${uid}`
    );
    const admin = (site.strapi as any).admin.services;
    for (const action of actions) expect(admin.permission.actionProvider.get(action)).toBeDefined();
    const holders = async (code: string) => {
      const role = await admin.role.findOne({ code });
      const permissions = await admin.permission.findMany({ where: { role: { id: role.id } } });
      return permissions.map((permission: { action: string }) => permission.action);
    };
    expect(await holders('strapi-super-admin')).toEqual(expect.arrayContaining(actions));
    for (const code of ['strapi-editor', 'strapi-author']) {
      expect((await holders(code)).filter((action: string) => actions.includes(action))).toEqual([]);
    }
  });
});

describe('connection key', () => {
  test('pasted in the admin, it is stored encrypted, shown masked, and authenticates requests at once', async () => {
    const before = await settingsView();
    expect(before.connectionKey).toMatchObject({ configured: false, managedByEnvironment: false });
    expect(before.encryptionAvailable).toBe(true);
    expect((await site.send('POST', '/handshake', {})).status).toBe(401);

    const saved = await saveSettings({ connectionKey: { value: `  ${TEST_KEY}\n` } });
    expect(saved.status).toBe(200);
    expect(saved.body.data.connectionKey).toMatchObject({ configured: true, last4: TEST_KEY.slice(-4) });
    expect(saved.text).not.toContain(TEST_KEY);
    expect((await site.send('POST', '/handshake', {})).status).toBe(200);

    const stored = await coreStoreText();
    expect(stored).not.toContain(TEST_KEY);
    const { apiKey } = (await site.strapi
      .store({ type: 'plugin', name: 'publish-bridge' })
      .get({ key: 'settings' })) as StoredSettings;
    expect(site.strapi.service('admin::encryption').decrypt(apiKey!.ciphertext)).toBe(TEST_KEY);
    expect(stored).toContain(apiKey!.ciphertext.slice(0, 40));
  });

  test('rotation: the previous key works for the chosen grace period, and not at all without one', async () => {
    await saveSettings({ connectionKey: { value: TEST_KEY } });
    const withGrace = await saveSettings({ connectionKey: { value: KEY_B, graceMinutes: 60 } });
    expect(withGrace.status).toBe(200);
    const until = Date.parse(withGrace.body.data.connectionKey.previousKeyAcceptedUntil);
    expect(until).toBeGreaterThan(Date.now() + 59 * 60_000);
    expect(until).toBeLessThanOrEqual(Date.now() + 60 * 60_000);
    expect((await site.send('POST', '/handshake', {}, { key: TEST_KEY })).status).toBe(200);
    expect((await site.send('POST', '/handshake', {}, { key: KEY_B })).status).toBe(200);

    const noGrace = await saveSettings({ connectionKey: { value: KEY_C } });
    expect(noGrace.body.data.connectionKey.previousKeyAcceptedUntil).toBeUndefined();
    expect((await site.send('POST', '/handshake', {}, { key: KEY_B })).status).toBe(401);
    expect((await site.send('POST', '/handshake', {}, { key: TEST_KEY })).status).toBe(401);
    expect((await site.send('POST', '/handshake', {}, { key: KEY_C })).status).toBe(200);

    for (const key of [KEY_B, KEY_C]) expect(await coreStoreText()).not.toContain(key);
    await saveSettings({ connectionKey: { value: TEST_KEY } });
  });

  test('invalid input is refused with a message naming the field, and nothing is saved', async () => {
    await saveSettings({ connectionKey: { value: TEST_KEY } });
    const cases: [unknown, string][] = [
      [{ connectionKey: { value: 'has spaces inside it' } }, 'connectionKey.value'],
      [{ connectionKey: { value: 'short' } }, 'connectionKey.value'],
      [{ connectionKey: { value: 'fifteen_chars_x' } }, 'connectionKey.value is too short'],
      [{ platform: { key: 'fifteen_chars_x' } }, 'platform.key is too short'],
      [{ platform: { url: 'https://user:secret@platform.example.com' } }, 'platform.url'],
      [{ connectionKey: { value: KEY_B, graceMinutes: -5 } }, 'connectionKey.graceMinutes'],
      [{ capabilities: { teleport: true } }, 'capabilities'],
      [{ capabilities: { authors: 'yes' } }, 'capabilities.authors'],
      [{ platform: { url: 'ftp://platform.example.com' } }, 'platform.url'],
      [{ platform: { url: 'http://platform.example.com' } }, 'platform.url must start with https://'],
      [{ surprise: 1 }, 'surprise'],
    ];
    for (const [body, field] of cases) {
      const reply = await saveSettings(body);
      expect({ body, status: reply.status }).toEqual({ body, status: 400 });
      expect(reply.body.error.message).toContain(field);
    }
    const tooShort = await saveSettings({ connectionKey: { value: 'fifteen_chars_x' } });
    expect(tooShort.body.error.message).toContain('at least 16 characters');
    expect((await settingsView()).connectionKey.last4).toBe(TEST_KEY.slice(-4));
    expect((await site.send('POST', '/handshake', {})).status).toBe(200);
  });
});

describe('capabilities', () => {
  afterAll(async () => {
    await saveSettings({ capabilities: { authors: true, seo: true } });
  });

  test('a toggle saved in the admin changes the next handshake and the endpoint, without a restart', async () => {
    await saveSettings({ connectionKey: { value: TEST_KEY } });
    const saved = await saveSettings({ capabilities: { authors: false, seo: false } });
    expect(saved.status).toBe(200);
    const authors = saved.body.data.capabilities.find((item: { name: string }) => item.name === 'authors');
    expect(authors).toMatchObject({ enabled: false, enabledByDefault: true });

    const handshake = await site.send('POST', '/handshake', {});
    expect(handshake.body.capabilities).not.toContain('authors');
    expect(handshake.body.capabilities).not.toContain('seo');
    expect(handshake.body.capabilities).toContain('posts.delete');
    expect((await site.send('POST', '/authors', { display_name: 'Nobody' })).status).toBe(403);

    await saveSettings({ capabilities: { authors: true } });
    expect((await site.send('POST', '/handshake', {})).body.capabilities).toContain('authors');
  });
});

test("with no mapping, the Content Manager's menu shows every resource type of the plugin, not its bookkeeping", async () => {
  expect(await pluginTypesDisplayed(superAdmin)).toEqual({
    post: true,
    'blog-category': true,
    tag: true,
    author: true,
    product: true,
    'product-category': true,
    identity: false,
    'activity-entry': false,
    'request-receipt': false,
    'managed-entry': false,
    revision: false,
  });
});

describe('activity log', () => {
  beforeAll(async () => {
    await saveSettings({ connectionKey: { value: TEST_KEY } });
  });
  beforeEach(clearActivity);

  test('records every signed request: action, status, entity, duration and the reason of a rejection; refusals are counted', async () => {
    expect((await site.send('POST', '/handshake', {})).status).toBe(200);
    const created = await site.send('POST', '/posts', {
      title: 'Logged',
      content: '<p>x</p>',
      status: 'draft',
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    expect((await site.send('PUT', `/posts/${id}`, { status: 'publish' })).status).toBe(200);
    const unsigned = await site.send('POST', '/posts', { title: 'x' }, { unsigned: true });
    expect(unsigned.status).toBe(401);
    const stale = await site.send('POST', '/handshake', {}, { timestamp: Date.now() - 600_000 });
    expect(stale.status).toBe(401);
    const invalid = await site.send('POST', '/posts', { title: 'No status', content: '<p>x</p>' });
    expect(invalid.status).toBe(400);
    expect((await site.send('GET', '/nowhere')).status).toBe(404);
    await serviceOf(site, 'activity-writer').flush();

    const reply = await superAdmin.request('GET', activityUrl({ pageSize: 100 }));
    expect(reply.status).toBe(200);
    const items = [...reply.body.results].reverse();
    expect(
      items.map((item: any) => [item.method, item.path, item.action, item.httpStatus, item.outcome])
    ).toEqual([
      ['POST', `${PREFIX}/handshake`, 'handshake', 200, 'success'],
      ['POST', `${PREFIX}/posts`, 'posts.create', 200, 'success'],
      ['PUT', `${PREFIX}/posts/${id}`, 'posts.update', 200, 'success'],
      ['POST', `${PREFIX}/posts`, 'unauthenticated', 401, 'rejected'],
      ['POST', `${PREFIX}/handshake`, 'unauthenticated', 401, 'rejected'],
      ['POST', `${PREFIX}/posts`, 'posts.create', 400, 'rejected'],
      ['GET', `${PREFIX}/nowhere`, 'unknown', 404, 'rejected'],
    ]);
    expect(items[1]).toMatchObject({ entityId: id, entry: { uid: postUid(), documentId: id } });
    expect(items[2]).toMatchObject({ entityId: id, entry: { uid: postUid(), documentId: id } });
    expect(items[3].reason).toContain('Missing header X-API-Key');
    expect(items[3]).toMatchObject({
      refusal: 'missing_header',
      count: 1,
      sourceAddress: '127.0.0.1',
    });
    expect(items[4].reason).toMatch(/600 s old/);
    expect(items[4]).toMatchObject({ refusal: 'stale_timestamp', count: 1 });
    expect(items[4].lastSeenAt).toBeDefined();
    expect(items[2]).toMatchObject({ count: 1 });
    expect(items[2].refusal).toBeUndefined();
    expect(items[5].reason).toContain('status');
    expect(items[0].reason).toBeUndefined();
    for (const item of items.filter((entry: any) => !entry.refusal)) {
      expect(item.durationMs).toBeGreaterThanOrEqual(0);
      expect(Number.isNaN(Date.parse(item.receivedAt))).toBe(false);
    }
  });

  test("names the entry by its title, only for an admin who may read that entry's title", async () => {
    const title = `Titled in the log ${Date.now()}`;
    const created = await site.send('POST', '/posts', { title, content: '<p>x</p>', status: 'draft' });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    await serviceOf(site, 'activity-writer').flush();
    const logged = async (client: AdminClient) => {
      const reply = await client.request('GET', activityUrl());
      expect(reply.status).toBe(200);
      return reply.body.results.find((item: any) => item.entityId === id);
    };

    expect(await logged(superAdmin)).toMatchObject({
      action: 'posts.create',
      entry: { uid: postUid(), documentId: id, title },
    });
    const read = `plugin::content-manager.explorer.read`;
    const withoutTitle = await loginWithPermissions(site, [
      LOGS_READ,
      { action: read, subject: postUid(), properties: { fields: ['slug'] } },
    ]);
    const logsOnly = await loginWithPermissions(site, [LOGS_READ]);
    for (const client of [withoutTitle, logsOnly]) {
      const item = await logged(client);
      expect(item.entry).toEqual({ uid: postUid(), documentId: id });
    }
  });

  test('keeps what the site adjusted while storing a request as notes on its entry', async () => {
    // Recorded as the gate records it: notes come from the write services (mapping, media).
    serviceOf(site, 'activity-writer').record({
      requestId: 'notes-1',
      connection: 'default',
      receivedAt: new Date(),
      method: 'POST',
      path: `${PREFIX}/posts`,
      pathUnderPrefix: '/posts',
      status: 200,
      body: { id: 'doc-with-notes', url: 'https://example.com/x', title: 'never stored' },
      durationMs: 12,
      notes: ['content: kept as HTML code blocks: <table>.', 'x'.repeat(600)],
    });
    await serviceOf(site, 'activity-writer').flush();
    const [item] = (await superAdmin.request('GET', activityUrl())).body.results;
    expect(item).toMatchObject({ requestId: 'notes-1', action: 'posts.create', entityId: 'doc-with-notes' });
    expect(item.notes).toEqual(['content: kept as HTML code blocks: <table>.', `${'x'.repeat(499)}…`]);
    expect(JSON.stringify(await activityRows())).not.toContain('never stored');
  });

  test('never stores the key, the signature or the body', async () => {
    const body = JSON.stringify({
      title: 'Secret-free log',
      content: '<p>private body text</p>',
      status: 'draft',
    });
    const headers = signedHeaders(body);
    const reply = await fetch(`${site.baseUrl}${PREFIX}/posts`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json' },
      body,
    });
    expect(reply.status).toBe(200);
    const wrongKey = await site.send('POST', '/handshake', {}, { key: KEY_B });
    expect(wrongKey.status).toBe(401);

    const stored = JSON.stringify(await activityRows());
    expect(stored).toContain('posts.create');
    for (const secret of [TEST_KEY, KEY_B, headers['X-Publisher-Signature'], 'private body text']) {
      expect(stored).not.toContain(secret);
    }
    const listed = await superAdmin.request('GET', activityUrl());
    expect(listed.text).not.toContain(TEST_KEY);
    expect(listed.text).not.toContain(headers['X-Publisher-Signature']);
  });

  test('is paged and filtered by outcome and action', async () => {
    for (let i = 0; i < 3; i += 1) await site.send('POST', '/handshake', {});
    await site.send('POST', '/handshake', {}, { unsigned: true });
    await site.send('POST', '/handshake', {}, { unsigned: true });
    await site.send('POST', '/posts', { title: 'Filtered', content: '<p>x</p>', status: 'draft' });
    await serviceOf(site, 'activity-writer').flush();

    const page2 = await superAdmin.request('GET', activityUrl({ page: 2, pageSize: 2 }));
    expect(page2.body.pagination).toEqual({ page: 2, pageSize: 2, pageCount: 3, total: 5 });
    expect(page2.body.results).toHaveLength(2);

    const rejected = await superAdmin.request('GET', activityUrl({ filters: [{ outcome: 'rejected' }] }));
    expect(rejected.body.results.map((item: any) => item.httpStatus)).toEqual([401]);
    const refused = await superAdmin.request(
      'GET',
      activityUrl({ filters: [{ action: 'unauthenticated' }] })
    );
    expect(refused.body.results.map((item: any) => [item.refusal, item.count])).toEqual([
      ['missing_header', 2],
    ]);
    expect(refused.body.filterOptions.action).toContain('unauthenticated');

    const creates = await superAdmin.request('GET', activityUrl({ filters: [{ action: 'posts.create' }] }));
    expect(creates.body.results.map((item: any) => item.action)).toEqual(['posts.create']);

    const successfulHandshakes = await superAdmin.request(
      'GET',
      activityUrl({ filters: [{ action: 'handshake' }, { outcome: 'success' }] })
    );
    expect(successfulHandshakes.body.pagination.total).toBe(3);
    expect(successfulHandshakes.body.filterOptions.action).toContain('posts.create');

    const notAField = await superAdmin.request(
      'GET',
      '/publish-bridge/activity?filters[$and][0][reason][$eq]=x'
    );
    expect(notAField.status).toBe(400);
    const tooLarge = await superAdmin.request('GET', activityUrl({ pageSize: 1000 }));
    expect(tooLarge.status).toBe(400);
  });

  test('a log table that cannot be written never fails the request; entries are written once it is back', async () => {
    const knex = site.strapi.db.connection;
    const table = 'publish_bridge_activity';
    await knex.schema.renameTable(table, `${table}_away`);
    let requestId: string | null;
    try {
      const reply = await site.send('POST', '/handshake', {});
      expect(reply.status).toBe(200);
      requestId = reply.headers.get('x-request-id');
      await serviceOf(site, 'activity-writer').flush();
    } finally {
      await knex.schema.renameTable(`${table}_away`, table);
    }
    const rows = await activityRows();
    expect(rows.map((row) => row.requestId)).toEqual([requestId]);
  });

  test('a NUL character the sender put in the body or the URL is logged as U+FFFD', async () => {
    const notJson = await site.send('POST', '/posts', '\u0000');
    expect(notJson.status).toBe(400);
    expect(notJson.body.error).toContain('\u0000');
    expect((await site.send('DELETE', '/posts/%00')).status).toBe(404);
    expect((await site.send('POST', '/handshake', {})).status).toBe(200);

    const rows = await activityRows();
    expect(rows.map((row) => [row.action, row.httpStatus])).toEqual([
      ['posts.create', 400],
      ['posts.delete', 404],
      ['handshake', 200],
    ]);
    expect(JSON.stringify(rows)).not.toContain('\\u0000');
    expect(rows[0].reason).toContain('\uFFFD');
    expect(rows[1].entityId).toBe('\uFFFD');
  });

  test('an entry the database refuses is dropped, and never holds back the entries after it', async () => {
    const exchange = (requestId: string, status: number) => ({
      requestId,
      connection: 'default',
      receivedAt: new Date(),
      method: 'POST',
      path: `${PREFIX}/handshake`,
      pathUnderPrefix: '/handshake',
      status,
      body: {},
      durationMs: 1,
    });
    // An HTTP status no integer column holds: PostgreSQL and MariaDB refuse it (SQLite stores it).
    serviceOf(site, 'activity-writer').record(exchange('refused', 2 ** 40));
    serviceOf(site, 'activity-writer').record(exchange('after-1', 200));
    await serviceOf(site, 'activity-writer').flush();
    serviceOf(site, 'activity-writer').record(exchange('after-2', 200));
    await serviceOf(site, 'activity-writer').flush();

    const stored = (await activityRows()).map((row) => row.requestId);
    const refusedToo = site.database.client === 'sqlite' ? ['refused'] : [];
    expect(stored).toEqual([...refusedToo, 'after-1', 'after-2']);
  });

  test('retention keeps at most maxEntries rows, none older than maxAgeDays', async () => {
    const configKey = 'plugin::publish-bridge.activityLog';
    const original = site.strapi.config.get(configKey);
    const day = 24 * 3_600_000;
    const entry = (receivedAt: Date, path: string) => ({
      receivedAt,
      method: 'POST',
      path,
      action: 'handshake',
      httpStatus: 200,
      outcome: 'success',
      durationMs: 1,
    });
    const old = Array.from({ length: 10 }, (_, i) => entry(new Date(Date.now() - 40 * day), `/old/${i}`));
    const recent = Array.from({ length: 130 }, (_, i) =>
      entry(new Date(Date.now() - (130 - i) * 1000), `/new/${i}`)
    );
    await queryOf(site.strapi, ACTIVITY).createMany({ data: [...recent.slice(0, 5), ...old] });
    await queryOf(site.strapi, ACTIVITY).createMany({ data: recent.slice(5) });
    site.strapi.config.set(configKey, { maxEntries: 100, maxAgeDays: 30 });
    try {
      await serviceOf(site, 'activity-writer').prune();
    } finally {
      site.strapi.config.set(configKey, original);
    }
    const rows = await activityRows();
    expect(rows).toHaveLength(100);
    expect(rows.map((row) => row.path)).toEqual(recent.slice(30).map((item) => item.path));
  });
});

describe('Test connection', () => {
  beforeAll(async () => {
    await saveSettings({ connectionKey: { value: TEST_KEY } });
  });
  afterEach(async () => {
    site.strapi.config.set('server.url', '');
    site.strapi.server.app.proxy = false;
    await saveSettings({ publicUrl: '' });
  });

  const runTest = async (client = superAdmin, headers?: Record<string, string>) => {
    const reply = await client.request('POST', '/publish-bridge/connection-test', undefined, headers);
    expect(reply.status).toBe(200);
    expect(reply.text).not.toContain(TEST_KEY);
    return reply.body.data;
  };

  test('sends a signed handshake to the public URL saved on the page and shows the parsed handshake', async () => {
    await clearActivity();
    const saved = await saveSettings({ publicUrl: `${site.baseUrl}/` });
    expect(saved.body.data).toMatchObject({ baseUrl: `${site.baseUrl}${PREFIX}`, baseUrlSource: 'settings' });
    const handshakeBefore = (await settingsView()).status.lastHandshakeAt;
    const startedAt = new Date();
    const result = await runTest(settingsReader);
    expect(result).toMatchObject({ ok: true, status: 200, url: `${site.baseUrl}${PREFIX}/handshake` });
    expect(result.handshake).toEqual({
      contract: 'v1',
      version: '1.0',
      site: { name: expect.any(String), url: expect.any(String) },
      capabilities: expect.arrayContaining(['posts.delete']),
    });
    expect(result).not.toHaveProperty('response');
    const rows = await activityRows();
    expect(rows.map((row) => [row.action, row.httpStatus])).toEqual([['handshake', 200]]);
    // Earlier tests shook hands too: the status must show this test's handshake, not theirs.
    const handshakeAfter = (await settingsView()).status.lastHandshakeAt;
    expect(handshakeAfter).not.toBe(handshakeBefore);
    expect(new Date(handshakeAfter!).getTime()).toBeGreaterThanOrEqual(startedAt.getTime());
  });

  test('right after a test the status names its handshake as both the last handshake and the last request', async () => {
    await saveSettings({ publicUrl: `${site.baseUrl}/` });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const startedAt = Date.now();
      expect(await runTest()).toMatchObject({ ok: true });
      // No flush: the page reads the status as soon as the test answers.
      const { status } = await settingsView();
      expect(new Date(status.lastHandshakeAt).getTime()).toBeGreaterThanOrEqual(startedAt);
      expect(status.lastRequest).toMatchObject({ action: 'handshake', httpStatus: 200 });
      expect(new Date(status.lastRequest.receivedAt).getTime()).toBeGreaterThanOrEqual(startedAt);
    }
  });

  test('without a configured public URL it sends nothing, whatever Host or X-Forwarded-Host it is given', async () => {
    const attacker = await recordingServer();
    const forgedHost = new URL(attacker.url).host;
    try {
      for (const proxy of [false, true]) {
        // Strapi's server.proxy: koa then takes the host from X-Forwarded-Host.
        site.strapi.server.app.proxy = proxy;
        const forged: Record<string, string>[] = [{ Host: forgedHost }, { 'X-Forwarded-Host': forgedHost }];
        for (const headers of forged) {
          const result = await runTest(settingsReader, headers);
          expect({ proxy, headers, received: attacker.requests }).toEqual({ proxy, headers, received: [] });
          expect(result).toEqual({ ok: false, message: expect.stringContaining('Public URL') });
          expect(result.message).toContain('server.url');
          // The page may still show the request's address, marked as a guess.
          const view = await settingsReader.request('GET', '/publish-bridge/settings', undefined, headers);
          expect(view.body.data.baseUrlSource).toBe('request');
        }
      }
    } finally {
      await attacker.close();
    }
  });

  test('with a public URL saved, the test goes there and nowhere else, whatever the Host', async () => {
    const attacker = await recordingServer();
    const forgedHost = new URL(attacker.url).host;
    const keysSeen: unknown[] = [];
    const proxy = await proxyTo(site.baseUrl, (headers, body) => {
      keysSeen.push(headers['x-api-key']);
      return body;
    });
    try {
      await saveSettings({ publicUrl: proxy.url });
      site.strapi.server.app.proxy = true;
      const result = await runTest(settingsReader, { Host: forgedHost, 'X-Forwarded-Host': forgedHost });
      expect(result).toMatchObject({ ok: true, url: `${proxy.url}${PREFIX}/handshake` });
      // The probe first, without the key; then the signed handshake.
      expect(keysSeen).toEqual([undefined, TEST_KEY]);
      expect(attacker.requests).toEqual([]);
    } finally {
      await Promise.all([attacker.close(), proxy.close()]);
    }
  });

  test('the public URL: settings.update only, absolute http(s) without credentials, query or fragment, empty clears it', async () => {
    const invalid = [
      'cms.example.com',
      'ftp://cms.example.com',
      'https://user:secret@cms.example.com',
      'https://cms.example.com/?next=1',
      'https://cms.example.com/#top',
    ];
    for (const publicUrl of invalid) {
      const reply = await saveSettings({ publicUrl });
      expect({ publicUrl, status: reply.status }).toEqual({ publicUrl, status: 400 });
      expect(reply.body.error.message).toContain('publicUrl');
    }
    const byReader = await settingsReader.request('PUT', '/publish-bridge/settings', {
      publicUrl: 'https://cms.example.com',
    });
    expect(byReader.status).toBe(403);
    expect(await settingsView()).toMatchObject({
      baseUrl: `${site.baseUrl}${PREFIX}`,
      baseUrlSource: 'request',
    });

    site.strapi.config.set('server.url', 'https://operator.example.com');
    expect(await settingsView()).toMatchObject({
      baseUrl: `https://operator.example.com${PREFIX}`,
      baseUrlSource: 'server.url',
    });
    const saved = await saveSettings({ publicUrl: ' https://cms.example.com/strapi ' });
    expect(saved.body.data).toMatchObject({
      publicUrl: 'https://cms.example.com/strapi',
      baseUrl: `https://cms.example.com/strapi${PREFIX}`,
      baseUrlSource: 'settings',
    });
    const cleared = await saveSettings({ publicUrl: '' });
    expect(cleared.body.data.publicUrl).toBeUndefined();
    expect(cleared.body.data.baseUrlSource).toBe('server.url');
  });

  test('catches a proxy that strips a header', async () => {
    const proxy = await proxyTo(site.baseUrl, (headers, body) => {
      delete headers['x-publisher-signature'];
      return body;
    });
    try {
      site.strapi.config.set('server.url', proxy.url);
      expect((await settingsView()).baseUrl).toBe(`${proxy.url}${PREFIX}`);
      const result = await runTest();
      expect(result).toMatchObject({ ok: false, status: 401, url: `${proxy.url}${PREFIX}/handshake` });
      expect(result.message).toContain('Missing header X-Publisher-Signature');
    } finally {
      await proxy.close();
    }
  });

  test('catches a proxy that rewrites the body', async () => {
    // The keyless probe before the handshake has no body to rewrite.
    const proxy = await proxyTo(site.baseUrl, (_headers, body) =>
      body.length === 0 ? body : Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2))
    );
    try {
      site.strapi.config.set('server.url', proxy.url);
      const result = await runTest();
      expect(result).toMatchObject({ ok: false, status: 401 });
      expect(result.message).toContain('signature does not match');
    } finally {
      await proxy.close();
    }
  });

  test('says when the public URL cannot be reached, or is not Strapi', async () => {
    const closed = await listen(() => undefined);
    const unreachableUrl = closed.url;
    await closed.close();
    site.strapi.config.set('server.url', unreachableUrl);
    const unreachable = await runTest();
    expect(unreachable.ok).toBe(false);
    expect(unreachable.message).toContain(`Could not reach ${unreachableUrl}`);

    const webPage = await listen((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>Welcome to nginx</html>');
    });
    try {
      site.strapi.config.set('server.url', webPage.url);
      const notStrapi = await runTest();
      expect(notStrapi.ok).toBe(false);
      expect(notStrapi.message).toContain('does not lead back to this Strapi');
      expect(JSON.stringify(notStrapi)).not.toContain('Welcome to nginx');
    } finally {
      await webPage.close();
    }
  });
});

describe('Test connection sends the key only to an address that leads back to this site', () => {
  const ENV_KEY = 'pb_environment_key_5d4c3b2a19080706f5e4d3c2';
  const LISTENER_MARKER = 'reply-of-the-foreign-listener';
  type Seen = { method?: string; path?: string; headers: http.IncomingHttpHeaders; body: string };

  /** A server of someone else's that answers every request like a plausible site, and notes everything. */
  async function foreignSite() {
    const seen: Seen[] = [];
    const server = await listen((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({
          method: req.method,
          path: req.url,
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        });
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ok: true,
            contract: 'v1',
            version: '1.0',
            site: { name: LISTENER_MARKER, url: 'https://fake.example' },
            capabilities: ['posts.delete'],
            probe: '0'.repeat(64),
            error: LISTENER_MARKER,
          })
        );
      });
    });
    return { ...server, seen };
  }

  const runTest = async (client: AdminClient) => {
    const reply = await client.request('POST', '/publish-bridge/connection-test');
    expect(reply.status).toBe(200);
    return reply.body.data;
  };

  const expectNothingSecretSent = (seen: Seen[], key: string) => {
    for (const request of seen) {
      const authHeaders = Object.keys(request.headers).filter((name) =>
        ['x-api-key', 'x-publisher-signature', 'x-publisher-timestamp'].includes(name)
      );
      expect({ path: request.path, authHeaders }).toEqual({ path: request.path, authHeaders: [] });
      expect(JSON.stringify(request)).not.toContain(key);
    }
  };

  beforeAll(async () => {
    await saveSettings({ connectionKey: { value: TEST_KEY } });
  });
  afterEach(async () => {
    delete process.env.PUBLISH_BRIDGE_API_KEY;
    await saveSettings({ publicUrl: '' });
  });

  test('a foreign listener as Public URL receives neither the key nor a signature, and its reply is not shown', async () => {
    const foreign = await foreignSite();
    try {
      await saveSettings({ publicUrl: foreign.url });
      const result = await runTest(settingsReader);
      expect(foreign.seen.length).toBeGreaterThan(0);
      expectNothingSecretSent(foreign.seen, TEST_KEY);
      expect(result.ok).toBe(false);
      expect(result.message).toContain('The Public URL does not lead back to this Strapi');
      expect(result).not.toHaveProperty('response');
      expect(result).not.toHaveProperty('handshake');
      expect(JSON.stringify(result)).not.toContain(LISTENER_MARKER);
    } finally {
      await foreign.close();
    }
  });

  test('a key managed by the environment is not sent to a foreign listener either, and works with the site itself', async () => {
    process.env.PUBLISH_BRIDGE_API_KEY = ENV_KEY;
    expect((await settingsView()).connectionKey.managedByEnvironment).toBe(true);
    const foreign = await foreignSite();
    try {
      await saveSettings({ publicUrl: foreign.url });
      const refused = await runTest(settingsReader);
      expectNothingSecretSent(foreign.seen, ENV_KEY);
      expect(refused.ok).toBe(false);
      expect(refused.message).toContain('The Public URL does not lead back to this Strapi');
      expect(JSON.stringify(refused)).not.toContain(LISTENER_MARKER);
    } finally {
      await foreign.close();
    }
    await saveSettings({ publicUrl: site.baseUrl });
    const works = await runTest(settingsReader);
    expect(works).toMatchObject({ ok: true, status: 200, handshake: { contract: 'v1' } });
  });

  test('the probe answers anyone without authentication, reveals no key, writes nothing, and opens no other route', async () => {
    await clearActivity();
    const nonce = 'a'.repeat(64);
    const probe = await site.send('GET', `/connection-probe/${nonce}`, undefined, { unsigned: true });
    expect(probe.status).toBe(200);
    expect(probe.body).toEqual({ probe: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(JSON.stringify(probe.body)).not.toContain(TEST_KEY);
    // Keyed with a random secret of the site's store, not with anything of the connection key, so
    // an answer anyone can ask for gives nothing to test guesses of a key against.
    const secret = await site.strapi
      .store({ type: 'plugin', name: 'publish-bridge' })
      .get({ key: 'probeSecret' });
    expect(secret).toMatch(/^[0-9a-f]{64}$/);
    expect(probe.body.probe).toBe(
      createHmac('sha256', secret as string)
        .update(nonce)
        .digest('hex')
    );
    const again = await site.send('GET', `/connection-probe/${nonce}`, undefined, { unsigned: true });
    expect(again.body).toEqual(probe.body);
    const other = await site.send('GET', `/connection-probe/${'b'.repeat(64)}`, undefined, {
      unsigned: true,
    });
    expect(other.body.probe).not.toBe(probe.body.probe);
    for (const [method, path] of [
      ['GET', '/connection-probe/short'],
      ['POST', `/connection-probe/${nonce}`],
      ['GET', `/connection-probe/${nonce}/x`],
      ['GET', '/pages'],
      ['POST', '/handshake'],
    ]) {
      const reply = await site.send(method, path, undefined, { unsigned: true });
      expect({ method, path, status: reply.status }).toEqual({ method, path, status: 401 });
      expect(reply.body).toEqual({ error: expect.any(String) });
    }
    const rows = await activityRows();
    expect(
      rows.filter((row) => String(row.path).includes('connection-probe') && row.httpStatus === 200)
    ).toEqual([]);
  });
});

describe('platform delivery log', () => {
  type Mode = 'ok' | 'unauthorized' | 'hang' | 'bad-json' | 'server-error';
  let mode: Mode = 'ok';
  let received: { path?: string; apiKey?: string } = {};
  let platform: Awaited<ReturnType<typeof listen>>;
  let postId: string;

  beforeAll(async () => {
    await saveSettings({ connectionKey: { value: TEST_KEY } });
    postId = (await site.send('POST', '/posts', { title: 'Delivered', content: '<p>x</p>', status: 'draft' }))
      .body.id;
    platform = await listen((req, res) => {
      received = { path: req.url, apiKey: req.headers['x-api-key'] as string };
      const json = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(body));
      };
      if (mode === 'hang') return;
      if (mode === 'unauthorized') return json(401, { error: 'Invalid API key' });
      if (mode === 'server-error') return json(500, { error: 'database unavailable' });
      if (mode === 'bad-json') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"status": 200, "data": [');
      }
      json(200, {
        status: 200,
        data: [
          {
            log_id: 'log-1',
            action: 'send_posts',
            status: 'success',
            request_payload: '{"title":"Delivered"}',
            response_payload: JSON.stringify({ id: postId }),
            external_id: postId,
            create_at: '2026-11-20 10:00:00',
          },
          { log_id: 2, action: 'send_posts', status: 'failed', external_id: 'gone-123', create_at: null },
        ],
      });
    });
  });
  afterAll(async () => {
    await platform?.close();
  });

  test('the platform URL and key are stored like the connection key: encrypted and masked', async () => {
    const saved = await saveSettings({ platform: { url: `${platform.url}/`, key: PLATFORM_KEY } });
    expect(saved.status).toBe(200);
    expect(saved.body.data.platform).toMatchObject({
      url: `${platform.url}/`,
      key: { last4: PLATFORM_KEY.slice(-4) },
    });
    expect(saved.text).not.toContain(PLATFORM_KEY);
    expect(await coreStoreText()).not.toContain(PLATFORM_KEY);
  });

  test('the server reads the log with x-api-key and links each external id to its Strapi entry', async () => {
    mode = 'ok';
    const reply = await superAdmin.request('GET', '/publish-bridge/platform-logs');
    expect(reply.status).toBe(200);
    expect(received).toEqual({ path: '/back/integrations/platform/logs', apiKey: PLATFORM_KEY });
    expect(reply.text).not.toContain(PLATFORM_KEY);
    expect(reply.body.data).toEqual([
      {
        log_id: 'log-1',
        action: 'send_posts',
        status: 'success',
        request_payload: '{"title":"Delivered"}',
        response_payload: JSON.stringify({ id: postId }),
        external_id: postId,
        create_at: '2026-11-20 10:00:00',
        entry: { uid: postUid(), documentId: postId },
      },
      {
        log_id: '2',
        action: 'send_posts',
        status: 'failed',
        request_payload: '',
        response_payload: '',
        external_id: 'gone-123',
        create_at: '',
      },
    ]);
  });

  test('a platform problem is a clear message, never an empty list', async () => {
    const expectations: [Mode, number, string][] = [
      ['unauthorized', 502, 'refused the log key (HTTP 401)'],
      ['bad-json', 502, 'not valid JSON'],
      ['server-error', 502, 'HTTP 500: database unavailable'],
      ['hang', 504, 'did not answer within 1 s'],
    ];
    const timeoutKey = 'plugin::publish-bridge.platform.timeoutMs';
    const originalTimeout = site.strapi.config.get(timeoutKey);
    site.strapi.config.set(timeoutKey, 600);
    try {
      for (const [problem, status, message] of expectations) {
        mode = problem;
        const reply = await superAdmin.request('GET', '/publish-bridge/platform-logs');
        expect({ problem, status: reply.status }).toEqual({ problem, status });
        expect(reply.body.error.message).toContain(message);
        expect(reply.text).not.toContain(PLATFORM_KEY);
      }
    } finally {
      site.strapi.config.set(timeoutKey, originalTimeout);
      mode = 'ok';
    }
  });
});

describe('platform delivery log: the key goes only where it was saved for', () => {
  const LOG_PATH = '/back/integrations/platform/logs';
  const platformView = async (body: unknown) => {
    const reply = await saveSettings(body);
    expect(reply.status).toBe(200);
    return reply.body.data.platform;
  };
  const storedPlatformKey = async () => (await serviceOf(site, 'settings').platform()).apiKey;
  const readLog = () => superAdmin.request('GET', '/publish-bridge/platform-logs');
  const emptyLog = (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ status: 200, data: [] }));
  };

  test('moving the platform URL to another origin drops the stored key, unless the same save brings one', async () => {
    const last4 = PLATFORM_KEY.slice(-4);
    await platformView({ platform: { url: 'https://platform.example.com/', key: PLATFORM_KEY } });
    // Same origin, another path: the key stays.
    expect(await platformView({ platform: { url: 'https://platform.example.com/tenant' } })).toMatchObject({
      key: { last4 },
    });
    expect(await platformView({ platform: { url: 'https://attacker.example.com' } })).toEqual({
      url: 'https://attacker.example.com',
    });
    expect(await storedPlatformKey()).toBeUndefined();

    // The port is part of the origin.
    await platformView({ platform: { url: 'https://platform.example.com', key: PLATFORM_KEY } });
    expect(
      (await platformView({ platform: { url: 'https://platform.example.com:8443' } })).key
    ).toBeUndefined();

    const both = await platformView({
      platform: { url: 'https://other.example.com', key: OTHER_PLATFORM_KEY },
    });
    expect(both.key.last4).toBe(OTHER_PLATFORM_KEY.slice(-4));
    expect(await storedPlatformKey()).toBe(OTHER_PLATFORM_KEY);

    expect(await platformView({ platform: { url: '' } })).toEqual({});
    expect(await storedPlatformKey()).toBeUndefined();
  });

  test('a redirect is not followed: the key never reaches the address it points to', async () => {
    const elsewhere = await recordingServer(emptyLog);
    let location = '';
    const platform = await recordingServer((_req, res) => {
      res.writeHead(302, { location });
      res.end();
    });
    try {
      await platformView({ platform: { url: platform.url, key: PLATFORM_KEY } });
      for (const target of [`${elsewhere.url}${LOG_PATH}`, `${platform.url}${LOG_PATH}/`]) {
        location = target;
        const reply = await readLog();
        expect({ target, status: reply.status }).toEqual({ target, status: 502 });
        expect(reply.body.error.message).toContain('redirect (HTTP 302)');
        expect(reply.body.error.message).toContain('set the platform URL to the final address');
        expect(reply.text).not.toContain(PLATFORM_KEY);
      }
      expect(elsewhere.requests).toEqual([]);
      expect(platform.requests).toEqual([
        { method: 'GET', path: LOG_PATH, apiKey: PLATFORM_KEY },
        { method: 'GET', path: LOG_PATH, apiKey: PLATFORM_KEY },
      ]);
    } finally {
      await Promise.all([elsewhere.close(), platform.close()]);
    }
  });

  test('loopback, private and link-local platform addresses are refused unless platform.allowedHosts lists them', async () => {
    const platform = await recordingServer(emptyLog);
    const { port } = new URL(platform.url);
    const refused: [string, string][] = [
      [platform.url, '127.0.0.1 is a loopback address'],
      [`http://[::1]:${port}`, '::1 is a loopback address'],
      ['https://10.20.30.40', '10.20.30.40 is a private address'],
      ['https://169.254.169.254', '169.254.169.254 is a link-local address'],
    ];
    // Short, so that on a build without the guard the unroutable addresses fail fast instead of hanging.
    await withConfig('plugin::publish-bridge.platform.timeoutMs', 1_000, () =>
      withConfig(PLATFORM_ALLOWED_HOSTS, [], async () => {
        for (const [url, why] of refused) {
          await platformView({ platform: { url, key: PLATFORM_KEY } });
          const reply = await readLog();
          expect({ url, status: reply.status }).toEqual({ url, status: 400 });
          expect(reply.body.error.message).toContain(why);
          expect(reply.body.error.message).toContain('platform.allowedHosts');
          expect(reply.text).not.toContain(PLATFORM_KEY);
        }
      })
    );
    expect(platform.requests).toEqual([]);

    try {
      await platformView({ platform: { url: platform.url, key: PLATFORM_KEY } });
      await withConfig(PLATFORM_ALLOWED_HOSTS, ['127.0.0.0/8'], async () => {
        const reply = await readLog();
        expect(reply.status).toBe(200);
        expect(reply.body.data).toEqual([]);
      });
      expect(platform.requests).toEqual([{ method: 'GET', path: LOG_PATH, apiKey: PLATFORM_KEY }]);
    } finally {
      await platform.close();
    }
  });
});

describe('what settings.read shows', () => {
  test('the last request is log data: only admins who hold logs.read get it', async () => {
    await saveSettings({ connectionKey: { value: TEST_KEY } });
    expect((await site.send('POST', '/handshake', {})).status).toBe(200);
    await serviceOf(site, 'activity-writer').flush();

    const logReader = await loginWithPermissions(site, [SETTINGS_READ, LOGS_READ]);
    for (const client of [superAdmin, logReader]) {
      const reply = await client.request('GET', '/publish-bridge/settings');
      expect(reply.body.data.status.lastRequest).toMatchObject({ action: 'handshake', httpStatus: 200 });
    }
    const reply = await settingsReader.request('GET', '/publish-bridge/settings');
    expect(reply.status).toBe(200);
    expect(reply.body.data.status.lastHandshakeAt).toBeDefined();
    expect(reply.body.data.status).not.toHaveProperty('lastRequest');
    expect((await settingsReader.request('GET', '/publish-bridge/activity')).status).toBe(403);
  });
});
