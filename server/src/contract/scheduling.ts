import type { PostUpdate } from './schemas';

export type Timing = {
  /** The status to apply now: `draft` while a publish waits for its time. */
  status: PostUpdate['status'];
  /** When the post is to be published; null: no publish waits. */
  publishAt: Date | null;
};

/**
 * What a write's `status` and `date` ask for, given the publish that waits already (`scheduled`).
 * `publish` with a future date waits for that date. A write that names no status keeps a waiting
 * publish, moved to its new date, or done at once when that date is past. A write that names no
 * date keeps the waiting publish's. `draft` cancels it.
 */
export function timingOf(
  status: PostUpdate['status'],
  date: Date | undefined,
  scheduled: Date | null,
  now: Date
): Timing {
  const wantsPublish = status === 'publish' || (status === undefined && scheduled !== null);
  const when = date ?? scheduled;
  if (wantsPublish && when && when.getTime() > now.getTime()) return { status: 'draft', publishAt: when };
  return { status: wantsPublish ? 'publish' : status, publishAt: null };
}
