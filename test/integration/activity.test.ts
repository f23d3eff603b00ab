import { queryOf, rowsOf, UIDS } from '../helpers/inspect';
import { startInstance } from '../helpers/instances';
import { PREFIX, type Reply, serviceOf, useSite } from '../helpers/site';

/**
 * The activity log under a flood of unauthenticated requests: refusals are counted in a few
 * aggregate rows, so strangers cannot push the publisher's deliveries out of the retained log.
 */
const ACTIVITY = UIDS.activityEntry;
const WRONG_KEY = 'pb_not_the_key_of_this_site_0123456789';
const PARALLEL = 50;

const activity = () => serviceOf(site, 'activity');
const writer = () => serviceOf(site, 'activity-writer');

const site = useSite();
beforeEach(async () => {
  await writer().flush();
  await queryOf(site.strapi, ACTIVITY).deleteMany({});
});

/** Sends `count` requests, `PARALLEL` at a time; returns how many got each status. */
async function flood(count: number, send: (index: number) => Promise<Reply>) {
  const statuses: Record<number, number> = {};
  for (let start = 0; start < count; start += PARALLEL) {
    const batch = Array.from({ length: Math.min(PARALLEL, count - start) }, (_, i) => send(start + i));
    for (const { status } of await Promise.all(batch)) statuses[status] = (statuses[status] ?? 0) + 1;
  }
  return statuses;
}

/** Signed requests the site accepts; returns their request ids in the order sent. */
async function deliver(count: number) {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const reply = await site.send('POST', '/handshake', {});
    expect(reply.status).toBe(200);
    ids.push(reply.headers.get('x-request-id')!);
  }
  return ids;
}

const unsigned = (index: number) =>
  site.send('POST', '/posts', { title: `junk ${index}` }, { unsigned: true });
const wrongKey = (index: number, headers: Record<string, string> = {}) =>
  site.send('GET', `/pages?page=${index}`, undefined, { key: WRONG_KEY, headers });

async function loggedRows() {
  await writer().flush();
  const rows = await rowsOf(site.strapi, ACTIVITY);
  return {
    individual: rows.filter((row) => row.action !== 'unauthenticated').sort((a, b) => a.id - b.id),
    aggregates: rows.filter((row) => row.action === 'unauthenticated'),
  };
}

const countsByRefusal = (aggregates: Record<string, any>[]) => {
  const counts: Record<string, number> = {};
  for (const row of aggregates) counts[row.refusal] = (counts[row.refusal] ?? 0) + Number(row.count);
  return counts;
};

/** Minutes touched between two instants: aggregates are per minute, so a run may straddle one. */
const minutesBetween = (start: number, end: number) =>
  Math.floor(end / 60_000) - Math.floor(start / 60_000) + 1;

test('2,000 refusals become a few counted rows, and every signed delivery keeps a row of its own', async () => {
  const startedAt = Date.now();
  const before = await deliver(3);
  expect(await flood(1_000, unsigned)).toEqual({ 401: 1_000 });
  const between = await deliver(2);
  expect(await flood(1_000, (index) => wrongKey(index))).toEqual({ 401: 1_000 });
  const after = await deliver(1);
  const minutes = minutesBetween(startedAt, Date.now());

  const { individual, aggregates } = await loggedRows();
  expect(individual.map((row) => row.requestId)).toEqual([...before, ...between, ...after]);
  expect(individual.every((row) => row.count === 1 && row.httpStatus === 200)).toBe(true);

  expect(countsByRefusal(aggregates)).toEqual({ missing_header: 1_000, wrong_key: 1_000 });
  expect(aggregates.length).toBeLessThanOrEqual(2 * minutes);
  const samples: Record<string, object> = {
    missing_header: {
      method: 'POST',
      path: `${PREFIX}/posts`,
      reason: expect.stringContaining('Missing header X-API-Key'),
    },
    wrong_key: { method: 'GET', path: `${PREFIX}/pages`, reason: expect.stringContaining('does not match') },
  };
  for (const row of aggregates) {
    expect(row).toMatchObject({ httpStatus: 401, outcome: 'rejected', sourceAddress: '127.0.0.1' });
    expect(row).toMatchObject(samples[row.refusal]);
    expect(new Date(row.lastSeenAt).getTime()).toBeGreaterThanOrEqual(new Date(row.receivedAt).getTime());
  }
});

test('with a small maxEntries, a flood of refusals does not push the deliveries out of the log', async () => {
  const configKey = 'plugin::publish-bridge.activityLog';
  const original = site.strapi.config.get(configKey);
  site.strapi.config.set(configKey, { maxEntries: 100, maxAgeDays: 30 });
  try {
    const delivered = await deliver(5);
    expect(await flood(2_000, (index) => wrongKey(index))).toEqual({ 401: 2_000 });
    await writer().flush();
    await writer().prune();

    const { individual, aggregates } = await loggedRows();
    expect(individual.map((row) => row.requestId)).toEqual(delivered);
    expect(countsByRefusal(aggregates)).toEqual({ wrong_key: 2_000 });
  } finally {
    site.strapi.config.set(configKey, original);
  }
});

