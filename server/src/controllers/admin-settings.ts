import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { z } from 'zod';
import { CAPABILITIES } from '../contract/capabilities';
import { describeZodError } from '../contract/errors';
import { MIN_KEY_LENGTH, PLUGIN_ID } from '../constants';
import { SettingsError, type SettingsChanges } from '../services/settings';
import { getService } from '../plugin';

const MAX_GRACE_MINUTES = 7 * 24 * 60;
const LOGS_READ = `plugin::${PLUGIN_ID}.logs.read`;

const key = z
  .string()
  .trim()
  .min(MIN_KEY_LENGTH, {
    error: `is too short: paste the whole key (at least ${MIN_KEY_LENGTH} characters)`,
  })
  .max(512, { error: 'is too long (at most 512 characters)' })
  .regex(/^\S+$/, { error: 'must not contain spaces or line breaks' });

/**
 * An address a key will be sent to: absolute http(s), without credentials (they would be shown
 * and logged in clear), query or fragment (paths are appended to it). An empty string clears it.
 */
const addressSetting = z
  .string()
  .trim()
  .pipe(
    z.union([
      z.literal(''),
      z
        .url({
          protocol: /^https?$/,
          error: 'must be an absolute http(s) URL, e.g. https://cms.example.com',
          // The checks below parse the URL: they must not run on one that failed here.
          abort: true,
        })
        .refine((value) => !/[?#]/.test(value), { error: 'must not contain a query (?) or a fragment (#)' })
        .refine(
          (value) => {
            const { username, password } = new URL(value);
            return username === '' && password === '';
          },
          { error: 'must not contain a user name or password' }
        ),
    ])
  );

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
    /** This Strapi's address as the publisher reaches it; "Test connection" sends the key there. */
    publicUrl: addressSetting.optional(),
    platform: z
      .object({
        url: addressSetting.optional(),
        key: key.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const toChanges = ({
  connectionKey,
  capabilities,
  publicUrl,
  platform,
}: z.infer<typeof updateSchema>): SettingsChanges => ({
  connectionKey: connectionKey && {
    value: connectionKey.value,
    graceMs: connectionKey.graceMinutes * 60_000,
  },
  capabilities,
  publicUrl,
  platform,
});

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const settings = () => getService(strapi, 'settings');

  /**
   * The route needs settings.read only; what the activity log holds (the last request) is
   * shown only to admins who also hold logs.read. The origin is used for display only.
   */
  const overview = (ctx: Context) =>
    settings().overview({
      requestOrigin: ctx.request.origin,
      includeLastRequest: Boolean(ctx.state.userAbility?.can(LOGS_READ)),
    });

  return {
    async find(ctx: Context) {
      ctx.body = { data: await overview(ctx) };
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
      ctx.body = { data: await overview(ctx) };
    },
  };
};
