import { chooseEditorChangePolicy, loginAs, type AdminClient } from '../helpers/admin-client';
import { testDatabaseClient } from '../helpers/databases';
import { latestActivityNotes } from '../helpers/inspect';
import { scheduleSoon, schedulerEntries, waitPast } from '../helpers/scheduling';
import { startSite, type Site } from '../helpers/site';

/**
 * An editor's save of a draft counts, whatever fields it changed: also a field the platform
 * never sent, which has no fingerprint to compare (issue 38, attack review M1). Under `keep` and
 * `draft` the platform's status-only publish and its scheduled publish leave such a draft
 * unpublished; an editor's own Publish clears the mark; under `overwrite` the platform wins.
 * Editors save through the Content Manager's own API, as the admin panel does.
 */
const db = testDatabaseClient();
const POST = 'plugin::publish-bridge.post';
const SAVED = /not published: an editor saved the post's draft in Strapi and did not publish it/;

describe(`an editor's save of a draft the platform wrote, on ${db}`, () => {
  let site: Site;
  let editor: AdminClient;
  let run = 0;
  beforeAll(async () => {
    site = await startSite();
    editor = await loginAs(site, 'strapi-super-admin');
  });
  afterAll(async () => {
    await site?.stop();
  });
  afterEach(async () => {
    await chooseEditorChangePolicy(editor, 'overwrite');
  });

  const published = (documentId: string) =>
    (site.strapi.documents(POST as never) as any).findOne({
      documentId,
      status: 'published',
      fields: ['excerpt'],
    });

  async function put(id: string, body: Record<string, unknown>) {
    const reply = await site.send('PUT', `/posts/${id}`, body);
    expect([reply.status, reply.body]).toEqual([200, expect.objectContaining({ id })]);
    return latestActivityNotes(site.strapi);
  }

  /** A draft the platform created without an excerpt, to which an editor then added one and saved. */
  async function draftWithAnEditorsExcerpt() {
    run += 1;
    const reply = await site.send('POST', '/posts', {
      title: `Platform draft ${run}`,
      content: '<p>Platform body.</p>',
      status: 'draft',
      source_id: `draft-saves-${Date.now()}-${run}`,
    });
    expect(reply.status).toBe(200);
    const id = reply.body.id as string;
    await editorSaves(id);
    return id;
  }

  async function editorSaves(id: string) {
    const saved = await editor.request('PUT', `/content-manager/collection-types/${POST}/${id}`, {
      excerpt: 'Editor’s unreviewed excerpt',
    });
    expect(saved.status).toBe(200);
  }

  for (const policy of ['keep', 'draft']) {
    test(`policy ${policy}: a status-only publish leaves a draft an editor saved unpublished, and says so`, async () => {
      await chooseEditorChangePolicy(editor, policy);
      const id = await draftWithAnEditorsExcerpt();

      const notes = await put(id, { status: 'publish' });

      expect(await published(id)).toBeNull();
      expect(notes).toEqual(expect.arrayContaining([expect.stringMatching(SAVED)]));
    });
  }

  test('policy overwrite: the platform publishes, as it asked', async () => {
    const id = await draftWithAnEditorsExcerpt();

    await put(id, { status: 'publish' });

    expect(await published(id)).toMatchObject({ excerpt: 'Editor’s unreviewed excerpt' });
  });

  test("policy keep: once an editor published the draft, the platform's later publish goes through", async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    const id = await draftWithAnEditorsExcerpt();
    const publishedByEditor = await editor.request(
      'POST',
      `/content-manager/collection-types/${POST}/${id}/actions/publish`,
      { excerpt: 'Editor’s reviewed excerpt' }
    );
    expect(publishedByEditor.status).toBe(200);
    await put(id, { status: 'draft' });

    await put(id, { status: 'publish' });

    expect(await published(id)).toMatchObject({ excerpt: 'Editor’s reviewed excerpt' });
  });

  test('policy keep: a scheduled publish of a draft an editor saved is cancelled at its date', async () => {
    await chooseEditorChangePolicy(editor, 'keep');
    const { id, due } = await scheduleSoon(site, 'Scheduled, then saved by an editor');
    await editorSaves(id);

    await waitPast(site, due);

    expect(await published(id)).toBeNull();
    const [entry, ...more] = await schedulerEntries(site, id);
    expect(more).toEqual([]);
    expect(entry.reason).toMatch(/an editor saved the draft in Strapi and did not publish it/);
  });
});
