import {
  loginAs,
  loginWithPermissions,
  type AdminClient,
  type PermissionSpec,
} from '../helpers/admin-client';
import { serviceOf, type Site, useSite } from '../helpers/site';
import { documentsOf, queryOf } from '../helpers/inspect';

/**
 * Revisions and the side panel judged field by field as the Content Manager judges them: its
 * permissions name a component's parts (`seo.metaTitle`), not the component, and a localized
 * entry is judged in the very locale that is shown.
 */
const ARTICLE = 'api::article.article';
const JOURNAL = 'api::journal.journal';
const STORY = 'api::story.story';
const SEO_PATHS = [
  'metaTitle',
  'metaDescription',
  'keywords',
  'metaRobots',
  'canonicalURL',
  'structuredData',
].map((part) => `seo.${part}`);
const LONG_DESCRIPTION = 'A description long enough for the seo component, which wants fifty characters.';

const onType = (
  uid: string,
  action: string,
  properties: PermissionSpec['properties'] = {}
): PermissionSpec => ({
  action: `plugin::content-manager.explorer.${action}`,
  subject: uid,
  properties,
});
const revisionsPath = (uid: string, documentId: string) =>
  `/publish-bridge/revisions?uid=${encodeURIComponent(uid)}&documentId=${documentId}`;
const restore = (admin: AdminClient, revisionId: number) =>
  admin.request('POST', `/publish-bridge/revisions/${revisionId}/restore`);

async function publish(site: Site, body: Record<string, unknown>) {
  const reply = await site.send('POST', '/posts', { content: '<p>Body.</p>', status: 'publish', ...body });
  expect([reply.status, reply.body]).toEqual([200, expect.objectContaining({ id: expect.any(String) })]);
  // The activity log is written in the background: the panel's last delivery reads it.
  await serviceOf(site, 'activity-writer').flush();
  return reply.body.id as string;
}

