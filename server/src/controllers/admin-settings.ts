import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { z } from 'zod';
import { CAPABILITIES } from '../contract/capabilities';
import { describeZodError } from '../contract/errors';
import { PLUGIN_ID } from '../constants';
import { SettingsError, type SettingsChanges } from '../services/settings';

const MAX_GRACE_MINUTES = 7 * 24 * 60;

const key = z
  .string()
  .trim()
  .min(8, { error: 'is too short: paste the whole key (at least 8 characters)' })
  .max(512, { error: 'is too long (at most 512 characters)' })
  .regex(/^\S+$/, { error: 'must not contain spaces or line breaks' });

const updateSchema = z
  .object({
    connectionKey: z
      .object({
        value: key,
        /** How long the replaced key keeps working, so deliveries already on their way are not refused. */
        graceMinutes: z.number().int().min(0).max(MAX_GRACE_MINUTES).default(0),
      })
      .strict()
      .optional(),
    capabilities: z.partialRecord(z.enum(CAPABILITIES), z.boolean()).optional(),
    platform: z
      .object({
        url: z
          .union([z.literal(''), z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' })])
          .optional(),
        key: key.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const toChanges = ({
  connectionKey,
  capabilities,
  platform,
}: z.infer<typeof updateSchema>): SettingsChanges => ({
  connectionKey: connectionKey && {
    value: connectionKey.value,
    graceMs: connectionKey.graceMinutes * 60_000,
  },
  capabilities,
  platform: platform && { url: platform.url?.trim(), key: platform.key },
});

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const settings = () => strapi.plugin(PLUGIN_ID).service('settings');

  return {
    async find(ctx: Context) {
      ctx.body = { data: await settings().overview(ctx.request.origin) };
    },

    async update(ctx: Context) {
      const parsed = updateSchema.safeParse(ctx.request.body ?? {});
      if (!parsed.success) return ctx.badRequest(describeZodError(parsed.error));
      try {
        await settings().update(toChanges(parsed.data));
      } catch (error) {
        if (error instanceof SettingsError) return ctx.badRequest(error.message);
        throw error;
      }
      ctx.body = { data: await settings().overview(ctx.request.origin) };
    },
  };
};
