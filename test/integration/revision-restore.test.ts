import { loginAs, loginWithPermissions, type AdminClient } from '../helpers/admin-client';
import { testDatabaseClient } from '../helpers/databases';
import { useSite } from '../helpers/site';
import { documentsOf, UIDS } from '../helpers/inspect';

/**
 * Restore is careful: a relation whose entry was deleted since is left out and named while the
 * rest comes back, a deleted entry made again is the restoring admin's, and a role that may not
 * read the entry learns nothing of it from the revisions, the panel or a restore.
 */
const db = testDatabaseClient();
const POST = UIDS.post;
const AUTHOR = UIDS.author;
const CATEGORY = UIDS.blogCategory;

describe(`careful restores on ${db}`, () => {
  let superAdmin: AdminClient;
  let run = 0;
  const site = useSite();
  beforeAll(async () => {
    superAdmin = await loginAs(site, 'strapi-super-admin');
  });

  const documents = (uid: string) => documentsOf(site.strapi, uid);
  const revisionsPath = (id: string) =>
    `/publish-bridge/revisions?uid=${encodeURIComponent(POST)}&documentId=${id}`;
  const panelPath = (id: string) =>
    `/publish-bridge/entries?uid=${encodeURIComponent(POST)}&documentId=${id}`;
  const restore = (admin: AdminClient, revisionId: number) =>
    admin.request('POST', `/publish-bridge/revisions/${revisionId}/restore`);

  /** A published post the platform sent with `body`: its document id. */
  async function publishPost(body: Record<string, unknown>) {
    const reply = await site.send('POST', '/posts', { content: '<p>Body.</p>', status: 'publish', ...body });
    expect([reply.status, reply.body]).toEqual([200, expect.objectContaining({ id: expect.any(String) })]);
    return reply.body.id as string;
  }

  /** A post with a one-off author and two categories, deleted by the platform: its revision. */
  async function deletedPost() {
    run += 1;
    const tag = `${Date.now()}-${run}`;
    const id = await publishPost({
      title: `Careful ${tag}`,
      excerpt: 'Kept excerpt',
      author: `Gone Author ${tag}`,
      categories: [`Gone ${tag}`, `Stays ${tag}`],
    });
    expect((await site.send('DELETE', `/posts/${id}`)).status).toBe(200);
    const listed = await superAdmin.request('GET', revisionsPath(id));
    expect(listed.status).toBe(200);
    const [revision] = listed.body.data;
    expect(revision.reason).toBe('delete');
    return { id, tag, revision };
  }

  async function deleteEntry(uid: string, filters: Record<string, unknown>) {
    const [found] = await documents(uid).findMany({ filters });
    expect(found).toBeDefined();
    await documents(uid).delete({ documentId: found.documentId });
  }

  test('a relation whose entry was deleted since is left out and named; the rest is restored', async () => {
    const { tag, revision } = await deletedPost();
    await deleteEntry(AUTHOR, { displayName: `Gone Author ${tag}` });
    await deleteEntry(CATEGORY, { name: `Gone ${tag}` });

    const restored = await restore(superAdmin, revision.id);
    expect([restored.status, restored.body]).toEqual([
      200,
      {
        data: {
          documentId: expect.any(String),
          recreated: true,
          leftOut: [
            { field: 'author', reason: 'the related entry no longer exists' },
            { field: 'categories', reason: 'a related entry no longer exists' },
          ],
        },
      },
    ]);
    const back = await documents(POST).findOne({
      documentId: restored.body.data.documentId,
      populate: ['author', 'categories'],
    });
    expect(back).toMatchObject({ title: `Careful ${tag}`, excerpt: 'Kept excerpt', author: null });
    expect(back.categories.map((category: { name: string }) => category.name)).toEqual([`Stays ${tag}`]);
  });

  test('a restore whose relations all still exist leaves nothing out', async () => {
    const { revision } = await deletedPost();
    const restored = await restore(superAdmin, revision.id);
    expect([restored.status, restored.body.data.leftOut]).toEqual([200, []]);
  });

  test('a deleted entry made again by a restore is the restoring admin’s: its creator and last editor', async () => {
    const { revision } = await deletedPost();
    const me = await superAdmin.request('GET', '/admin/users/me');
    expect(me.body.data.id).toEqual(expect.any(Number));

    const restored = await restore(superAdmin, revision.id);
    expect(restored.status).toBe(200);
    const back = await documents(POST).findOne({
      documentId: restored.body.data.documentId,
      populate: { createdBy: { fields: ['id'] }, updatedBy: { fields: ['id'] } },
    });
    expect([back.createdBy?.id, back.updatedBy?.id]).toEqual([me.body.data.id, me.body.data.id]);
  });

  test('a role that may not read the entry learns nothing of it from the revisions, the panel or a restore', async () => {
    const id = await publishPost({ title: `Not yours ${(run += 1)}` });
    await superAdmin.request('PUT', `/content-manager/collection-types/${POST}/${id}`, {
      title: 'The editor’s title',
    });
    expect((await site.send('PUT', `/posts/${id}`, { title: 'Platform title' })).status).toBe(200);
    const [revision] = (await superAdmin.request('GET', revisionsPath(id))).body.data;
    expect(revision).toBeDefined();

    // Only their own entries: the platform's post has no creator, so it is not theirs.
    const ownOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      ...['read', 'update', 'create'].map((action) => ({
        action: `plugin::content-manager.explorer.${action}`,
        subject: POST,
        conditions: ['admin::is-creator'],
      })),
    ]);
    const answers = [
      await ownOnly.request('GET', revisionsPath(id)),
      await ownOnly.request('GET', panelPath(id)),
    ];
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.message).toEqual(expect.any(String));
      for (const secret of [POST, 'post', id, 'title', String(revision.id)]) {
        expect(answer.body.error.message).not.toContain(secret);
      }
    }
    // Revision ids are sequential: a restore of one the role may not read answers as one that
    // does not exist, so that no id can be probed.
    const unreadable = await restore(ownOnly, revision.id);
    const missing = await restore(ownOnly, revision.id + 1_000_000);
    expect([unreadable.status, unreadable.body]).toEqual([missing.status, missing.body]);
    expect(unreadable.status).toBe(404);
    for (const secret of [POST, 'post', id, 'title', String(revision.id)]) {
      expect(unreadable.body.error.message).not.toContain(secret);
    }
    expect((await documents(POST).findOne({ documentId: id })).title).toBe('Platform title');
  });

  test('the panel names only the changed fields the role may read', async () => {
    const id = await publishPost({ title: `Partly yours ${(run += 1)}`, excerpt: 'Platform excerpt' });
    const saved = await superAdmin.request('PUT', `/content-manager/collection-types/${POST}/${id}`, {
      title: 'The editor’s title',
      excerpt: 'The editor’s excerpt',
    });
    expect(saved.status).toBe(200);
    const changedFor = async (admin: AdminClient) => {
      const panel = await admin.request('GET', panelPath(id));
      expect(panel.status).toBe(200);
      return panel.body.data.changedByEditors;
    };
    expect(await changedFor(superAdmin)).toEqual(['title', 'excerpt']);

    const titleOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      { action: 'plugin::content-manager.explorer.read', subject: POST, properties: { fields: ['title'] } },
    ]);
    expect(await changedFor(titleOnly)).toEqual(['title']);
  });
});