describe('revisions of an entry with a component (the example Article and its shared.seo)', () => {
  let superAdmin: AdminClient;
  let run = 0;
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'site' });
  beforeAll(async () => {
    superAdmin = await loginAs(site, 'strapi-super-admin');
  });

  const articles = () => documentsOf(site.strapi, ARTICLE);
  const publishArticle = () =>
    publish(site, {
      title: `With seo ${(run += 1)}`,
      seo: { title: `Meta title ${run}`, description: LONG_DESCRIPTION },
    });

  /** An editor's seo in the Content Manager, then the platform's overwrite: the editor's seo is kept as a revision. */
  async function seoRevision() {
    const id = await publishArticle();
    const saved = await superAdmin.request('PUT', `/content-manager/collection-types/${ARTICLE}/${id}`, {
      seo: { metaTitle: 'The editor’s meta title', metaDescription: `Edited. ${LONG_DESCRIPTION}` },
    });
    expect(saved.status).toBe(200);
    expect((await site.send('PUT', `/posts/${id}`, { seo: { title: 'Platform meta title' } })).status).toBe(
      200
    );
    const listed = await superAdmin.request('GET', revisionsPath(ARTICLE, id));
    const revision = listed.body.data?.find((item: { fields: object }) => 'seo' in item.fields);
    expect(revision).toBeDefined();
    return { id, revision };
  }

  test('a Super Admin sees the component in a deleted post’s revision and restores the post', async () => {
    const id = await publishArticle();
    expect((await site.send('DELETE', `/posts/${id}`)).status).toBe(200);
    const listed = await superAdmin.request('GET', revisionsPath(ARTICLE, id));
    expect(listed.status).toBe(200);
    const [deleted] = listed.body.data;
    expect(deleted).toMatchObject({
      reason: 'delete',
      fields: { seo: { seo: { metaTitle: `Meta title ${run}`, metaDescription: LONG_DESCRIPTION } } },
    });

    const restored = await restore(superAdmin, deleted.id);
    expect([restored.status, restored.body]).toEqual([
      200,
      { data: { documentId: expect.any(String), recreated: true, leftOut: [] } },
    ]);
    const back = await articles().findOne({ documentId: restored.body.data.documentId, populate: ['seo'] });
    expect(back).toMatchObject({ title: `With seo ${run}`, seo: { metaTitle: `Meta title ${run}` } });
  });

  test('a role that may read seo.metaTitle only sees that part of the component, in revisions and the panel', async () => {
    const { id, revision } = await seoRevision();
    const metaTitleOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(ARTICLE, 'read', { fields: ['title', 'seo.metaTitle'] }),
    ]);
    const listed = await metaTitleOnly.request('GET', revisionsPath(ARTICLE, id));
    expect(listed.status).toBe(200);
    // The component's id stays, as in the Content Manager's own answers; its other parts go.
    const metaTitleShown = { seo: { seo: { id: expect.any(Number), metaTitle: 'The editor’s meta title' } } };
    expect(listed.body.data.find((item: { id: number }) => item.id === revision.id).fields).toEqual(
      metaTitleShown
    );
    const panel = await metaTitleOnly.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(ARTICLE)}&documentId=${id}`
    );
    expect(panel.status).toBe(200);
    expect(panel.body.data.revisions.find((item: { id: number }) => item.id === revision.id).fields).toEqual(
      metaTitleShown
    );
  });

  test('the panel’s last delivery shows only the notes about fields the role may read', async () => {
    // A script in the body and a seo description shorter than the component's minimum: two notes,
    // one about content, one about seo.
    const id = await publish(site, {
      title: `Noted ${(run += 1)}`,
      content: '<p>Body.</p><script>alert(1)</script>',
      seo: { title: `Meta title ${run}`, description: 'Too short.' },
    });
    const panelPath = `/publish-bridge/entries?uid=${encodeURIComponent(ARTICLE)}&documentId=${id}`;
    const noteFields = (notes: string[] | undefined) =>
      [...new Set((notes ?? []).map((note) => note.split(/[:. ]/)[0]))].sort();
    const everything = await superAdmin.request('GET', panelPath);
    expect(everything.status).toBe(200);
    expect(noteFields(everything.body.data.lastDelivery.notes)).toEqual(['content', 'seo']);

    const titleOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(ARTICLE, 'read', { fields: ['title'] }),
    ]);
    const limited = await titleOnly.request('GET', panelPath);
    expect(limited.status).toBe(200);
    expect(limited.body.data.lastDelivery).toMatchObject({ action: expect.any(String), outcome: 'success' });
    expect(limited.body.data.lastDelivery.notes ?? []).toEqual([]);
    expect(limited.text).not.toMatch(/script|seo/);

    const withSeo = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(ARTICLE, 'read', { fields: ['title', ...SEO_PATHS] }),
    ]);
    const seoNotes = await withSeo.request('GET', panelPath);
    expect(noteFields(seoNotes.body.data.lastDelivery.notes)).toEqual(['seo']);

    // The seo note speaks of the description: a role that reads only the meta title does not see it.
    const metaTitleOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(ARTICLE, 'read', { fields: ['title', 'seo.metaTitle'] }),
    ]);
    const partOfSeo = await metaTitleOnly.request('GET', panelPath);
    expect(partOfSeo.status).toBe(200);
    expect(partOfSeo.body.data.lastDelivery.notes ?? []).toEqual([]);
    expect(partOfSeo.text).not.toMatch(/description/i);
  });

  test('a revision holding only fields the role may not read is left out of the list', async () => {
    const { id, revision } = await seoRevision();
    const titleOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(ARTICLE, 'read', { fields: ['title'] }),
    ]);
    const listed = await titleOnly.request('GET', revisionsPath(ARTICLE, id));
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((item: { id: number }) => item.id)).not.toContain(revision.id);
    expect(listed.body.data).toEqual([]);
    const panel = await titleOnly.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(ARTICLE)}&documentId=${id}`
    );
    expect(panel.status).toBe(200);
    expect(panel.body.data.revisions).toEqual([]);
  });

  test('a restore needs update on every part of the component it writes', async () => {
    const { id, revision } = await seoRevision();
    const metaTitleOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(ARTICLE, 'read'),
      onType(ARTICLE, 'update', { fields: ['seo.metaTitle'] }),
    ]);
    const refused = await restore(metaTitleOnly, revision.id);
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toContain('seo.metaDescription');
    const draft = () => articles().findOne({ documentId: id, populate: ['seo'] });
    expect((await draft()).seo.metaTitle).toBe('Platform meta title');

    const wholeSeo = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(ARTICLE, 'read'),
      onType(ARTICLE, 'update', { fields: SEO_PATHS }),
    ]);
    expect((await restore(wholeSeo, revision.id)).status).toBe(200);
    expect((await draft()).seo.metaTitle).toBe('The editor’s meta title');
  });
});

