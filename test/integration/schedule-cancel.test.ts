import {
  loginAs,
  loginWithPermissions,
  type AdminClient,
  type PermissionSpec,
} from '../helpers/admin-client';
import { testDatabaseClient } from '../helpers/databases';
import { contractDate, scheduleSoon, schedulerEntries, waitPast } from '../helpers/scheduling';
import { useSite } from '../helpers/site';
import { documentsOf, queryOf, UIDS } from '../helpers/inspect';

/**
 * The side panel's Cancel button: an admin cancels a post's waiting publish through the admin
 * API, allowed only when the Content Manager would let that admin publish that very entry
 * (its conditions and locales included).
 */
const db = testDatabaseClient();
const POST = UIDS.post;
const MANAGED_ENTRY = UIDS.managedEntry;

const entryQuery = (documentId: string) => `uid=${encodeURIComponent(POST)}&documentId=${documentId}`;
const cancel = (admin: AdminClient, documentId: string) =>
  admin.request('DELETE', `/publish-bridge/entries/schedule?${entryQuery(documentId)}`);
const panelOf = async (admin: AdminClient, documentId: string) => {
  const reply = await admin.request('GET', `/publish-bridge/entries?${entryQuery(documentId)}`);
  expect(reply.status).toBe(200);
  return reply.body.data;
};
const onPosts = (action: string, extra: Omit<PermissionSpec, 'action' | 'subject'> = {}): PermissionSpec => ({
  action: `plugin::content-manager.explorer.${action}`,
  subject: POST,
  ...extra,
});

describe(`cancelling a scheduled publish from the Content Manager on ${db}`, () => {
  let superAdmin: AdminClient;

  const site = useSite({ PUBLISH_BRIDGE_SCHEDULING_POLL_MS: '300' });
  beforeAll(async () => {
    superAdmin = await loginAs(site, 'strapi-super-admin');
  });

  const documents = () => documentsOf(site.strapi, POST);
  const rows = (uid: string) => queryOf(site.strapi, uid);
  const title = async (documentId: string, status: 'draft' | 'published') =>
    ((await documents().findOne({ documentId, status })) as { title: string } | null)?.title ?? null;
  const waiting = async (documentId: string) =>
    (await rows(MANAGED_ENTRY).findOne({ where: { entryDocumentId: documentId } }))?.scheduledAt ?? null;

  /** Refused without naming the entry; the publish still waits and happens at its time. */
  async function expectRefused(admin: AdminClient, id: string, due: Date) {
    const refused = await cancel(admin, id);
    expect([refused.status, refused.body.error?.message]).toEqual([403, expect.stringMatching(/publish/)]);
    expect(refused.text).not.toContain(id);
    expect(await waiting(id)).not.toBeNull();
    await waitPast(site, due);
    expect(await title(id, 'published')).not.toBeNull();
    expect(await schedulerEntries(site, id)).toEqual([]);
  }

  it('a Super Admin cancels a waiting publish: nothing is published at its time, and one activity entry says who', async () => {
    const { id, due } = await scheduleSoon(site, 'Held back by an admin');
    expect(await panelOf(superAdmin, id)).toMatchObject({
      scheduledAt: due.toISOString(),
      mayCancelSchedule: true,
    });

    const cancelled = await cancel(superAdmin, id);
    expect([cancelled.status, cancelled.body]).toEqual([200, { data: { cancelled: true } }]);
    const panel = await panelOf(superAdmin, id);
    expect(panel.scheduledAt).toBeUndefined();
    expect(panel.mayCancelSchedule).toBe(false);

    await waitPast(site, due);
    expect(await title(id, 'published')).toBeNull();
    expect(await title(id, 'draft')).toBe('Held back by an admin');
    const [entry, ...more] = await schedulerEntries(site, id);
    expect(more).toEqual([]);
    expect(entry).toMatchObject({ outcome: 'rejected', httpStatus: 409, path: `/posts/${id}` });
    expect(entry.reason).toMatch(/cancelled by Test strapi-super-admin in the Content Manager/);
  });

  it('a role that may read the post but not publish it is refused (403), and the publish still happens', async () => {
    // The admin first: the publish is due 2.5 s after it is sent, and a role and a login take a while.
    const reader = await loginWithPermissions(site, ['plugin::publish-bridge.logs.read', onPosts('read')]);
    const { id, due } = await scheduleSoon(site, 'Read only');
    expect(await panelOf(reader, id)).toMatchObject({
      scheduledAt: due.toISOString(),
      mayCancelSchedule: false,
    });
    await expectRefused(reader, id, due);
  });

  it('a role that may publish only the posts it created is refused on the platform’s post (403)', async () => {
    const ownOnly = await loginWithPermissions(site, [
      onPosts('read'),
      onPosts('publish', { conditions: ['admin::is-creator'] }),
    ]);
    const { id, due } = await scheduleSoon(site, 'Not theirs');
    await expectRefused(ownOnly, id, due);
  });

  it('answers 404 with a reason when no publish waits for the post', async () => {
    const reply = await site.send('POST', '/posts', {
      title: 'Published at once',
      content: '<p>c</p>',
      status: 'publish',
    });
    expect(reply.status).toBe(200);
    const nothing = await cancel(superAdmin, reply.body.id);
    expect([nothing.status, nothing.body.error?.message]).toEqual([
      404,
      expect.stringMatching(/no scheduled publish waits/i),
    ]);
    expect(await schedulerEntries(site, reply.body.id)).toEqual([]);
  });
});

describe(`cancelling a scheduled publish of a localized post (the Journal, posts written in French) on ${db}`, () => {
  const JOURNAL = 'api::journal.journal';
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: 'localized', PUBLISH_BRIDGE_LOCALE: 'fr' });
  beforeAll(async () => {
    await site.strapi.plugin('i18n').service('locales').create({ code: 'fr', name: 'French (fr)' });
  });

  it('a role that may publish only English is refused on the French post, judged in the locale the panel shows', async () => {
    const reply = await site.send('POST', '/posts', {
      title: 'Publication prévue',
      content: '<p>c</p>',
      status: 'publish',
      date: contractDate(new Date(Date.now() + 3_600_000)),
    });
    expect(reply.status).toBe(200);
    const id: string = reply.body.id;
    const onJournal = (action: string, locale: string): PermissionSpec => ({
      action: `plugin::content-manager.explorer.${action}`,
      subject: JOURNAL,
      properties: { locales: [locale] },
    });
    const publisherIn = (locale: string) =>
      loginWithPermissions(site, [onJournal('read', locale), onJournal('publish', locale)]);
    const cancelIn = (admin: AdminClient, locale: string) =>
      admin.request(
        'DELETE',
        `/publish-bridge/entries/schedule?uid=${encodeURIComponent(JOURNAL)}&documentId=${id}${locale}`
      );
    const waiting = async () =>
      (await queryOf(site.strapi, UIDS.managedEntry).findOne({
        where: { entryDocumentId: id },
      })) as { scheduledAt: unknown; entryLocale: string };

    const englishPublisher = await publisherIn('en');
    for (const locale of ['', '&locale=fr']) {
      expect([locale, (await cancelIn(englishPublisher, locale)).status]).toEqual([locale, 403]);
    }
    expect(await waiting()).toMatchObject({ scheduledAt: expect.anything(), entryLocale: 'fr' });

    const frenchPublisher = await publisherIn('fr');
    expect((await cancelIn(frenchPublisher, '')).status).toBe(200);
    expect((await waiting()).scheduledAt).toBeNull();
  });
});
