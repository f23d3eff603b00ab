import { setTimeout as sleep } from 'node:timers/promises';
import type { Site } from './site';
import { serviceOf } from './site';
import { queryOf, UIDS } from './inspect';

/** What tests of scheduled publishes do: send a post due in a few seconds, let its time pass, read what the scheduler logged. */

/** An instant as the contract's `YYYY-MM-DD HH:MM:SS` in UTC (the example site's zone). */
export const contractDate = (instant: Date) => instant.toISOString().slice(0, 19).replace('T', ' ');

/** A post sent with `status: publish` and a date about 2.5 s ahead (the contract's dates are whole seconds). */
export async function scheduleSoon(site: Site, postTitle: string) {
  const due = new Date(Math.ceil((Date.now() + 2_500) / 1000) * 1000);
  const reply = await site.send('POST', '/posts', {
    title: postTitle,
    content: '<p>From the platform.</p>',
    status: 'publish',
    date: contractDate(due),
  });
  expect(reply.status).toBe(200);
  return { id: reply.body.id as string, due };
}

/** Waits until `instant` has passed, then runs the scheduler once and waits for it. */
export async function waitPast(site: Site, instant: Date) {
  await sleep(Math.max(0, instant.getTime() - Date.now()) + 50);
  await serviceOf(site, 'schedules').runDue();
}

/** The activity log rows the scheduler wrote about a post (cancelled or failed publishes). */
export async function schedulerEntries(site: Site, documentId: string) {
  await serviceOf(site, 'activity-writer').flush();
  return queryOf(site.strapi, UIDS.activityEntry).findMany({
    where: { entityId: documentId, action: 'scheduled-publish' },
  });
}