describe('revisions of an entry with a dynamic zone and single relations (the example blog’s Article: the Story)', () => {
  let superAdmin: AdminClient;
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'template' });
  beforeAll(async () => {
    superAdmin = await loginAs(site, 'strapi-super-admin');
  });

  test('the panel shows the source_id a republish is matched by, though the Story stores it nowhere', async () => {
    const sourceId = `story-source-${Date.now()}`;
    const id = await publish(site, { title: 'A sourced story', source_id: sourceId });
    const panelPath = `/publish-bridge/entries?uid=${encodeURIComponent(STORY)}&documentId=${id}`;
    const panel = await superAdmin.request('GET', panelPath);
    expect(panel.status).toBe(200);
    expect(panel.body.data).toMatchObject({ managed: true, sourceId });
  });

  test('a deleted story shows the zone and relations a role may read, and is restored only with create on all of them', async () => {
    const id = await publish(site, {
      title: 'A story',
      content: '<h2>Part</h2><p>Body of the story.</p>',
      excerpt: 'Short',
      categories: ['Brewing'],
      author: 'Ada Brewer',
    });
    expect((await site.send('DELETE', `/posts/${id}`)).status).toBe(200);
    const [deleted] = (await superAdmin.request('GET', revisionsPath(STORY, id))).body.data;

    const zoneAndAuthor = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(STORY, 'read', { fields: ['title', 'blocks', 'author'] }),
      onType(STORY, 'create', { fields: ['title', 'blocks', 'author'] }),
    ]);
    const listed = await zoneAndAuthor.request('GET', revisionsPath(STORY, id));
    expect(listed.status).toBe(200);
    expect(Object.keys(listed.body.data[0].fields).sort()).toEqual(['author', 'content', 'title']);
    expect(listed.body.data[0].fields.content.blocks).toEqual(
      expect.arrayContaining([expect.objectContaining({ __component: expect.stringMatching(/^shared\./) })])
    );
    const refused = await restore(zoneAndAuthor, deleted.id);
    expect(refused.status).toBe(403);
    // The refusal names what the role lacks, not the zone and relation it may write.
    const message: string = refused.body.error.message;
    expect(message).toContain('category');
    expect(message).not.toMatch(/blocks|author/);

    const restored = await restore(superAdmin, deleted.id);
    expect(restored.status).toBe(200);
    const back = await documentsOf(site.strapi, STORY).findOne({
      documentId: restored.body.data.documentId,
      populate: ['category', 'author', 'blocks'],
    });
    expect(back).toMatchObject({
      title: 'A story',
      category: { name: 'Brewing' },
      author: { name: 'Ada Brewer' },
      blocks: expect.arrayContaining([
        expect.objectContaining({ __component: expect.stringMatching(/^shared\./) }),
      ]),
    });
  });
});

