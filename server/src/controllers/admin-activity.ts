import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { z } from 'zod';
import { describeZodError } from '../contract/errors';
import { OUTCOMES } from '../contract/admin-api';
import { FILTERABLE_ACTIONS, type ActivityFilter } from '../services/activity';
import { getService } from '../plugin';

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

const filter = z.union([z.object({ outcome: condition }).strict(), z.object({ action: condition }).strict()]);

const querySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(10),
  filters: z
    .object({ $and: z.array(filter).max(10).default([]) })
    .strict()
    .optional(),
});

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async find(ctx: Context) {
    const parsed = querySchema.safeParse(ctx.query);
    if (!parsed.success) return ctx.badRequest(describeZodError(parsed.error));
    const { page, pageSize, filters } = parsed.data;
    const { results, pagination } = await getService(strapi, 'activity').list({
      page,
      pageSize,
      filters: (filters?.$and ?? []) as ActivityFilter[],
    });
    ctx.body = {
      results,
      pagination,
      filterOptions: { outcome: OUTCOMES, action: FILTERABLE_ACTIONS },
    };
  },
});
