/** GET /activity: the activity log, a page at a time, filtered as Strapi's admin `Filters` sends. */
import { z } from 'zod';
import type { ActivityItem, Outcome, Pagination } from './common';

/** The operators Strapi's admin `Filters` offers for an enumeration; `$null`/`$notNull` carry "true" or "false". */
const condition = z
  .object({
    $eq: z.string().max(64),
    $ne: z.string().max(64),
    $null: z.enum(['true', 'false']).transform((value) => value === 'true'),
    $notNull: z.enum(['true', 'false']).transform((value) => value === 'true'),
  })
  .partial()
  .strict();

const filter = z.union([
  z.object({ outcome: condition }).strict(),
  z.object({ action: condition }).strict(),
  z.object({ connection: condition }).strict(),
]);

export const activityQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(10),
  filters: z
    .object({ $and: z.array(filter).max(10).default([]) })
    .strict()
    .optional(),
});

export type ActivityQuery = z.input<typeof activityQuerySchema>;

export type ActivityPage = {
  results: ActivityItem[];
  pagination: Pagination;
  /** `connection`: the site's connections, by name (one, `default`, unless config lists several). */
  filterOptions: { outcome: readonly Outcome[]; action: readonly string[]; connection: readonly string[] };
};

/** GET /activity: answered as Strapi's lists are, not wrapped in `data`. */
export declare namespace GetActivity {
  export type Request = { query: ActivityQuery };
  export type Response = ActivityPage;
}
