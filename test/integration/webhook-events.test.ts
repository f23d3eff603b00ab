import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { chooseEditorChangePolicy, loginAs, type AdminClient } from '../helpers/admin-client';
import { testDatabaseClient } from '../helpers/databases';
import { serviceOf, type Site, startSite } from '../helpers/site';
import { documentsOf, UIDS } from '../helpers/inspect';

/**
 * What the site's own webhooks (Settings → Webhooks) hear for each contract action: a search
 * index or a CDN purge acts on them, so they must be the events an editor doing the same in the
 * Content Manager would cause, for the real document, and never one for a row the plugin uses
 * internally and removes (issue 37 item 4).
 */
const db = testDatabaseClient();
const POST = UIDS.post;
const ENTRY_EVENTS = [
  'entry.create',
  'entry.update',
  'entry.delete',
  'entry.publish',
  'entry.unpublish',
  'entry.draft-discard',
];
/** An instant as the contract's `YYYY-MM-DD HH:MM:SS` in UTC (the example site's zone). */
const contractDate = (instant: Date) => instant.toISOString().slice(0, 19).replace('T', ' ');
/** How long no further delivery must arrive before an action's events count as complete. */
const QUIET_MS = 400;
const WAIT_LIMIT_MS = 15_000;

type Delivery = { event: string; uid: string; documentId: string | null };

