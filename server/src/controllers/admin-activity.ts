import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { activityQuerySchema } from '#contract/admin/activity';
import { describeZodError, safeParseInPlainWords } from '../contract/errors';
import { OUTCOMES } from '#contract/admin/common';
import { FILTERABLE_ACTIONS, type ActivityFilter } from '../services/delivery/activity';
import { getService } from '../plugin';

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async find(ctx: Context) {
    const parsed = safeParseInPlainWords(activityQuerySchema, ctx.query);
    if (!parsed.success) return ctx.badRequest(describeZodError(parsed.error));
    const { page, pageSize, filters } = parsed.data;
    const { results, pagination } = await getService(strapi, 'activity').list({
      page,
      pageSize,
      filters: (filters?.$and ?? []) as ActivityFilter[],
      userAbility: ctx.state.userAbility,
    });
    ctx.body = {
      results,
      pagination,
      filterOptions: {
        outcome: OUTCOMES,
        action: FILTERABLE_ACTIONS,
        connection: getService(strapi, 'connections')
          .list()
          .map(({ name }) => name),
      },
    };
  },
});
