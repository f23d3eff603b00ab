import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import type { z } from 'zod';
import { settingsUpdateSchema } from '#contract/admin/settings';
import { describeZodError, safeParseInPlainWords } from '../contract/errors';
import { PLUGIN_ID } from '../constants';
import { SettingsError, type SettingsChanges } from '../services/connection/settings';
import { getService } from '../plugin';

const LOGS_READ = `plugin::${PLUGIN_ID}.logs.read`;

const toChanges = ({
  connectionKey,
  capabilities,
  publicUrl,
  platform,
  editorChanges,
}: z.infer<typeof settingsUpdateSchema>): SettingsChanges => ({
  connectionKey: connectionKey && {
    value: connectionKey.value,
    graceMs: connectionKey.graceMinutes * 60_000,
  },
  capabilities,
  publicUrl,
  platform,
  editorChanges,
});

export default ({ strapi }: { strapi: Core.Strapi }) => {
  /**
   * The route needs settings.read only; what the activity log holds (the last request) is
   * shown only to admins who also hold logs.read. The origin is used for display only.
   */
  const overview = (ctx: Context) =>
    getService(strapi, 'settings-overview').overview({
      requestOrigin: ctx.request.origin,
      includeLastRequest: Boolean(ctx.state.userAbility?.can(LOGS_READ)),
    });

  return {
    async find(ctx: Context) {
      ctx.body = { data: await overview(ctx) };
    },

    async update(ctx: Context) {
      const parsed = safeParseInPlainWords(settingsUpdateSchema, ctx.request.body ?? {});
      if (!parsed.success) return ctx.badRequest(describeZodError(parsed.error));
      try {
        await getService(strapi, 'settings').update(toChanges(parsed.data));
      } catch (error) {
        if (error instanceof SettingsError) return ctx.badRequest(error.message);
        throw error;
      }
      ctx.body = { data: await overview(ctx) };
    },
  };
};