/** A local HTTP endpoint that records what each webhook delivery says. */
async function startReceiver() {
  const deliveries: Delivery[] = [];
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      deliveries.push({ event: body.event, uid: body.uid, documentId: body.entry?.documentId ?? null });
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const close = () => {
    // The runner's fetch keeps its sockets alive; they would hold the worker open.
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return { url: `http://127.0.0.1:${port}/hook`, deliveries, close };
}

describe(`the site's webhooks on ${db} hear only true events`, () => {
  let site: Site;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let admin: AdminClient;
  let run = 0;
  /** The documentIds of the post rows that `strapi.db.lifecycles` subscribers see deleted. */
  const deletedRows: string[] = [];
  /** Every row event `strapi.db.lifecycles` subscribers see for posts, as `action documentId`. */
  const rowEvents: string[] = [];

  beforeAll(async () => {
    receiver = await startReceiver();
    site = await startSite();
    admin = await loginAs(site, 'strapi-super-admin');
    site.strapi.db.lifecycles.subscribe({
      models: [POST],
      afterDelete: (event: { result?: { documentId?: string } }) => {
        deletedRows.push(event.result?.documentId ?? 'unknown');
      },
    });
    site.strapi.db.lifecycles.subscribe((event: { action: string; model: { uid: string }; result?: any }) => {
      if (
        event.model.uid !== POST ||
        !event.action.startsWith('after') ||
        event.action.startsWith('afterFind')
      )
        return;
      const documentIds = [event.result ?? []].flat().map((row: any) => row?.documentId ?? 'unknown');
      rowEvents.push(...documentIds.map((documentId: string) => `${event.action} ${documentId}`));
    });
    // As Strapi's admin webhook controller does: store it, then have the runner listen for it.
    const webhook = await site.strapi.get('webhookStore').createWebhook({
      name: 'test receiver',
      url: receiver.url,
      headers: {},
      events: ENTRY_EVENTS,
      isEnabled: true,
    });
    site.strapi.get('webhookRunner').add(webhook);
  });
  afterAll(async () => {
    await site?.stop();
    await receiver?.close();
  });

  /**
   * Waits until at least `expected` deliveries arrived and then none for QUIET_MS, and hands them
   * over (so that each action sees only its own).
   */
  async function deliveriesAfter(expected: number): Promise<Delivery[]> {
    const deadline = Date.now() + WAIT_LIMIT_MS;
    let seen = -1;
    let quietSince = Date.now();
    while (Date.now() < deadline) {
      if (receiver.deliveries.length !== seen) {
        seen = receiver.deliveries.length;
        quietSince = Date.now();
      } else if (seen >= expected && Date.now() - quietSince >= QUIET_MS) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return receiver.deliveries.splice(0);
  }

  /**
   * The deliveries about posts, as sorted `event documentId` lines: the runner delivers from a
   * queue with concurrency 5, so the order of arrival is not the order of the events.
   */
  const postEvents = (deliveries: Delivery[]) =>
    deliveries
      .filter((delivery) => delivery.uid === POST)
      .map((delivery) => `${delivery.event} ${delivery.documentId}`)
      .sort();

  async function send(method: string, path: string, body?: Record<string, unknown>) {
    const reply = await site.send(method, path, body);
    expect(reply.status).toBe(200);
    return reply;
  }

  async function publishPost(): Promise<string> {
    run += 1;
    const reply = await send('POST', '/posts', {
      title: `Webhook title ${run}`,
      content: '<p>Reviewed body.</p>',
      status: 'publish',
      source_id: `webhook-events-${Date.now()}-${run}`,
    });
    await deliveriesAfter(2);
    return reply.body.id as string;
  }

  /** What an editor does in the Content Manager: change a field and save, without publishing. */
  async function editorSaves(documentId: string) {
    await documentsOf(site.strapi, POST).update({ documentId, data: { title: 'Unreviewed title' } });
    expect(postEvents(await deliveriesAfter(1))).toEqual([`entry.update ${documentId}`]);
  }

  test('create with status publish: the post is created and published', async () => {
    run += 1;
    const reply = await send('POST', '/posts', {
      title: `Webhook title ${run}`,
      content: '<p>Body.</p>',
      status: 'publish',
      source_id: `webhook-events-create-${Date.now()}`,
    });
    const id = reply.body.id;
    expect(postEvents(await deliveriesAfter(2))).toEqual([`entry.create ${id}`, `entry.publish ${id}`]);
  });

  test('create as a draft: the post is created, nothing published', async () => {
    const reply = await send('POST', '/posts', {
      title: 'Webhook draft',
      content: '<p>Body.</p>',
      status: 'draft',
      source_id: `webhook-events-draft-${Date.now()}`,
    });
    expect(postEvents(await deliveriesAfter(1))).toEqual([`entry.create ${reply.body.id}`]);
  });

  // Strapi's own update with status published: entry.update of the draft, then entry.publish.
  const updatedAndPublished = (id: string) => [`entry.publish ${id}`, `entry.update ${id}`];

  test('update of a published post without editor changes: updated and published', async () => {
    const id = await publishPost();
    deletedRows.splice(0);
    await send('PUT', `/posts/${id}`, { reading_time: '5 min' });
    expect(postEvents(await deliveriesAfter(2))).toEqual(updatedAndPublished(id));
    // Strapi's publish replaces the published row: lifecycles see that row deleted.
    expect(deletedRows).toEqual([id]);
  });

  test("update of a published post beside an editor's draft: the same events, nothing internal", async () => {
    const id = await publishPost();
    await editorSaves(id);
    rowEvents.splice(0);
    await send('PUT', `/posts/${id}`, { reading_time: '5 min' });
    const deliveries = await deliveriesAfter(2);
    expect(postEvents(deliveries)).toEqual(updatedAndPublished(id));
    // Lifecycles see the post's own two rows updated in place (the published one, then the
    // editor's draft), and no row created, deleted or moved under another documentId.
    expect(rowEvents).toEqual([`afterUpdate ${id}`, `afterUpdate ${id}`]);
  });

  test("an update beside an editor's draft silences nothing of a request running beside it", async () => {
    const id = await publishPost();
    await editorSaves(id);
    run += 1;
    const [, created] = await Promise.all([
      send('PUT', `/posts/${id}`, { reading_time: '6 min' }),
      send('POST', '/posts', {
        title: `Webhook title ${run}`,
        content: '<p>Body.</p>',
        status: 'publish',
        source_id: `webhook-events-beside-${Date.now()}`,
      }),
    ]);
    const other = created.body.id;
    expect(postEvents(await deliveriesAfter(4))).toEqual(
      [...updatedAndPublished(id), `entry.create ${other}`, `entry.publish ${other}`].sort()
    );
  });

  test('status draft unpublishes: updated and unpublished', async () => {
    const id = await publishPost();
    await send('PUT', `/posts/${id}`, { status: 'draft', reading_time: '9 min' });
    expect(postEvents(await deliveriesAfter(2))).toEqual([`entry.unpublish ${id}`, `entry.update ${id}`]);
  });

  // The Content Manager's Publish of a draft: the Document Service's publish, entry.publish only.
  test('status publish of a draft: published, nothing else', async () => {
    const created = await send('POST', '/posts', {
      title: 'Webhook draft to publish',
      content: '<p>Body.</p>',
      status: 'draft',
      source_id: `webhook-events-to-publish-${Date.now()}`,
    });
    const id = created.body.id;
    await deliveriesAfter(1);
    deletedRows.splice(0);
    await send('PUT', `/posts/${id}`, { status: 'publish' });
    const deliveries = await deliveriesAfter(1);
    expect(deliveries.map(({ event, uid }) => `${event} ${uid}`)).toEqual([`entry.publish ${POST}`]);
    expect(postEvents(deliveries)).toEqual([`entry.publish ${id}`]);
    // A first publish replaces no published row.
    expect(deletedRows).toEqual([]);
  });

  /** A date the test waits for, a second or two ahead: the contract's dates are whole seconds. */
  const soon = () => new Date(Math.ceil((Date.now() + 1_500) / 1000) * 1000);
  /** Lets `due` pass and runs the scheduler as its timer would. */
  async function scheduledPublishRunsAfter(due: Date) {
    await sleep(Math.max(0, due.getTime() - Date.now()) + 50);
    await serviceOf(site, 'schedules').runDue();
  }

  // At the request the post is a draft, as an editor's save with a publish date; at its date the
  // scheduler publishes it with the Document Service's publish, as a Release's scheduled publish.
  test('a publish with a future date: created as a draft, published at its date', async () => {
    const due = soon();
    const reply = await send('POST', '/posts', {
      title: 'Webhook scheduled',
      content: '<p>Body.</p>',
      status: 'publish',
      date: contractDate(due),
      source_id: `webhook-events-scheduled-${Date.now()}`,
    });
    const id = reply.body.id;
    expect(postEvents(await deliveriesAfter(1))).toEqual([`entry.create ${id}`]);
    deletedRows.splice(0);
    await scheduledPublishRunsAfter(due);
    const deliveries = await deliveriesAfter(1);
    expect(deliveries.map(({ event, uid }) => `${event} ${uid}`)).toEqual([`entry.publish ${POST}`]);
    expect(postEvents(deliveries)).toEqual([`entry.publish ${id}`]);
    expect(deletedRows).toEqual([]);
  });

  test('status publish of a draft with a future date: the date saved, published at its date', async () => {
    const created = await send('POST', '/posts', {
      title: 'Webhook draft scheduled later',
      content: '<p>Body.</p>',
      status: 'draft',
      source_id: `webhook-events-scheduled-later-${Date.now()}`,
    });
    const id = created.body.id;
    await deliveriesAfter(1);
    const due = soon();
    await send('PUT', `/posts/${id}`, { status: 'publish', date: contractDate(due) });
    expect(postEvents(await deliveriesAfter(1))).toEqual([`entry.update ${id}`]);
    await scheduledPublishRunsAfter(due);
    expect(postEvents(await deliveriesAfter(1))).toEqual([`entry.publish ${id}`]);
  });

  // An editor who published by hand before the date made the publish; the scheduler's is dropped
  // (the draft may hold the editor's later changes), so the date brings no event.
  test('a publish with a future date that an editor made by hand first: no event at the date', async () => {
    const due = soon();
    const reply = await send('POST', '/posts', {
      title: 'Webhook scheduled, published by hand',
      content: '<p>Body.</p>',
      status: 'publish',
      date: contractDate(due),
      source_id: `webhook-events-by-hand-${Date.now()}`,
    });
    const id = reply.body.id;
    await deliveriesAfter(1);
    await documentsOf(site.strapi, POST).publish({ documentId: id });
    expect(postEvents(await deliveriesAfter(1))).toEqual([`entry.publish ${id}`]);
    await scheduledPublishRunsAfter(due);
    expect(await deliveriesAfter(0)).toEqual([]);
  });

  describe("an update of fields an editor changed, under the site's policy", () => {
    afterEach(async () => {
      await chooseEditorChangePolicy(admin, 'overwrite');
    });

    /** The post's title and reading time in one version, to see that the policy acted. */
    const version = (documentId: string, status: 'draft' | 'published') =>
      documentsOf(site.strapi, POST).findOne({
        documentId,
        status,
        fields: ['title', 'readingTime'],
      });

    /** The admin panel's Publish: the Content Manager saves the draft with the change and publishes it. */
    async function editorPublishes(documentId: string) {
      const reply = await admin.request(
        'POST',
        `/content-manager/collection-types/${POST}/${documentId}/actions/publish`,
        { title: 'The editor’s title' }
      );
      expect(reply.status).toBe(200);
      expect(postEvents(await deliveriesAfter(2))).toEqual([
        `entry.publish ${documentId}`,
        `entry.update ${documentId}`,
      ]);
    }

    // The title stays the editor's; the reading time is written and published, as an editor's
    // save and Publish of that one field: entry.update of the draft, then entry.publish.
    test('keep: the other sent fields are updated and published', async () => {
      await chooseEditorChangePolicy(admin, 'keep');
      const id = await publishPost();
      await editorPublishes(id);
      deletedRows.splice(0);
      await send('PUT', `/posts/${id}`, { title: 'Platform title', reading_time: '5 min' });
      const deliveries = await deliveriesAfter(2);
      expect(deliveries.filter((delivery) => delivery.uid !== POST)).toEqual([]);
      expect(postEvents(deliveries)).toEqual(updatedAndPublished(id));
      expect(deletedRows).toEqual([id]);
      expect(await version(id, 'published')).toMatchObject({
        title: 'The editor’s title',
        readingTime: '5 min',
      });
    });

    // The same beside the editor's unpublished draft: the draft and the published version each
    // take the reading time; the internal copy that publishes it is not heard.
    test("keep beside an editor's draft: the same events, nothing internal", async () => {
      await chooseEditorChangePolicy(admin, 'keep');
      const id = await publishPost();
      await editorSaves(id);
      rowEvents.splice(0);
      await send('PUT', `/posts/${id}`, { title: 'Platform title', reading_time: '5 min' });
      const deliveries = await deliveriesAfter(2);
      expect(deliveries.filter((delivery) => delivery.uid !== POST)).toEqual([]);
      expect(postEvents(deliveries)).toEqual(updatedAndPublished(id));
      expect(rowEvents).toEqual([`afterUpdate ${id}`, `afterUpdate ${id}`]);
      expect(await version(id, 'draft')).toMatchObject({ title: 'Unreviewed title', readingTime: '5 min' });
      expect((await version(id, 'published')).readingTime).toBe('5 min');
    });

    // Every sent field is the editor's and stays so: nothing is written, so nothing is heard.
    test('keep, with only fields the editor changed: no event', async () => {
      await chooseEditorChangePolicy(admin, 'keep');
      const id = await publishPost();
      await editorPublishes(id);
      deletedRows.splice(0);
      await send('PUT', `/posts/${id}`, { title: 'Platform title' });
      expect(await deliveriesAfter(0)).toEqual([]);
      expect(deletedRows).toEqual([]);
      expect((await version(id, 'draft')).title).toBe('The editor’s title');
    });

    // The update goes to the draft for review and nothing is published, as an editor's Save:
    // entry.update only, also when the body asks for status publish.
    test('draft: the draft is updated, nothing published', async () => {
      await chooseEditorChangePolicy(admin, 'draft');
      const id = await publishPost();
      await editorPublishes(id);
      deletedRows.splice(0);
      await send('PUT', `/posts/${id}`, {
        title: 'Platform title',
        reading_time: '5 min',
        status: 'publish',
      });
      const deliveries = await deliveriesAfter(1);
      expect(deliveries.filter((delivery) => delivery.uid !== POST)).toEqual([]);
      expect(postEvents(deliveries)).toEqual([`entry.update ${id}`]);
      expect(deletedRows).toEqual([]);
      expect(await version(id, 'draft')).toMatchObject({ title: 'Platform title', readingTime: '5 min' });
      expect(await version(id, 'published')).toMatchObject({
        title: 'The editor’s title',
        readingTime: null,
      });
    });

    // The same beside the editor's unpublished draft: the update goes into that draft, as a Save.
    test("draft beside an editor's draft: the draft is updated, nothing published", async () => {
      await chooseEditorChangePolicy(admin, 'draft');
      const id = await publishPost();
      await editorSaves(id);
      deletedRows.splice(0);
      await send('PUT', `/posts/${id}`, { title: 'Platform title', reading_time: '5 min' });
      const deliveries = await deliveriesAfter(1);
      expect(deliveries.filter((delivery) => delivery.uid !== POST)).toEqual([]);
      expect(postEvents(deliveries)).toEqual([`entry.update ${id}`]);
      expect(deletedRows).toEqual([]);
      expect((await version(id, 'published')).readingTime).toBeNull();
    });
  });

  test('delete: both versions are deleted', async () => {
    const id = await publishPost();
    await send('DELETE', `/posts/${id}`);
    expect(postEvents(await deliveriesAfter(2))).toEqual([`entry.delete ${id}`, `entry.delete ${id}`]);
  });
});
