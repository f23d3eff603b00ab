import type { Instance } from '../helpers/instances';
import { siteCopyPerTest } from '../helpers/site-copy';

/**
 * People disable a plugin to debug, or remove its package and put it back. Such a start must not
 * cost the plugin its memory: which entries are the platform's, their revisions, schedules and
 * receipts, the activity log, and the roles' permissions. Every start here is a real start of a
 * process of its own on one database.
 */
const PB = 'plugin::publish-bridge';
/** Everything the plugin keeps in its own types, content included (every resource in the plugin's types). */
const KEPT_TYPES = ['post', 'blog-category', 'tag', 'author', 'identity', 'revision', 'managed-entry'].map(
  (name) => `${PB}.${name}`
);
/** Where the plugin remembers the roles' permissions, in Strapi's core store. */
const MEMORY_KEY = 'plugin_publish-bridge_role-permissions';
const LOG_READER_PERMISSIONS = [
  { action: `${PB}.logs.read`, subject: null, properties: {}, conditions: [] },
  {
    action: 'plugin::content-manager.explorer.read',
    subject: `${PB}.post`,
    properties: { fields: ['title', 'slug'] },
    conditions: [],
  },
];

const sites = siteCopyPerTest({ PUBLISH_BRIDGE_CONTENT_TYPES: 'plugin' });
const start = sites.start;

const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString().slice(0, 19).replace('T', ' ');

const post = {
  title: 'Kept across a disable',
  content: '<p>First version.</p>',
  status: 'publish',
  categories: ['Brewing'],
  tags: ['grinder'],
  author: 'Ada Barista',
  source_id: 'src-kept-1',
};

async function counts(site: Instance): Promise<Record<string, number>> {
  const counted: Record<string, number> = {};
  for (const uid of KEPT_TYPES) counted[uid] = await site.call<number>('query', uid, 'count', {});
  return counted;
}

/** The actions the plugin remembers (its row in the core store) for one role. */
async function rememberedActionsOf(site: Instance, roleId: number): Promise<string[]> {
  const row = await site.call<{ value: string } | null>('query', 'strapi::core-store', 'findOne', {
    where: { key: MEMORY_KEY },
  });
  const memory = JSON.parse(row?.value ?? '[]') as { action: string; role: number }[];
  return memory
    .filter((permission) => permission.role === roleId)
    .map((permission) => permission.action)
    .sort();
}

