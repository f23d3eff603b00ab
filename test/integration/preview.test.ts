import { loginAs, type AdminClient } from '../helpers/admin-client';
import { testDatabaseClient } from '../helpers/databases';
import { latestActivityNotes, UIDS } from '../helpers/inspect';
import { useSite } from '../helpers/site';

/**
 * Drafts carry a link a reviewer can open (issue 40, item 6): where the site configured Strapi's
 * Preview, the `url` a draft answers (and the side panel shows) is the one Strapi's handler
 * builds, while a published entry keeps its public URL. The example app's handler reads the entry
 * through the Document Service, as Strapi's documentation shows, so it also proves the handler
 * runs where such a read can answer. A handler that throws or builds nothing falls back to the
 * public URL, with a note in the activity log.
 */
const db = testDatabaseClient();
const POST = UIDS.post;
const FRONTEND = 'https://frontend.example.test';
const PUBLIC = /^http:\/\/localhost:3000\/blog\/[\w-]+$/;

function previewOf(documentId: string, slug: string) {
  const query = new URLSearchParams({ uid: POST, documentId, status: 'draft', slug });
  return `${FRONTEND}/api/preview?${query}`;
}

describe(`a draft's url with Strapi's Preview configured, on ${db}`, () => {
  let admin: AdminClient;
  let run = 0;
  const handler = () => site.strapi.config.get('admin.preview.config.handler');
  let configured: unknown;

  const site = useSite({ PREVIEW_URL: FRONTEND });
  beforeAll(async () => {
    admin = await loginAs(site, 'strapi-super-admin');
    configured = handler();
  });
  afterEach(() => {
    site.strapi.config.set('admin.preview.config.handler', configured);
    site.strapi.config.set('admin.preview.enabled', true);
  });

  async function send(method: string, path: string, body: Record<string, unknown>) {
    const reply = await site.send(method, path, body);
    expect(reply.status).toBe(200);
    return reply.body as { id: string; url?: string };
  }

  const create = (status: 'draft' | 'publish') => {
    run += 1;
    return send('POST', '/posts', {
      title: `Preview post ${run}`,
      content: '<p>Body.</p>',
      status,
      source_id: `preview-${Date.now()}-${run}`,
    });
  };

  const panelUrl = async (documentId: string) => {
    const reply = await admin.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(POST)}&documentId=${documentId}`
    );
    expect(reply.status).toBe(200);
    return { url: reply.body.data.url, urlKind: reply.body.data.urlKind };
  };

  it("answers a draft's create and update with the URL Strapi's handler builds, and the panel shows it", async () => {
    const draft = await create('draft');
    expect(draft.url).toBe(previewOf(draft.id, `preview-post-${run}`));
    expect((await latestActivityNotes(site.strapi)) ?? []).toEqual([]);

    const updated = await send('PUT', `/posts/${draft.id}`, { title: 'Still a draft' });
    expect(updated.url).toBe(previewOf(draft.id, `preview-post-${run}`));
    expect(await panelUrl(draft.id)).toEqual({ url: updated.url, urlKind: 'preview' });
  });

  it('answers a published post with its public URL, also once a draft is published', async () => {
    const published = await create('publish');
    expect(published.url).toMatch(PUBLIC);
    expect(await panelUrl(published.id)).toEqual({ url: published.url, urlKind: 'public' });

    const draft = await create('draft');
    const now = await send('PUT', `/posts/${draft.id}`, { status: 'publish' });
    expect(now.url).toMatch(PUBLIC);
  });

  it('falls back to the public URL, with a note, when the handler throws or builds nothing', async () => {
    site.strapi.config.set('admin.preview.config.handler', async () => {
      throw new Error('frontend secret missing');
    });
    const thrown = await create('draft');
    expect(thrown.url).toMatch(PUBLIC);
    expect(await latestActivityNotes(site.strapi)).toContainEqual(
      expect.stringMatching(/Strapi's Preview handler failed \(frontend secret missing\)/)
    );
    expect(await panelUrl(thrown.id)).toEqual({ url: thrown.url, urlKind: 'public' });

    site.strapi.config.set('admin.preview.config.handler', () => undefined);
    const empty = await create('draft');
    expect(empty.url).toMatch(PUBLIC);
    expect(await latestActivityNotes(site.strapi)).toContainEqual(
      expect.stringMatching(/Strapi's Preview handler built no URL/)
    );
  });

  it('keeps the public URL for a draft when the site turned Preview off', async () => {
    site.strapi.config.set('admin.preview.enabled', false);
    const draft = await create('draft');
    expect(draft.url).toMatch(PUBLIC);
    expect((await latestActivityNotes(site.strapi)) ?? []).toEqual([]);
  });
});