describe('the side panel of a localized entry (the Journal, posts written in French)', () => {
  let superAdmin: AdminClient;
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'localized', PUBLISH_BRIDGE_LOCALE: 'fr' });
  beforeAll(async () => {
    await site.strapi.plugin('i18n').service('locales').create({ code: 'fr', name: 'French (fr)' });
    superAdmin = await loginAs(site, 'strapi-super-admin');
  });

  const journals = () => documentsOf(site.strapi, JOURNAL);
  const panelPath = (documentId: string, locale?: string) =>
    `/publish-bridge/entries?uid=${encodeURIComponent(JOURNAL)}&documentId=${documentId}${locale ? `&locale=${locale}` : ''}`;

  /** A French post whose editor's title was overwritten (a French revision), with an English version beside it. */
  async function frenchEntryWithRevision() {
    const id = await publish(site, { title: 'Titre de la plateforme' });
    await journals().update({ documentId: id, locale: 'fr', data: { title: 'Titre secret de l’éditeur' } });
    expect((await site.send('PUT', `/posts/${id}`, { title: 'Nouveau titre' })).status).toBe(200);
    await journals().update({ documentId: id, locale: 'en', data: { title: 'English version' } });
    return id;
  }

  test('without a locale the panel judges and shows the locale the plugin writes', async () => {
    const id = await frenchEntryWithRevision();
    const panel = await superAdmin.request('GET', panelPath(id));
    expect(panel.status).toBe(200);
    expect(panel.body.data.revisions).toEqual([
      expect.objectContaining({ fields: { title: { title: 'Titre secret de l’éditeur' } } }),
    ]);

    const englishOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(JOURNAL, 'read', { locales: ['en'] }),
    ]);
    for (const locale of [undefined, 'fr']) {
      const refused = await englishOnly.request('GET', panelPath(id, locale));
      expect([locale, refused.status, refused.body.error?.message]).toEqual([
        locale,
        403,
        expect.any(String),
      ]);
    }
    const english = await englishOnly.request('GET', panelPath(id, 'en'));
    expect(english.status).toBe(200);
    expect(english.text).not.toContain('Titre secret');
    // The last delivery wrote French: its notes are not about the English entry shown.
    const noted = await publish(site, { title: 'Titre', content: '<p>Corps.</p><script>alert(1)</script>' });
    await journals().update({ documentId: noted, locale: 'en', data: { title: 'English version' } });
    const frenchPanel = await superAdmin.request('GET', panelPath(noted));
    expect(frenchPanel.body.data.lastDelivery.notes).toEqual([expect.stringMatching(/^content: /)]);
    const englishPanel = await englishOnly.request('GET', panelPath(noted, 'en'));
    expect(englishPanel.status).toBe(200);
    expect(englishPanel.body.data.lastDelivery.notes ?? []).toEqual([]);

    // A restore is judged in the revision's locale: editing English does not restore French.
    const englishEditor = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      onType(JOURNAL, 'read', { locales: ['en'] }),
      onType(JOURNAL, 'update', { locales: ['en'] }),
    ]);
    const [frenchRevision] = panel.body.data.revisions;
    expect((await restore(englishEditor, frenchRevision.id)).status).toBe(404);
    expect((await restore(superAdmin, frenchRevision.id)).status).toBe(200);
  });

  test('a deletion of the French version only, restored, brings French back into the same document', async () => {
    const id = await publish(site, { title: 'Supprimé puis rendu' });
    await journals().update({ documentId: id, locale: 'en', data: { title: 'Stays in English' } });
    expect((await site.send('DELETE', `/posts/${id}`)).status).toBe(200);
    const listed = await superAdmin.request('GET', `${revisionsPath(JOURNAL, id)}&locale=fr`);
    expect(listed.status).toBe(200);
    const [deleted] = listed.body.data;
    expect(deleted.reason).toBe('delete');

    const restored = await restore(superAdmin, deleted.id);
    expect([restored.status, restored.body.data]).toEqual([
      200,
      { documentId: id, recreated: true, leftOut: [] },
    ]);
    const versions = await queryOf(site.strapi, JOURNAL).findMany({
      where: { documentId: id },
      select: ['locale', 'title', 'publishedAt'],
    });
    expect(
      versions
        .map((row: any) => `${row.locale}:${row.publishedAt ? 'published' : 'draft'}:${row.title}`)
        .sort()
    ).toEqual(['en:draft:Stays in English', 'fr:draft:Supprimé puis rendu']);
    expect(await queryOf(site.strapi, JOURNAL).count({ where: { title: 'Supprimé puis rendu' } })).toBe(1);
  });
});