test('forged source addresses behind a trusted proxy fold into a bounded number of rows', async () => {
  const app = site.strapi.server.app;
  const trustedProxy = app.proxy;
  // As with `server.proxy.koa: true`: ctx.ip then comes from X-Forwarded-For, which the sender chooses.
  app.proxy = true;
  try {
    const startedAt = Date.now();
    const forged = (index: number) => `198.51.${index >> 8}.${index & 255}`;
    const sent = 600;
    expect(await flood(sent, (index) => wrongKey(index, { 'X-Forwarded-For': forged(index) }))).toEqual({
      401: sent,
    });
    const minutes = minutesBetween(startedAt, Date.now());

    const { individual, aggregates } = await loggedRows();
    expect(individual).toEqual([]);
    expect(countsByRefusal(aggregates)).toEqual({ wrong_key: sent });
    // At most 100 addresses of their own per minute, plus one "other addresses" aggregate per reason.
    expect(aggregates.length).toBeLessThanOrEqual(101 * minutes);
    const addresses = new Set(aggregates.map((row) => row.sourceAddress));
    expect(addresses.has(forged(0))).toBe(true);
    const folded = aggregates.filter((row) => row.sourceAddress === null);
    expect(folded.length).toBeGreaterThan(0);
    expect(folded.reduce((sum, row) => sum + Number(row.count), 0)).toBeGreaterThanOrEqual(
      sent - 100 * minutes
    );
  } finally {
    app.proxy = trustedProxy;
  }
});

test('refusal counts have a budget of their own: however many there are, deliveries are never pruned for them', async () => {
  const configKey = 'plugin::publish-bridge.activityLog';
  const original = site.strapi.config.get(configKey);
  const app = site.strapi.server.app;
  const trustedProxy = app.proxy;
  site.strapi.config.set(configKey, { maxEntries: 100, maxAgeDays: 30 });
  app.proxy = true;
  try {
    const delivered = await deliver(5);
    // Two reasons from 150 forged addresses each: more counted rows than maxEntries allows.
    const forged = (index: number) => `203.0.${index >> 8}.${index & 255}`;
    await flood(150, (index) => wrongKey(index, { 'X-Forwarded-For': forged(index) }));
    await flood(150, (index) =>
      site.send('POST', '/posts', {}, { unsigned: true, headers: { 'X-Forwarded-For': forged(index) } })
    );
    await flood(150, (index) => wrongKey(index, { 'X-Forwarded-For': forged(1_000 + index) }));
    await writer().flush();
    await writer().prune();

    const { individual, aggregates } = await loggedRows();
    expect(individual.map((row) => row.requestId)).toEqual(delivered);
    expect(aggregates.length).toBe(100);
    // Some counted rows were pruned to stay within their budget: they outnumbered it.
    expect(aggregates.reduce((sum, row) => sum + Number(row.count), 0)).toBeLessThan(450);
  } finally {
    site.strapi.config.set(configKey, original);
    app.proxy = trustedProxy;
  }
});

test('a log table written by an older version gains the new columns at boot and keeps its rows', async () => {
  const knex = site.strapi.db.connection;
  const table = 'publish_bridge_activity';
  const added = ['count', 'refusal', 'source_address', 'last_seen_at'];
  // The table and the stored schema as the previous version of the plugin left them, with a row.
  await knex.schema.alterTable(table, (builder) => builder.dropColumns(...added));
  const [stored] = await knex('strapi_database_schema').select('*');
  const schema = typeof stored.schema === 'string' ? JSON.parse(stored.schema) : stored.schema;
  const storedTable = schema.tables.find((candidate: { name: string }) => candidate.name === table);
  storedTable.columns = storedTable.columns.filter(
    (column: { name: string }) => !added.includes(column.name)
  );
  await knex('strapi_database_schema')
    .where({ id: stored.id })
    .update({ schema: JSON.stringify(schema), hash: 'previous-version' });
  await knex(table).insert({
    received_at: new Date(),
    request_id: 'from-the-previous-version',
    method: 'POST',
    path: `${PREFIX}/handshake`,
    action: 'handshake',
    http_status: 200,
    outcome: 'success',
    duration_ms: 3,
  });

  // A new instance boots on that database, as after an upgrade.
  const upgraded = await startInstance({ ...site.database.env, PUBLISH_BRIDGE_CONTENT_TYPES: 'plugin' });
  await upgraded.stop();

  for (const column of added) expect(await knex.schema.hasColumn(table, column)).toBe(true);
  writer().recordRefusal({
    at: new Date(),
    reason: 'wrong_key',
    sourceAddress: '203.0.113.7',
    method: 'GET',
    path: `${PREFIX}/pages`,
    status: 401,
    message: 'wrong key',
  });
  await writer().flush();
  const { results } = await activity().list({ page: 1, pageSize: 10, filters: [], userAbility: undefined });
  expect(results.map((item: any) => [item.requestId, item.action, item.count, item.sourceAddress])).toEqual([
    [undefined, 'unauthenticated', 1, '203.0.113.7'],
    ['from-the-previous-version', 'handshake', 1, undefined],
  ]);
});
