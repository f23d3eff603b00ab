import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { PlatformLogsError } from '../services/connection/platform-logs';
import { getService } from '../plugin';

const ANSWER_BY_STATUS = { 400: 'badRequest', 502: 'badGateway', 504: 'gatewayTimeout' } as const;

export default ({ strapi }: { strapi: Core.Strapi }) => ({
  async find(ctx: Context) {
    try {
      ctx.body = { data: await getService(strapi, 'platform-logs').list() };
    } catch (error) {
      // Never 401 here: the admin panel would take it for its own session expiring and log the user out.
      if (error instanceof PlatformLogsError) return ctx[ANSWER_BY_STATUS[error.status]](error.message);
      throw error;
    }
  },
});
