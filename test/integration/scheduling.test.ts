import { setTimeout as sleep } from 'node:timers/promises';
import { serviceOf, useSite } from '../helpers/site';
import { documentsOf, queryOf, UIDS } from '../helpers/inspect';

const POST = UIDS.post;
const MANAGED_ENTRY = UIDS.managedEntry;

/** An instant as the contract's `YYYY-MM-DD HH:MM:SS` in UTC (the example site's zone). */
const contractDate = (instant: Date) => instant.toISOString().slice(0, 19).replace('T', ' ');

describe('scheduled publishing', () => {
  const site = useSite({ PUBLISH_BRIDGE_SCHEDULING_POLL_MS: '300' });

  const documents = (uid: string) => documentsOf(site.strapi, uid);
  const schedules = () => serviceOf(site, 'schedules');
  const title = async (documentId: string, status: 'draft' | 'published') =>
    ((await documents(POST).findOne({ documentId, status })) as { title: string } | null)?.title ?? null;
  /** The plugin writes its bookkeeping rows with raw queries, so they have no documentId to find them by. */
  const waiting = async (documentId: string) =>
    (await queryOf(site.strapi, MANAGED_ENTRY).findOne({ where: { entryDocumentId: documentId } }))
      ?.scheduledAt ?? null;

  async function send(method: string, path: string, body?: object) {
    const reply = await site.send(method, path, body);
    expect(reply).toMatchObject({ status: 200 });
    return reply.body;
  }
  const create = async (body: object) => (await send('POST', '/posts', { content: '<p>c</p>', ...body })).id;

  /** A date the test waits for: the contract's dates are whole seconds. */
  const soon = () => new Date(Math.ceil((Date.now() + 2_500) / 1000) * 1000);
  const inAnHour = () => contractDate(new Date(Date.now() + 3_600_000));
  async function waitPast(instant: Date) {
    await sleep(Math.max(0, instant.getTime() - Date.now()) + 50);
    await schedules().runDue();
  }

  it('stores a future publish as a draft and publishes it at its date; a PUT moves or cancels it, a DELETE drops it', async () => {
    const due = soon();
    const date = contractDate(due);
    const plain = await create({ title: 'Plain', status: 'publish', date });
    const movedEarlier = await create({ title: 'Moved earlier', status: 'publish', date: inAnHour() });
    const movedLater = await create({ title: 'Moved later', status: 'publish', date });
    const cancelled = await create({ title: 'Cancelled', status: 'publish', date });
    const deleted = await create({ title: 'Deleted', status: 'publish', date });
    const backdated = await create({ title: 'Backdated', status: 'publish', date: inAnHour() });

    expect(await title(plain, 'draft')).toBe('Plain');
    expect(await title(plain, 'published')).toBeNull();
    expect(new Date(await waiting(plain)).toISOString()).toBe(due.toISOString());

    await send('PUT', `/posts/${movedEarlier}`, { date });
    await send('PUT', `/posts/${movedLater}`, { status: 'publish', date: inAnHour() });
    await send('PUT', `/posts/${cancelled}`, { status: 'draft' });
    await send('DELETE', `/posts/${deleted}`);
    // A date moved into the past publishes at once: the publish it asked for is due.
    await send('PUT', `/posts/${backdated}`, { date: '2026-01-01 08:00:00' });
    expect(await title(backdated, 'published')).toBe('Backdated');
    expect(await waiting(backdated)).toBeNull();

    await waitPast(due);
    expect(await title(plain, 'published')).toBe('Plain');
    expect(await title(movedEarlier, 'published')).toBe('Moved earlier');
    expect(await title(movedLater, 'published')).toBeNull();
    expect(await waiting(movedLater)).not.toBeNull();
    expect(await title(cancelled, 'published')).toBeNull();
    expect(await waiting(cancelled)).toBeNull();
    expect(await documents(POST).findOne({ documentId: deleted })).toBeNull();
    expect(await waiting(plain)).toBeNull();
    expect(await documents(POST).count({ filters: { documentId: plain }, status: 'published' })).toBe(1);
  });

  it('says when the post will be published, in the notes the activity log keeps', async () => {
    const id = await create({ title: 'Noted', status: 'draft' });
    const at = new Date(Date.now() + 3_600_000);
    const { notes } = await serviceOf(site, 'posts').update(id, {
      status: 'publish',
      date: contractDate(at),
    });
    expect(notes).toContain(`scheduled for ${contractDate(at).replace(' ', 'T')}.000Z`);
  });

  it("does not publish the draft over an editor's publish by hand before the date, and drops the schedule", async () => {
    const due = soon();
    const id = await create({ title: 'From the platform', status: 'publish', date: contractDate(due) });
    await documents(POST).update({ documentId: id, data: { title: 'Published by an editor' } });
    await documents(POST).publish({ documentId: id });
    await documents(POST).update({ documentId: id, data: { title: 'Not reviewed yet' } });

    await waitPast(due);
    expect(await title(id, 'published')).toBe('Published by an editor');
    expect(await title(id, 'draft')).toBe('Not reviewed yet');
    expect(await waiting(id)).toBeNull();
  });

  it('publishes at the next start what came due while the site was down', async () => {
    await schedules().stop();
    const due = soon();
    const id = await create({ title: 'Late', status: 'publish', date: contractDate(due) });
    await sleep(due.getTime() - Date.now() + 50);
    expect(await title(id, 'published')).toBeNull();

    schedules().start();
    await schedules().runDue();
    expect(await title(id, 'published')).toBe('Late');
  });

  it('with scheduling off, publishes a future post at once (the behaviour before scheduling)', async () => {
    const config = 'plugin::publish-bridge.scheduling.enabled';
    site.strapi.config.set(config, false);
    try {
      const id = await create({ title: 'At once', status: 'publish', date: inAnHour() });
      expect(await title(id, 'published')).toBe('At once');
      expect(await waiting(id)).toBeNull();
    } finally {
      site.strapi.config.set(config, true);
    }
  });
});
