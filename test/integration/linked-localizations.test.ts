import { loginAs, loginWithPermissions, type AdminClient } from '../helpers/admin-client';
import { documentsOf, localizedVersionsOf, queryOf } from '../helpers/inspect';
import { serviceOf, useSite } from '../helpers/site';

/**
 * `linkLocalizations: true` on an `en` and a `fr` connection writing the Journal (Strapi's i18n
 * on): the platform's English and French projects send the same source_id for a post and its
 * translation, and the site gets one document with a localization per locale, as an editor
 * translating it in the Content Manager would make.
 */
const JOURNAL = 'api::journal.journal';
const CATEGORY = 'api::category.category';
const KEYS = {
  en: 'pb_en_key_0123456789abcdef0123456789abcdef',
  fr: 'pb_fr_key_0123456789abcdef0123456789abcdef',
};
type Name = keyof typeof KEYS;

describe('connections of two locales with linkLocalizations', () => {
  const site = useSite({
    PUBLISH_BRIDGE_CONTENT_TYPES: 'localized',
    PUBLISH_BRIDGE_CONNECTIONS: JSON.stringify({
      en: { locale: 'en', linkLocalizations: true },
      fr: { locale: 'fr', linkLocalizations: true },
    }),
    PUBLISH_BRIDGE_API_KEY_EN: KEYS.en,
    PUBLISH_BRIDGE_API_KEY_FR: KEYS.fr,
  });
  beforeAll(async () => {
    await site.strapi.plugin('i18n').service('locales').create({ code: 'fr', name: 'French (fr)' });
  });

  const send = (name: Name, method: string, path: string, body?: object) =>
    site.send(method, `/${name}${path}`, body, { key: KEYS[name] });
  const post = (title: string, sourceId: string, extra: object = {}) => ({
    title,
    content: `<p>${title}.</p>`,
    status: 'publish',
    source_id: sourceId,
    ...extra,
  });
  const versionsOf = (documentId: string) => localizedVersionsOf(site.strapi, JOURNAL, documentId);

  test("a source_id another connection created becomes that document's localization in this connection's locale", async () => {
    const en = await send('en', 'POST', '/posts', post('Morning', 'day-1'));
    const fr = await send('fr', 'POST', '/posts', post('Matin', 'day-1'));
    expect([en.status, fr.status]).toEqual([200, 200]);
    expect(fr.body.id).toBe(en.body.id);
    expect(await versionsOf(en.body.id)).toEqual([
      'en:draft:Morning',
      'en:published:Morning',
      'fr:draft:Matin',
      'fr:published:Matin',
    ]);

    // Each connection's republish and update reach its own localization only.
    expect((await send('fr', 'POST', '/posts', post('Matin clair', 'day-1'))).body.id).toBe(en.body.id);
    expect((await send('en', 'PUT', `/posts/${en.body.id}`, { title: 'Bright morning' })).status).toBe(200);
    expect(await versionsOf(en.body.id)).toEqual([
      'en:draft:Bright morning',
      'en:published:Bright morning',
      'fr:draft:Matin clair',
      'fr:published:Matin clair',
    ]);
  });

  test('deleting one localization leaves the others; the next publish of it is a localization again', async () => {
    const { body } = await send('en', 'POST', '/posts', post('Noon', 'day-2'));
    await send('fr', 'POST', '/posts', post('Midi', 'day-2'));
    expect((await send('fr', 'DELETE', `/posts/${body.id}`)).status).toBe(200);
    expect(await versionsOf(body.id)).toEqual(['en:draft:Noon', 'en:published:Noon']);

    const again = await send('fr', 'POST', '/posts', post('Midi encore', 'day-2'));
    expect(again.body.id).toBe(body.id);
    expect(await versionsOf(body.id)).toEqual([
      'en:draft:Noon',
      'en:published:Noon',
      'fr:draft:Midi encore',
      'fr:published:Midi encore',
    ]);
  });

  test('both localizations name the same category, which has no i18n, when both send its name', async () => {
    const { body } = await send('en', 'POST', '/posts', post('Evening', 'day-3', { categories: ['Daily'] }));
    await send('fr', 'POST', '/posts', post('Soir', 'day-3', { categories: ['Daily'] }));
    const categoriesIn = async (locale: string) =>
      (
        (await documentsOf(site.strapi, JOURNAL).findOne({
          documentId: body.id,
          locale,
          populate: ['categories'],
        })) as { categories: Array<{ documentId: string }> }
      ).categories.map((category) => category.documentId);
    const daily = await queryOf(site.strapi, CATEGORY).findMany({ where: { name: 'Daily' } });
    expect(new Set(daily.map((row: { documentId: string }) => row.documentId)).size).toBe(1);
    expect(await categoriesIn('en')).toEqual([daily[0].documentId]);
    expect(await categoriesIn('fr')).toEqual([daily[0].documentId]);
  });

  test('the same new source_id sent to both connections at once makes one document', async () => {
    for (let round = 0; round < 5; round++) {
      const sourceId = `together-${round}`;
      const [en, fr] = await Promise.all([
        send('en', 'POST', '/posts', post(`Together ${round}`, sourceId)),
        send('fr', 'POST', '/posts', post(`Ensemble ${round}`, sourceId)),
      ]);
      expect([en.status, fr.status]).toEqual([200, 200]);
      expect(fr.body.id).toBe(en.body.id);
      expect(await versionsOf(en.body.id)).toEqual([
        `en:draft:Together ${round}`,
        `en:published:Together ${round}`,
        `fr:draft:Ensemble ${round}`,
        `fr:published:Ensemble ${round}`,
      ]);
    }
  });

  test("an editor's own translation is never overwritten: the post becomes a document of its own", async () => {
    const { body } = await send('en', 'POST', '/posts', post('Night', 'day-4'));
    await documentsOf(site.strapi, JOURNAL).update({
      documentId: body.id,
      locale: 'fr',
      data: { title: 'Nuit (traduction de la rédaction)' },
    });
    const fr = await send('fr', 'POST', '/posts', post('Nuit', 'day-4'));
    expect(fr.status).toBe(200);
    expect(fr.body.id).not.toBe(body.id);
    expect(await versionsOf(body.id)).toEqual([
      'en:draft:Night',
      'en:published:Night',
      'fr:draft:Nuit (traduction de la rédaction)',
    ]);
    expect(await versionsOf(fr.body.id)).toEqual(['fr:draft:Nuit', 'fr:published:Nuit']);
  });

  test('the side panel names the connection that wrote the localization it shows', async () => {
    const { body } = await send('en', 'POST', '/posts', post('Dawn', 'day-5'));
    await send('fr', 'POST', '/posts', post('Aube', 'day-5'));
    const admin = await loginAs(site, 'strapi-super-admin');
    const panelIn = async (locale: string) =>
      (
        await admin.request(
          'GET',
          `/publish-bridge/entries?uid=${encodeURIComponent(JOURNAL)}&documentId=${body.id}&locale=${locale}`
        )
      ).body.data;
    expect(await panelIn('fr')).toMatchObject({ managed: true, connection: 'fr', sourceId: 'day-5' });
    expect(await panelIn('en')).toMatchObject({ managed: true, connection: 'en', sourceId: 'day-5' });
  });

  // readingTime is the Journal's one non-localized attribute: i18n copies fr's value into en's rows.
  test("fr's publish leaves en's published post as en's publisher sent it", async () => {
    const en = await send('en', 'POST', '/posts', post('Noon', 'nl-2', { reading_time: '3 min' }));
    await send('fr', 'POST', '/posts', post('Midi', 'nl-2', { reading_time: '12 min' }));
    const published = await documentsOf(site.strapi, JOURNAL).findOne({
      documentId: en.body.id,
      locale: 'en',
      status: 'published',
    });
    expect(published?.readingTime).toBe('3 min');
  });

  test("the fr panel shows a French-only role fr's last delivery, not the notes of en's", async () => {
    const en = await send('en', 'POST', '/posts', post('Dusk', 'nl-3'));
    await send('fr', 'POST', '/posts', post('Crépuscule', 'nl-3'));
    // A script the plugin strips: en's delivery then carries a note about en's content.
    const update = await send('en', 'PUT', `/posts/${en.body.id}`, {
      content: '<p>Dusk.</p><script>alert(1)</script>',
    });
    expect(update.status).toBe(200);
    const frenchOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      {
        action: 'plugin::content-manager.explorer.read',
        subject: JOURNAL,
        properties: { locales: ['fr'] },
      },
    ]);
    const panel = await frenchOnly.request(
      'GET',
      `/publish-bridge/entries?uid=${encodeURIComponent(JOURNAL)}&documentId=${en.body.id}&locale=fr`
    );
    expect(panel.status).toBe(200);
    expect(panel.body.data).toMatchObject({ managed: true, connection: 'fr' });
    expect(panel.body.data.lastDelivery).toMatchObject({ connection: 'fr', action: 'posts.create' });
    expect(panel.body.data.lastDelivery.notes).toBeUndefined();
  });

  test("the activity log titles each row in its own connection's locale, as each role may read it", async () => {
    const en = await send('en', 'POST', '/posts', post('Twilight', 'nl-4'));
    await send('fr', 'POST', '/posts', post('Pénombre', 'nl-4'));
    await serviceOf(site, 'activity-writer').flush();
    const titles = async (admin: AdminClient) => {
      const reply = await admin.request('GET', '/publish-bridge/activity?pageSize=100');
      expect(reply.status).toBe(200);
      return (
        reply.body.results as Array<{ connection: string; entityId?: string; entry?: { title?: string } }>
      )
        .filter((row) => row.entityId === en.body.id)
        .map((row) => [row.connection, row.entry?.title])
        .sort();
    };
    expect(await titles(await loginAs(site, 'strapi-super-admin'))).toEqual([
      ['en', 'Twilight'],
      ['fr', 'Pénombre'],
    ]);
    const frenchOnly = await loginWithPermissions(site, [
      'plugin::publish-bridge.logs.read',
      { action: 'plugin::content-manager.explorer.read', subject: JOURNAL, properties: { locales: ['fr'] } },
    ]);
    expect(await titles(frenchOnly)).toEqual([
      ['en', undefined],
      ['fr', 'Pénombre'],
    ]);

    // With fr's locale gone from the site, the log still answers: fr's rows without a title.
    const locales = site.strapi.plugin('i18n').service('locales');
    await locales.delete({ id: (await locales.findByCode('fr')).id });
    expect(await titles(await loginAs(site, 'strapi-super-admin'))).toEqual([
      ['en', 'Twilight'],
      ['fr', undefined],
    ]);
  });
});
