/**
 * What the settings page may send to the admin API (routes/admin.ts), as zod schemas: one source
 * for the server's validation and the admin's request types. No Strapi import.
 */
import { z } from 'zod';
import { MIN_KEY_LENGTH } from '../constants';
import { needsHttps } from './addresses';
import { CAPABILITIES } from './capabilities';
import { EDITOR_CHANGE_POLICIES } from './editor-change-policies';

const MAX_GRACE_MINUTES = 7 * 24 * 60;
const key = z
  .string()
  .trim()
  .min(MIN_KEY_LENGTH, {
    error: `is too short: paste the whole key (at least ${MIN_KEY_LENGTH} characters)`,
  })
  .max(512, { error: 'is too long (at most 512 characters)' })
  .regex(/^\S+$/, { error: 'must not contain spaces or line breaks' });

const isValidSoFar = (payload: { issues: unknown[] }) => payload.issues.length === 0;

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
          // Not `abort`: the union reports the problems of the one branch that did not abort, so
          // this message reaches the admin rather than "is not in any of the accepted forms".
        })
        // The checks below parse the URL: they run only on one that passed the check above.
        .refine((value) => !/[?#]/.test(value), {
          error: 'must not contain a query (?) or a fragment (#)',
          when: isValidSoFar,
        })
        .refine(
          (value) => {
            const { username, password } = new URL(value);
            return username === '' && password === '';
          },
          { error: 'must not contain a user name or password', when: isValidSoFar }
        ),
    ])
  );

export const settingsUpdateSchema = z
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
    editorChanges: z.enum(EDITOR_CHANGE_POLICIES).optional(),
    platform: z
      .object({
        /** Where the platform key goes with every delivery-log request: never over plain HTTP to another machine. */
        url: addressSetting
          .refine((value) => !needsHttps(value), {
            error:
              'must start with https:// (the platform key is sent with every request); plain http:// is only for a platform on this machine',
          })
          .optional(),
        key: key.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** PUT /settings */
export type SettingsUpdate = z.input<typeof settingsUpdateSchema>;

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

export const activityQuerySchema = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(10),
  filters: z
    .object({ $and: z.array(filter).max(10).default([]) })
    .strict()
    .optional(),
});

/** GET /activity */
export type ActivityQuery = z.input<typeof activityQuerySchema>;

export const revisionsQuerySchema = z
  .object({
    uid: z.string().min(1).max(191),
    documentId: z.string().min(1).max(64),
    locale: z.string().max(32).optional(),
  })
  .strict();

/** GET /revisions, GET /entries, DELETE /entries/schedule */
export type RevisionsQuery = z.input<typeof revisionsQuerySchema>;

/** A row id: databases keep them as 32-bit integers. */
export const revisionIdSchema = z.coerce.number().int().positive().max(2_147_483_647);
