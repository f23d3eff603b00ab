import { setTimeout as sleep } from 'node:timers/promises';
import { chooseEditorChangePolicy, loginAs, type AdminClient } from '../helpers/admin-client';
import { testDatabaseClient } from '../helpers/databases';
import { refuseDraftMarks } from '../helpers/draft-mark-fault';
import { contractDate, scheduleSoon, schedulerEntries, waitPast } from '../helpers/scheduling';
import { serviceOf, useSite } from '../helpers/site';
import { documentsOf, queryOf, UIDS } from '../helpers/inspect';

/**
 * A scheduled publish against the editors and against posts that cannot be published: an
 * editor's decision on publication wins over the schedule, a schedule never publishes a draft the
 * platform did not send, and a post whose publish fails never holds the others back. Editors act
 * through the Content Manager's own API, as in the admin panel.
 */
const db = testDatabaseClient();
const POST = UIDS.post;
const MANAGED_ENTRY = UIDS.managedEntry;
const CONTENT_MANAGER = `/content-manager/collection-types/${POST}`;

describe(`scheduled publishes and editors on ${db}`, () => {
  let editor: AdminClient;

  const site = useSite({ PUBLISH_BRIDGE_SCHEDULING_POLL_MS: '300' });
  beforeAll(async () => {
    editor = await loginAs(site, 'strapi-super-admin');
  });

  const documents = (uid: string) => documentsOf(site.strapi, uid);
  const rows = (uid: string) => queryOf(site.strapi, uid);
  const schedules = () => serviceOf(site, 'schedules');
  const title = async (documentId: string, status: 'draft' | 'published') =>
    ((await documents(POST).findOne({ documentId, status })) as { title: string } | null)?.title ?? null;
  /** The plugin writes its bookkeeping rows with raw queries, so they have no documentId to find them by. */
  const managedEntry = (documentId: string) =>
    rows(MANAGED_ENTRY).findOne({ where: { entryDocumentId: documentId } });

  async function editorDoes(action: 'publish' | 'unpublish', documentId: string) {
    const reply = await editor.request('POST', `${CONTENT_MANAGER}/${documentId}/actions/${action}`, {});
    expect(reply.status).toBe(200);
  }

  /** The post stayed an unpublished draft, nothing waits for it, and one activity log row says why. */
  async function expectCancelled(id: string, draftTitle: string, reason: RegExp) {
    expect(await title(id, 'published')).toBeNull();
    expect(await title(id, 'draft')).toBe(draftTitle);
    expect((await managedEntry(id)).scheduledAt).toBeNull();
    const [entry, ...more] = await schedulerEntries(site, id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ outcome: 'rejected', httpStatus: 409, path: `/posts/${id}` });
    expect(entry.reason).toMatch(reason);
  }

  it('leaves unpublished a post an editor published by hand and then unpublished before its date, and says so once', async () => {
    const { id, due } = await scheduleSoon(site, 'Pulled by an editor');
    await editorDoes('publish', id);
    await editorDoes('unpublish', id);

    await waitPast(site, due);
    await expectCancelled(id, 'Pulled by an editor', /cancelled: an editor published .* by hand/);
  });

  it('does not publish a draft an editor changed after the platform sent it: the schedule is cancelled, the draft kept', async () => {
    const { id, due } = await scheduleSoon(site, 'From the platform');
    const edit = await editor.request('PUT', `${CONTENT_MANAGER}/${id}`, { title: 'WIP NOT READY' });
    expect(edit.status).toBe(200);

    await waitPast(site, due);
    await expectCancelled(
      id,
      'WIP NOT READY',
      /cancelled: title changed in Strapi since the platform sent it/
    );
  });

  /**
   * A due post an editor saves in the Content Manager: a field the platform never sent, so only
   * the save itself tells of the change. `during` runs once the save committed, before anything
   * else hears of it (the innermost Document Service middleware); the timer is stopped meanwhile.
   */
  async function editorSavesDuePost(postTitle: string, during: () => Promise<unknown> = async () => {}) {
    await schedules().stop();
    const { id, due } = await scheduleSoon(site, postTitle);
    await sleep(Math.max(0, due.getTime() - Date.now()) + 50);
    const stopWatching = site.strapi.documents.use(async (context, next) => {
      const result = await next();
      const documentId = (context.params as { documentId?: unknown }).documentId;
      if (context.action === 'update' && documentId === id) await during();
      return result;
    });
    try {
      const edit = await editor.request('PUT', `${CONTENT_MANAGER}/${id}`, { excerpt: 'Editor only' });
      expect(edit.status).toBe(200);
    } finally {
      (stopWatching as unknown as () => void)();
      schedules().start();
    }
    return { id, due };
  }

  const SAVED = /cancelled: an editor saved the draft in Strapi and did not publish it/;

  it("does not publish a draft the scheduler reaches between an editor's save and the plugin's note of it", async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    try {
      const { id } = await editorSavesDuePost('Saved in the window', () => schedules().runDue());

      await schedules().runDue();
      await expectCancelled(id, 'Saved in the window', SAVED);
      expect((await documents(POST).findOne({ documentId: id })).excerpt).toBe('Editor only');
    } finally {
      await chooseEditorChangePolicy(editor, 'overwrite');
    }
  });

  it("does not publish a draft an editor saved when the database refused the plugin's note of the save", async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    const allowDraftMarks = await refuseDraftMarks(site);
    try {
      const { id, due } = await editorSavesDuePost('Saved, note refused');

      await waitPast(site, due);
      await expectCancelled(id, 'Saved, note refused', SAVED);
      expect((await documents(POST).findOne({ documentId: id })).excerpt).toBe('Editor only');
    } finally {
      await allowDraftMarks();
      await chooseEditorChangePolicy(editor, 'overwrite');
    }
  });

  it('publishes an ordinary due post within one run behind 100 due posts that cannot be published, and reports each failure once', async () => {
    await schedules().stop();
    try {
      const anHourAgo = new Date(Date.now() - 3_600_000);
      // Drafts without their required title: Strapi refuses to publish them.
      const failing: string[] = [];
      for (let index = 0; index < 100; index += 1)
        failing.push((await documents(POST).create({ data: { content: `Untitled ${index}` } })).documentId);
      await rows(MANAGED_ENTRY).createMany({
        data: failing.map((documentId) => ({
          contentType: POST,
          entryDocumentId: documentId,
          entryLocale: '',
          fingerprints: {},
          scheduledAt: anHourAgo,
        })),
      });
      const ordinary = await site.send('POST', '/posts', {
        title: 'Ordinary',
        content: '<p>c</p>',
        status: 'publish',
        date: contractDate(new Date(Date.now() + 3_600_000)),
      });
      const id: string = ordinary.body.id;
      // Due after every failing one: a run that takes due posts by date reaches it last.
      await rows(MANAGED_ENTRY).update({
        where: { entryDocumentId: id },
        data: { scheduledAt: new Date(anHourAgo.getTime() + 60_000) },
      });

      await schedules().runDue();
      expect(await title(id, 'published')).toBe('Ordinary');
      const [first] = failing;
      const failed = await managedEntry(first);
      expect(failed.scheduledAt).not.toBeNull();
      expect(new Date(failed.publishRetryAt).getTime()).toBeGreaterThan(Date.now());
      const [entry, ...more] = await schedulerEntries(site, first);
      expect(more).toEqual([]);
      expect(entry).toMatchObject({ outcome: 'error', path: `/posts/${first}` });
      expect(entry.reason).toMatch(/^could not publish .*; tried again from .*: .*title/);

      // Due for its retry, it fails again: a longer wait, and no second report.
      await rows(MANAGED_ENTRY).update({ where: { id: failed.id }, data: { publishRetryAt: anHourAgo } });
      await schedules().runDue();
      const again = await managedEntry(first);
      expect(again.publishFailures).toBe(2);
      const firstWait = new Date(failed.publishRetryAt).getTime() - Date.now();
      expect(new Date(again.publishRetryAt).getTime() - Date.now()).toBeGreaterThan(firstWait);
      expect(await schedulerEntries(site, first)).toHaveLength(1);
    } finally {
      schedules().start();
    }
  });
});