/** Waits until the plugin's memory of a role holds `actions`, as its watch writes it a moment after a change. */
async function untilRemembered(site: Instance, roleId: number, actions: string[]) {
  const giveUpAt = Date.now() + 10_000;
  while (JSON.stringify(await rememberedActionsOf(site, roleId)) !== JSON.stringify(actions)) {
    if (Date.now() > giveUpAt) throw new Error(`The plugin never remembered ${actions.join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function permissionsOf(site: Instance, roleId: number) {
  const rows = await site.call<{ action: string; subject: string | null; properties: unknown }[]>(
    'query',
    'admin::permission',
    'findMany',
    { where: { role: roleId } }
  );
  return rows
    .map(({ action, subject, properties }) => ({ action, subject, properties }))
    .sort((a, b) => a.action.localeCompare(b.action));
}

test('starts without the plugin (disabled, then removed) lose nothing: the next publish updates the same entries', async () => {
  let site = await start();
  const created = await site.send('POST', '/posts', post);
  expect(created.status).toBe(200);
  const id = created.body.id;
  expect((await site.send('PUT', `/posts/${id}`, { content: '<p>Second version.</p>' })).status).toBe(200);
  const later = await site.send('POST', '/posts', {
    title: 'Waits for its date',
    content: '<p>Later.</p>',
    status: 'publish',
    date: inAnHour(),
    source_id: 'src-later',
  });
  expect(later.status).toBe(200);
  // A deleted post is kept as a revision, which an admin can restore.
  const deleted = await site.send('POST', '/posts', { ...post, title: 'Deleted', source_id: 'src-deleted' });
  expect((await site.send('DELETE', `/posts/${deleted.body.id}`)).status).toBe(200);
  const role = await site.call<{ id: number }>('adminService', 'role', 'create', {
    name: 'Log reader',
    description: 'Reads the plugin logs and its posts',
  });
  await site.call('adminService', 'role', 'assignPermissions', role.id, LOG_READER_PERMISSIONS);
  const granted = await permissionsOf(site, role.id);
  expect(granted.map((permission) => permission.action)).toEqual([
    'plugin::content-manager.explorer.read',
    `${PB}.logs.read`,
  ]);
  const before = await counts(site);
  expect(before[`${PB}.revision`]).toBeGreaterThan(0);
  // No wait: the memory of a change to roles, written a moment after it, is written when Strapi stops.

  site = await start({ enabled: false });
  expect((await fetch(`${site.baseUrl}/api/authors`)).status).toBe(200);
  site = await start('removed');
  expect((await fetch(`${site.baseUrl}/api/authors`)).status).toBe(200);

  site = await start();
  expect(await counts(site)).toEqual(before);
  expect(await permissionsOf(site, role.id)).toEqual(granted);
  const updated = await site.send('PUT', `/posts/${id}`, { content: '<p>Third version.</p>' });
  expect(updated.status).toBe(200);
  const republished = await site.send('POST', '/posts', { ...post, title: 'Republished' });
  expect(republished.status).toBe(200);
  expect(republished.body.id).toBe(id);
  expect(await site.call<number>('query', `${PB}.post`, 'count', { where: { sourceId: 'src-kept-1' } })).toBe(
    2
  );
  // The post that waits for its date still waits: its schedule is kept.
  const waiting = await site.call<unknown[]>('query', `${PB}.managed-entry`, 'findMany', {
    where: { entryDocumentId: later.body.id, scheduledAt: { $notNull: true } },
  });
  expect(waiting).toHaveLength(1);
});

test('a start without the plugin elsewhere on the database does not make a running instance forget the roles', async () => {
  let site = await start();
  const role = await site.call<{ id: number }>('adminService', 'role', 'create', {
    name: 'Log reader',
    description: 'Reads the plugin logs',
  });
  await site.call('adminService', 'role', 'assignPermissions', role.id, LOG_READER_PERMISSIONS);
  const granted = await permissionsOf(site, role.id);
  // Remembered a moment after the change, before another instance's start below.
  await untilRemembered(
    site,
    role.id,
    granted.map((permission) => permission.action)
  );
  // What another instance's start without the plugin does to the shared database (Strapi's admin
  // deletes permissions on actions and types it does not know), seen by a running instance that
  // then saves a role: it must not remember the emptied state.
  await site.call('query', 'admin::permission', 'deleteMany', {
    where: { action: { $startsWith: `${PB}.` } },
  });
  await site.call('query', 'admin::permission', 'deleteMany', {
    where: { subject: { $startsWith: `${PB}.` } },
  });
  await site.call('adminService', 'role', 'assignPermissions', role.id, []);
  await new Promise((resolve) => setTimeout(resolve, 500));

  site = await start();
  expect(await permissionsOf(site, role.id)).toEqual(granted);
});

test("a tampered memory of the roles gives back only permissions on the plugin's own actions and types", async () => {
  // Tampered while the plugin is off (the example's template database was started with it), so
  // nothing rewrites the memory before the next start with the plugin reads it.
  let site = await start({ enabled: false });
  const role = await site.call<{ id: number; code: string }>('adminService', 'role', 'create', {
    name: 'Editor of nothing',
    description: 'Holds no permission',
  });
  const entry = (action: string, subject: string | null, extra: object = {}) => ({
    action,
    actionParameters: {},
    subject,
    properties: {},
    conditions: [],
    role: role.id,
    roleCode: role.code,
    ...extra,
  });
  // What someone with write access to the core store, or a memory left by another site, could hold.
  const memory = [
    entry(`${PB}.logs.read`, null),
    entry('plugin::content-manager.explorer.delete', 'api::article.article'),
    entry('admin::users.delete', null),
    entry(`${PB}.settings.update`, null, { role: 'not a role id' }),
    entry(`${PB}.settings.read`, null, { roleCode: 'strapi-super-admin' }),
    'not a permission',
  ];
  const written = await site.call<{ count: number }>('query', 'strapi::core-store', 'updateMany', {
    where: { key: MEMORY_KEY },
    data: { value: JSON.stringify(memory) },
  });
  expect(written.count).toBe(1);

  site = await start();
  expect((await fetch(`${site.baseUrl}/api/authors`)).status).toBe(200);
  expect(await permissionsOf(site, role.id)).toEqual([
    { action: `${PB}.logs.read`, subject: null, properties: {} },
  ]);
});

test('a row of the plugin in the core store that no longer parses never stops the site', async () => {
  // The memory is read after a start without the plugin: corrupted during one (the example's
  // template database was started with the plugin, which remembered the roles then).
  let site = await start({ enabled: false });
  const corrupted = await site.call<{ count: number }>('query', 'strapi::core-store', 'updateMany', {
    where: { key: MEMORY_KEY },
    data: { value: '{"cut off' },
  });
  expect(corrupted.count).toBe(1);
  // Strapi's store reads a row that does not parse as an Invalid Date.
  site = await start();
  expect((await fetch(`${site.baseUrl}/api/authors`)).status).toBe(200);
  expect((await site.send('POST', '/handshake', {})).status).toBe(200);
});

test('uninstall: after prepare, one start without the plugin leaves nothing of it but the content of the site', async () => {
  let site = await start(undefined, { PUBLISH_BRIDGE_CONTENT_TYPES: 'site' });
  const created = await site.send('POST', '/posts', post);
  expect(created.status).toBe(200);
  expect(Object.keys(await site.call<Record<string, string[]>>('pluginIndexes'))).toContain('articles');
  // The site moves the posts to the plugin's types: its articles keep the indexes an earlier mapping made.
  site = await start(undefined, { PUBLISH_BRIDGE_CONTENT_TYPES: 'plugin' });
  const report = await site.call<{ tables: string[]; indexes: string[]; settings: number }>(
    'pluginService',
    'uninstall',
    'prepare'
  );
  expect(report.tables).toEqual(
    expect.arrayContaining(['publish_bridge_identities', 'publish_bridge_revisions'])
  );
  expect(report.indexes).toEqual(expect.arrayContaining([expect.stringMatching(/^articles_slug_/)]));
  expect((await site.send('POST', '/posts', { ...post, source_id: 'src-after' })).status).toBe(503);

  site = await start('removed');
  const tables = await site.call<string[]>('tables');
  expect(tables.filter((table) => table.startsWith('publish_bridge_'))).toEqual([]);
  expect(await site.call('pluginIndexes')).toEqual({});
  const settings = await site.call<unknown[]>('query', 'strapi::core-store', 'findMany', {
    where: { key: { $startsWith: 'plugin_publish-bridge_' } },
  });
  expect(settings).toEqual([]);
  const persisted = await site.call<{ value: string }>('query', 'strapi::core-store', 'findOne', {
    where: { key: 'core_persisted_tables' },
  });
  expect(persisted?.value ?? '').not.toMatch(/publish_bridge_/);
  const permissions = await site.call<number>('query', 'admin::permission', 'count', {
    where: { action: { $startsWith: 'plugin::publish-bridge.' } },
  });
  expect(permissions).toBe(0);
  // The post the platform published is the site's article: it stays.
  const article = await site.call<{ title: string } | null>(
    'findDocument',
    'api::article.article',
    created.body.id
  );
  expect(article?.title).toBe(post.title);
});
