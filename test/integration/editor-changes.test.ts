import {
  chooseEditorChangePolicy,
  loginAs,
  loginWithPermissions,
  type AdminClient,
} from '../helpers/admin-client';
import { testDatabaseClient } from '../helpers/databases';
import { documentsOf, latestActivityNotes, UIDS } from '../helpers/inspect';
import { useSite } from '../helpers/site';
import { fullPost } from '../helpers/fixtures';

/**
 * The plugin keeps a fingerprint of what it wrote into each field of a post, so an update can
 * tell which of the fields it carries an editor changed in Strapi since the last delivery: the
 * activity log (and the server log) say which. Editors edit here as in the admin panel, through
 * the Content Manager's own API.
 */
const db = testDatabaseClient();
const POST = UIDS.post;
const CHANGED = /changed in Strapi since the platform last sent/;

describe(`editor changes on ${db}`, () => {
  let editor: AdminClient;
  let run = 0;
  const site = useSite();
  beforeAll(async () => {
    editor = await loginAs(site, 'strapi-super-admin');
  });
  afterEach(async () => {
    await chooseEditorChangePolicy(editor, 'overwrite');
  });

  const documents = () => documentsOf(site.strapi, POST);
  const version = (documentId: string, status: 'draft' | 'published') =>
    documents().findOne({ documentId, status, fields: ['title', 'excerpt', 'readingTime', 'updatedAt'] });

  async function publishPost() {
    run += 1;
    const reply = await site.send(
      'POST',
      '/posts',
      fullPost({ title: `Fingerprinted ${run}`, source_id: `editor-changes-${Date.now()}-${run}` })
    );
    expect([reply.status, reply.body]).toEqual([200, expect.objectContaining({ id: expect.any(String) })]);
    return reply.body.id as string;
  }

  async function update(id: string, body: Record<string, unknown>) {
    const reply = await site.send('PUT', `/posts/${id}`, body);
    expect(reply.status).toBe(200);
    return latestActivityNotes(site.strapi);
  }

  /** What the admin panel's Save does: the Content Manager's update of the draft. */
  async function editorSaves(id: string, data: Record<string, unknown>) {
    const reply = await editor.request('PUT', `/content-manager/collection-types/${POST}/${id}`, data);
    expect(reply.status).toBe(200);
  }

  /** The admin panel's Publish: the Content Manager saves the draft with `data` and publishes it. */
  async function editorPublishes(id: string, data: Record<string, unknown>) {
    const reply = await editor.request(
      'POST',
      `/content-manager/collection-types/${POST}/${id}/actions/publish`,
      data
    );
    expect(reply.status).toBe(200);
  }

  const changedNote = (notes: string[] | null) => (notes ?? []).find((note) => CHANGED.test(note));

  test('updates of every kind of field see no editor change where there was none', async () => {
    const id = await publishPost();
    const everyField = {
      title: 'Second title',
      content: '<p>Second <strong>body</strong>.</p><blockquote>Quoted</blockquote>',
      excerpt: 'Second excerpt',
      date: '2026-02-03 04:05:06',
      categories: ['Roasting', 'Grinding'],
      tags: ['beans'],
      author: 'Bo Roaster',
      reading_time: '4 min',
      seo: { description: 'Second SEO description', keywords: ['grind'] },
    };
    expect(changedNote(await update(id, everyField))).toBeUndefined();
    expect(
      changedNote(await update(id, { ...everyField, title: 'Third title', seo: { title: 'T3' } }))
    ).toBeUndefined();
    expect(changedNote(await update(id, { status: 'draft', excerpt: 'Draft excerpt' }))).toBeUndefined();
    expect(changedNote(await update(id, everyField))).toBeUndefined();
  });

  test('an update names the sent fields an editor changed in the Content Manager, and only those', async () => {
    const id = await publishPost();
    await editorSaves(id, { title: 'The editor’s title', excerpt: 'The editor’s excerpt' });

    const notes = await update(id, { title: 'Platform title', reading_time: '5 min' });
    expect(changedNote(notes)).toMatch(/^title: changed in Strapi/);
    expect(changedNote(notes)).not.toMatch(/excerpt|reading_time/);

    // The update's write is what the platform last sent now: the next one sees no change in title.
    expect(changedNote(await update(id, { title: 'Platform title 2' }))).toBeUndefined();
    // The excerpt was not sent, so its change is still seen when it is.
    expect(changedNote(await update(id, { excerpt: 'Platform excerpt' }))).toMatch(/^excerpt: changed/);
  });

  test('an editor’s change of related entries and of one part of the seo object is seen', async () => {
    const id = await publishPost();
    const draft = await documents().findOne({ documentId: id, populate: ['categories'] });
    const [kept] = draft.categories;
    await editorSaves(id, {
      categories: { set: [{ documentId: kept.documentId }] },
      seoDescription: 'The editor’s description',
    });
    const notes = await update(id, {
      categories: ['Brewing', 'Roasting'],
      seo: { description: 'Platform SEO description' },
      excerpt: 'Platform excerpt',
    });
    expect(changedNote(notes)).toMatch(/^categories, seo: changed in Strapi/);
    // The seo title was written by the first delivery and not changed since.
    expect(changedNote(await update(id, { seo: { title: 'Platform SEO title' } }))).toBeUndefined();
  });

  test("policy overwrite (the default): the platform's values replace the editor's, and the note says so", async () => {
    const id = await publishPost();
    await editorPublishes(id, { title: 'The editor’s title' });
    const notes = await update(id, { title: 'Platform title' });
    expect(changedNote(notes)).toMatch(/replaced the editor's \(editor changes policy "overwrite"\)/);
    expect((await version(id, 'published')).title).toBe('Platform title');
  });

  test('policy keep: the fields an editor changed stay as the editor left them, the other sent fields update', async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    const id = await publishPost();
    await editorPublishes(id, { title: 'The editor’s title' });

    const notes = await update(id, { title: 'Platform title', excerpt: 'Platform excerpt' });
    expect(changedNote(notes)).toMatch(/^title: changed in Strapi .*the editor's value was kept/);
    for (const status of ['draft', 'published'] as const) {
      expect(await version(id, status)).toMatchObject({
        title: 'The editor’s title',
        excerpt: 'Platform excerpt',
      });
    }
    // Kept means not written: the next update still sees the editor's title as theirs.
    expect(changedNote(await update(id, { title: 'Platform title again' }))).toMatch(/^title: /);
    expect((await version(id, 'published')).title).toBe('The editor’s title');
  });

  test('policy draft: the update goes to the draft for review, the published version stays as the editor left it', async () => {
    await chooseEditorChangePolicy(editor, 'draft');
    const id = await publishPost();
    await editorPublishes(id, { title: 'The editor’s title' });

    const notes = await update(id, {
      title: 'Platform title',
      excerpt: 'Platform excerpt',
      status: 'publish',
    });
    expect(changedNote(notes)).toMatch(/^title: changed in Strapi .*went to the draft for review/);
    const published = await version(id, 'published');
    const draft = await version(id, 'draft');
    expect(published).toMatchObject({ title: 'The editor’s title', excerpt: 'First excerpt' });
    expect(draft).toMatchObject({ title: 'Platform title', excerpt: 'Platform excerpt' });
    // The Content Manager shows the entry as Modified: its draft was saved after its published version.
    expect(new Date(draft.updatedAt).getTime()).toBeGreaterThan(new Date(published.updatedAt).getTime());

    // An update that meets no editor's change is published as usual.
    const later = await publishPost();
    expect(changedNote(await update(later, { excerpt: 'Straight through' }))).toBeUndefined();
    expect((await version(later, 'published')).excerpt).toBe('Straight through');
  });

  test('the settings page offers the policies and refuses any other', async () => {
    const view = await editor.request('GET', '/publish-bridge/settings');
    expect(view.body.data.editorChanges).toBe('overwrite');
    const refused = await editor.request('PUT', '/publish-bridge/settings', { editorChanges: 'ignore' });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/editorChanges/);
  });

  const revisionsOf = async (id: string, client = editor) =>
    client.request('GET', `/publish-bridge/revisions?uid=${encodeURIComponent(POST)}&documentId=${id}`);
  const restore = (revisionId: number, client = editor) =>
    client.request('POST', `/publish-bridge/revisions/${revisionId}/restore`);

  test("an overwrite keeps the editor's values as a revision, and restoring it writes them back into the draft", async () => {
    const id = await publishPost();
    await editorPublishes(id, { title: 'The editor’s title' });
    await update(id, { title: 'Platform title', excerpt: 'Platform excerpt' });

    const listed = await revisionsOf(id);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      {
        id: expect.any(Number),
        createdAt: expect.any(String),
        reason: 'update',
        fields: { title: { title: 'The editor’s title' } },
      },
    ]);
    const restored = await restore(listed.body.data[0].id);
    expect([restored.status, restored.body.data]).toEqual([
      200,
      { documentId: id, recreated: false, leftOut: [] },
    ]);
    expect(await version(id, 'draft')).toMatchObject({
      title: 'The editor’s title',
      excerpt: 'Platform excerpt',
    });
    expect((await version(id, 'published')).title).toBe('Platform title');
    // The restored title is an editor's change now: the next update says so.
    expect(changedNote(await update(id, { title: 'Platform title 2' }))).toMatch(/^title: /);
  });

  test('a delete keeps the whole entry as a revision; restoring it makes the entry again, as a draft of the editors', async () => {
    const id = await publishPost();
    expect((await site.send('DELETE', `/posts/${id}`)).status).toBe(200);
    const [deleted] = (await revisionsOf(id)).body.data;
    expect(deleted).toMatchObject({
      reason: 'delete',
      fields: { title: { title: expect.stringMatching(/^Fingerprinted/) } },
    });

    const restored = await restore(deleted.id);
    expect(restored.status).toBe(200);
    const back = await documents().findOne({
      documentId: restored.body.data.documentId,
      populate: ['categories', 'tags', 'author'],
    });
    expect(back).toMatchObject({
      title: deleted.fields.title.title,
      excerpt: 'First excerpt',
      readingTime: '3 min',
    });
    expect(back.categories.map((category: { name: string }) => category.name).sort()).toEqual([
      'Brewing',
      'Roasting',
    ]);
    expect(back.author).toMatchObject({ displayName: 'Ada Brewer' });
    // It is not the platform's: a PUT to it answers 404 as for any entry an editor made.
    expect((await site.send('PUT', `/posts/${restored.body.data.documentId}`, { title: 'x' })).status).toBe(
      404
    );
  });

  test('revisions need the logs permission and the Content Manager’s own on the type; keep makes none', async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    const id = await publishPost();
    await editorPublishes(id, { title: 'The editor’s title' });
    await update(id, { title: 'Platform title' });
    expect((await revisionsOf(id)).body.data).toEqual([]);

    const logsOnly = await loginWithPermissions(site, ['plugin::publish-bridge.logs.read']);
    expect((await revisionsOf(id, logsOnly)).status).toBe(403);
    const author = await loginAs(site, 'strapi-author');
    expect((await revisionsOf(id, author)).status).toBe(403);
    expect((await restore(1, author)).status).toBe(403);
  });

  test("the Content Manager's side panel: source id, last delivery, fields editors changed, revisions; nothing for an editor's entry", async () => {
    const id = await publishPost();
    await editorPublishes(id, { title: 'The editor’s title', excerpt: 'The editor’s excerpt' });
    await update(id, { title: 'Platform title' });
    await editorSaves(id, { readingTime: '9 min' });

    const panel = await editor.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(POST)}&documentId=${id}`
    );
    expect(panel.status).toBe(200);
    expect(panel.body.data).toEqual({
      managed: true,
      sourceId: expect.stringMatching(/^editor-changes-/),
      lastDelivery: expect.objectContaining({ action: 'posts.update', outcome: 'success', entityId: id }),
      changedByEditors: ['excerpt', 'reading_time'],
      // Nothing waits for its date: nothing to cancel.
      mayCancelSchedule: false,
      // Published: its public URL, not a preview link.
      url: expect.stringMatching(/\/blog\/fingerprinted-/),
      urlKind: 'public',
      revisions: [
        expect.objectContaining({ reason: 'update', fields: { title: { title: 'The editor’s title' } } }),
      ],
    });

    const editorsOwn = await documents().create({ data: { title: 'Written in Strapi' } });
    const none = await editor.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(POST)}&documentId=${editorsOwn.documentId}`
    );
    expect(none.body.data).toEqual({ managed: false });
  });

  test('the side panel shows when a post sent with a future date will be published', async () => {
    const reply = await site.send('POST', '/posts', {
      title: 'Scheduled in the panel',
      content: '<p>Later.</p>',
      status: 'publish',
      date: '2099-01-02 03:04:05',
    });
    expect(reply.status).toBe(200);
    const panel = await editor.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(POST)}&documentId=${reply.body.id}`
    );
    expect(panel.body.data).toMatchObject({ managed: true, scheduledAt: '2099-01-02T03:04:05.000Z' });
  });

  test('policy draft: an update held for review is not published later either; its waiting publish is cancelled', async () => {
    await chooseEditorChangePolicy(editor, 'draft');
    const id = await publishPost();
    await editorPublishes(id, { title: 'The editor’s title' });
    const panelOf = async () =>
      (
        await editor.request(
          'GET',
          `/publish-bridge/entries?uid=${encodeURIComponent(POST)}&documentId=${id}`
        )
      ).body.data;
    const notes = await update(id, {
      title: 'Platform title',
      status: 'publish',
      date: '2099-01-02 03:04:05',
    });
    expect(changedNote(notes)).toMatch(/went to the draft for review/);
    expect(await panelOf()).not.toHaveProperty('scheduledAt');
    expect((await version(id, 'published')).title).toBe('The editor’s title');
  });

  test("revisions and the panel follow the Content Manager's own limits: fields, conditions, and edits a role may not make", async () => {
    const id = await publishPost();
    await editorPublishes(id, { title: 'The editor’s title' });
    await update(id, { title: 'Platform title' });
    const [revision] = (await revisionsOf(id)).body.data;
    const onPosts = (action: string, extra: object = {}) => ({
      action: `plugin::content-manager.explorer.${action}`,
      subject: POST,
      ...extra,
    });

    // Read and update limited to the excerpt: the title's revision is not listed, and answers as missing.
    const excerptOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onPosts('read', { properties: { fields: ['excerpt'] } }),
      onPosts('update', { properties: { fields: ['excerpt'] } }),
    ]);
    const listed = await revisionsOf(id, excerptOnly);
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([]);
    expect((await restore(revision.id, excerptOnly)).status).toBe(404);
    expect((await version(id, 'draft')).title).toBe('Platform title');

    // Only the entries they created: the platform's post is not theirs.
    const ownOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onPosts('read', { conditions: ['admin::is-creator'] }),
      onPosts('update', { conditions: ['admin::is-creator'] }),
    ]);
    expect((await revisionsOf(id, ownOnly)).status).toBe(403);
    const panel = await ownOnly.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(POST)}&documentId=${id}`
    );
    expect(panel.status).toBe(403);
    expect((await restore(revision.id, ownOnly)).status).toBe(404);

    // Ids past what a database keeps, and types the site does not have, are refused, not 500.
    expect((await restore(2_147_483_648)).status).toBe(400);
    const unknownType = await editor.request(
      'GET',
      `/publish-bridge/revisions?uid=api::gone.gone&documentId=${id}`
    );
    expect(unknownType.status).toBe(404);
  });

  test('a deleted entry’s revision is spent once restored', async () => {
    const id = await publishPost();
    expect((await site.send('DELETE', `/posts/${id}`)).status).toBe(200);
    const [deleted] = (await revisionsOf(id)).body.data;
    expect((await restore(deleted.id)).status).toBe(200);
    expect((await restore(deleted.id)).status).toBe(404);
  });
});
