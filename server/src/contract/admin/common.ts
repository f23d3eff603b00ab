/**
 * What several admin routes (routes/admin.ts) answer alike. Each route's own request and answer
 * are in the file named after its controller (settings.ts, activity.ts, ...); the server and the
 * settings page both import them through `#contract/*`, so the two cannot drift. Types,
 * constants and zod schemas only: no Strapi import, nothing the browser cannot load.
 */

export const OUTCOMES = ['success', 'rejected', 'error'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * A Strapi entry an id points at, for a link to the Content Manager; `title` is its entry title
 * (the Content Manager's main field), when the admin may read it.
 */
export type EntryLocation = { uid: string; documentId: string; title?: string };

/** One row of the activity log, as the activity tab, the settings' last request and an entry's panel show it. */
export type ActivityItem = {
  id: number;
  receivedAt: string;
  requestId?: string;
  method: string;
  path: string;
  action: string;
  httpStatus: number;
  outcome: Outcome;
  entityId?: string;
  durationMs?: number;
  reason?: string;
  notes?: string[];
  entry?: EntryLocation;
  /** 1, or how many unauthenticated refusals an aggregate row counts. */
  count: number;
  /** Aggregates only: the refusal's code (`wrong_key`, ...), the address (none: other addresses), the last one's time. */
  refusal?: string;
  sourceAddress?: string;
  lastSeenAt?: string;
  /** The connection (config `connections`) the request came to; none on rows written before connections, and on the scheduler's. */
  connection?: string;
};

export type Pagination = { page: number; pageSize: number; pageCount: number; total: number };

/** How the admin API wraps an answer, except the activity page's (Strapi's `results` and `pagination`). */
export type Data<T> = { data: T };
