import { setTimeout as sleep } from 'node:timers/promises';
import { chooseEditorChangePolicy, loginAs, type AdminClient } from '../helpers/admin-client';
import { testDatabaseClient } from '../helpers/databases';
import { documentsOf, latestActivityNotes, UIDS } from '../helpers/inspect';
import { contractDate, waitPast } from '../helpers/scheduling';
import { serviceOf, useSite } from '../helpers/site';

/**
 * A status from the platform applies to the platform's content. Once a post is unpublished its
 * draft is its only version; when an editor changed that draft in Strapi, a `status: "publish"`
 * under the policies `keep` and `draft` leaves it unpublished for review and the activity log
 * says so, instead of publishing the editor's unreviewed changes. Under `overwrite` the platform
 * wins, as before. Editors edit through the Content Manager's own API, as the admin panel does.
 */
const db = testDatabaseClient();
const POST = UIDS.post;
const HELD = /not published: an editor changed title in Strapi and did not publish it/;
const UNPUBLISHED = /not published: an editor unpublished the post in Strapi after the platform published it/;

describe(`a platform's status and an editor's draft on ${db}`, () => {
  let editor: AdminClient;
  let run = 0;
  const site = useSite();
  beforeAll(async () => {
    editor = await loginAs(site, 'strapi-super-admin');
  });
  afterEach(async () => {
    await chooseEditorChangePolicy(editor, 'overwrite');
  });

  const version = (documentId: string, status: 'draft' | 'published') =>
    documentsOf(site.strapi, POST).findOne({
      documentId,
      status,
      fields: ['title', 'excerpt'],
    });

  async function update(id: string, body: Record<string, unknown>) {
    const reply = await site.send('PUT', `/posts/${id}`, body);
    expect([reply.status, reply.body]).toEqual([200, expect.objectContaining({ id })]);
    return latestActivityNotes(site.strapi);
  }

  /** A post the platform published, then unpublished, whose draft an editor then changed and saved. */
  async function unpublishedPostAnEditorChanged() {
    run += 1;
    const reply = await site.send('POST', '/posts', {
      title: `Platform title ${run}`,
      content: '<p>Platform body.</p>',
      excerpt: 'Platform excerpt',
      status: 'publish',
      source_id: `status-editors-${Date.now()}-${run}`,
    });
    expect(reply.status).toBe(200);
    const id = reply.body.id as string;
    await update(id, { status: 'draft' });
    const saved = await editor.request('PUT', `/content-manager/collection-types/${POST}/${id}`, {
      title: 'Half-written title',
    });
    expect(saved.status).toBe(200);
    return id;
  }

  for (const policy of ['keep', 'draft']) {
    test(`policy ${policy}: a status-only publish leaves the editor's changed draft unpublished, and says so`, async () => {
      await chooseEditorChangePolicy(editor, policy);
      const id = await unpublishedPostAnEditorChanged();

      const notes = await update(id, { status: 'publish' });

      expect(await version(id, 'published')).toBeNull();
      expect((await version(id, 'draft')).title).toBe('Half-written title');
      expect(notes).toEqual(expect.arrayContaining([expect.stringMatching(HELD)]));
    });

    test(`policy ${policy}: an update with publish writes the draft and leaves the editor's changes unpublished`, async () => {
      await chooseEditorChangePolicy(editor, policy);
      const id = await unpublishedPostAnEditorChanged();

      const notes = await update(id, { excerpt: 'New platform excerpt', status: 'publish' });

      expect(await version(id, 'published')).toBeNull();
      expect(await version(id, 'draft')).toMatchObject({
        title: 'Half-written title',
        excerpt: 'New platform excerpt',
      });
      expect(notes).toEqual(expect.arrayContaining([expect.stringMatching(HELD)]));
    });
  }

  /** A post the platform published, which an editor then unpublished with the admin panel's Unpublish. */
  async function postAnEditorUnpublished() {
    run += 1;
    const reply = await site.send('POST', '/posts', {
      title: `Published by the platform ${run}`,
      content: '<p>Platform body.</p>',
      excerpt: 'Platform excerpt',
      status: 'publish',
    });
    expect(reply.status).toBe(200);
    const id = reply.body.id as string;
    const unpublished = await editor.request(
      'POST',
      `/content-manager/collection-types/${POST}/${id}/actions/unpublish`,
      {}
    );
    expect(unpublished.status).toBe(200);
    return id;
  }

  for (const policy of ['keep', 'draft']) {
    test(`policy ${policy}: an update with publish after an editor's unpublish writes the draft and stays unpublished`, async () => {
      await chooseEditorChangePolicy(editor, policy);
      const id = await postAnEditorUnpublished();

      const notes = await update(id, { excerpt: 'New platform excerpt', status: 'publish' });

      expect(await version(id, 'published')).toBeNull();
      expect((await version(id, 'draft')).excerpt).toBe('New platform excerpt');
      expect(notes).toEqual(expect.arrayContaining([expect.stringMatching(UNPUBLISHED)]));
      // Held, not forgotten: the next publish is held too, until an editor publishes or the platform unpublishes.
      await update(id, { status: 'publish' });
      expect(await version(id, 'published')).toBeNull();
    });
  }

  test("policy keep: an editor's unpublish after a scheduled publish holds the platform's next publish", async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    const due = new Date(Math.ceil((Date.now() + 1_500) / 1000) * 1000);
    const reply = await site.send('POST', '/posts', {
      title: 'Scheduled by the platform',
      content: '<p>Platform body.</p>',
      status: 'publish',
      date: due.toISOString().slice(0, 19).replace('T', ' '),
    });
    const id = reply.body.id as string;
    await sleep(due.getTime() - Date.now() + 50);
    await serviceOf(site, 'schedules').runDue();
    expect(await version(id, 'published')).not.toBeNull();
    const unpublished = await editor.request(
      'POST',
      `/content-manager/collection-types/${POST}/${id}/actions/unpublish`,
      {}
    );
    expect(unpublished.status).toBe(200);

    const notes = await update(id, { excerpt: 'New platform excerpt', status: 'publish' });

    expect(await version(id, 'published')).toBeNull();
    expect(notes).toEqual(expect.arrayContaining([expect.stringMatching(UNPUBLISHED)]));
  });

  test("policy keep: a publish at a later date after an editor's unpublish is held too, never published at its date", async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    const id = await postAnEditorUnpublished();
    const due = new Date(Math.ceil((Date.now() + 1_500) / 1000) * 1000);

    const notes = await update(id, { status: 'publish', date: contractDate(due) });
    await waitPast(site, due);

    expect(await version(id, 'published')).toBeNull();
    expect(notes).toEqual(expect.arrayContaining([expect.stringMatching(UNPUBLISHED)]));
  });

  test("policy overwrite: an update with publish after an editor's unpublish publishes, as before", async () => {
    const id = await postAnEditorUnpublished();

    await update(id, { excerpt: 'New platform excerpt', status: 'publish' });

    expect((await version(id, 'published')).excerpt).toBe('New platform excerpt');
  });

  test("policy keep: after the platform's own unpublish, its publish publishes", async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    const id = await postAnEditorUnpublished();
    await update(id, { status: 'draft' });

    await update(id, { status: 'publish' });

    expect((await version(id, 'published')).excerpt).toBe('Platform excerpt');
  });

  test("policy overwrite: a status-only publish publishes the draft with the editor's changes, as before", async () => {
    const id = await unpublishedPostAnEditorChanged();

    const notes = await update(id, { status: 'publish' });

    expect((await version(id, 'published')).title).toBe('Half-written title');
    expect(notes ?? []).not.toEqual(expect.arrayContaining([expect.stringMatching(HELD)]));
  });

  test('policy keep: a status-only publish of a draft no editor changed publishes it', async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    run += 1;
    const reply = await site.send('POST', '/posts', {
      title: `Untouched ${run}`,
      content: '<p>Platform body.</p>',
      status: 'draft',
    });
    const id = reply.body.id as string;

    await update(id, { status: 'publish' });

    expect((await version(id, 'published')).title).toBe(`Untouched ${run}`);
  });
});
