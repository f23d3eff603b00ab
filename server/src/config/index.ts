import { z } from 'zod';
import { connectionPathProblems, connectionsSchema } from './connections';
import {
  MEGABYTE,
  allowedHostsSchema,
  capabilityChoicesSchema,
  contentOptionsSchema,
  contentTypeMappingSchema,
  contentTypesSchema,
  localeSchema,
  mediaSchema,
  pathSchema,
  richtextFormatSchema,
  siteSchema,
  timezoneSchema,
  urlTemplatesSchema,
} from './options';

export const pluginConfigSchema = z
  .object({
    /** Full path the contract routes live under; the base URL to register is the site URL plus this. */
    prefix: pathSchema,
    bodyLimit: z
      .number()
      .int()
      .min(1024)
      .max(512 * MEGABYTE),
    bodyTimeoutMs: z
      .number()
      .int()
      .min(100)
      .max(10 * 60_000),
    timestampToleranceMs: z
      .number()
      .int()
      .min(1_000)
      .max(24 * 3_600_000),
    /** Capabilities switched on or off; one left out follows what the mapping stores. */
    capabilities: capabilityChoicesSchema,
    urlTemplates: urlTemplatesSchema,
    timezone: timezoneSchema,
    site: siteSchema,
    richtextFormat: richtextFormatSchema.optional(),
    /**
     * The locale written, listed and deleted in mapped types with Strapi's i18n on; unset: the
     * site's default locale. Checked against the site's locales when used (they can change at run time).
     */
    locale: localeSchema.optional(),
    /**
     * Several base URLs, each with its own key and choices (config/connections.ts); unset: one
     * connection, `default`, at `prefix`.
     */
    connections: connectionsSchema.optional(),
    /**
     * Lets the publisher update and delete entries the plugin did not create (an editor's article
     * in a mapped type); off, those answer 404 as an unknown id does. An entry it changes is
     * adopted: recorded as the plugin's for good. Products are always the site's own (the
     * contract cannot create them) and are updated either way.
     */
    adoptExistingEntries: z.boolean(),
    /**
     * Connections of different locales writing one type with Strapi's i18n on make one document
     * of a `source_id`: a post whose source_id another such connection created becomes that
     * document's localization in this connection's locale, as Strapi's own translations are
     * (one documentId, a row per locale). Off: each connection's post is a document of its own.
     */
    linkLocalizations: z.boolean(),
    contentTypes: contentTypesSchema,
    /** How long a read of the stored settings may be reused; bounds how long two instances disagree. */
    settingsCacheMs: z.number().int().min(0).max(60_000),
    /** How long a write waits for a lock another database session holds before it answers 503. */
    lockTimeoutMs: z.number().int().min(100).max(120_000),
    /**
     * Revisions keep an entry's previous values before the plugin overwrites what an editor
     * changed or deletes it; at most `keepPerEntry` per entry (and locale), and `keepDeleted` of
     * entries since deleted, the oldest dropped.
     */
    revisions: z
      .object({
        keepPerEntry: z.number().int().min(1).max(1_000),
        keepDeleted: z.number().int().min(1).max(1_000_000),
      })
      .strict(),
    /** The activity log keeps at most `maxEntries` rows, none older than `maxAgeDays`. */
    activityLog: z
      .object({
        maxEntries: z.number().int().min(100).max(10_000_000),
        maxAgeDays: z.number().int().min(1).max(3650),
      })
      .strict(),
    /**
     * The platform's delivery-log endpoint: how long the server waits for it, and the private
     * hosts or addresses it may be on (a public platform needs no entry).
     */
    platform: z
      .object({ timeoutMs: z.number().int().min(500).max(120_000), allowedHosts: allowedHostsSchema })
      .strict(),
    /** How long "Test connection" waits for the site's own handshake through its public URL. */
    connectionTest: z.object({ timeoutMs: z.number().int().min(500).max(120_000) }).strict(),
    content: contentOptionsSchema,
    /**
     * A post sent with `status: publish` and a future `date` stays a draft and is published at
     * that date, by a check every `pollMs` on each instance (exactly one of them publishes it).
     * Off: such a post is published at once, whatever its date.
     */
    scheduling: z
      .object({
        enabled: z.boolean(),
        pollMs: z.number().int().min(100).max(3_600_000),
      })
      .strict(),
    /** Image import: hosts or addresses (IP, CIDR) that may be private, and limits of downloads. */
    media: mediaSchema,
  })
  .strict()
  .superRefine((config, context) => {
    for (const { name, message } of connectionPathProblems(config))
      context.addIssue({ code: 'custom', path: ['connections', name, 'path'], message });
  });

export type PluginConfig = z.infer<typeof pluginConfigSchema>;

/** Where a site stores one resource: its content type and, per contract field, the attribute. */
export type PublishBridgeContentTypeMapping = z.input<typeof contentTypeMappingSchema>;

/**
 * What a site writes as the plugin's `config` in config/plugins. Strapi fills in what is left
 * out from the defaults key by key (lodash `defaultsDeep`), so every option, and every key of an
 * object option such as `media`, may be omitted.
 */
export type PublishBridgeConfig = {
  [Option in keyof z.input<typeof pluginConfigSchema>]?: Partial<z.input<typeof pluginConfigSchema>[Option]>;
};

export default {
  default: {
    prefix: '/api/publish-bridge',
    bodyLimit: 10 * MEGABYTE,
    bodyTimeoutMs: 30_000,
    timestampToleranceMs: 5 * 60_000,
    // Each left out follows the mapping (mapping/capability-support.ts).
    capabilities: {},
    urlTemplates: {},
    timezone: 'UTC',
    site: {},
    contentTypes: {},
    adoptExistingEntries: false,
    linkLocalizations: false,
    settingsCacheMs: 2_000,
    lockTimeoutMs: 10_000,
    activityLog: { maxEntries: 10_000, maxAgeDays: 30 },
    revisions: { keepPerEntry: 20, keepDeleted: 1_000 },
    platform: { timeoutMs: 10_000, allowedHosts: [] },
    connectionTest: { timeoutMs: 10_000 },
    content: { maxBlocks: 2_000, markdownTimeoutMs: 5_000, allowedEmbedHosts: [] },
    scheduling: { enabled: true, pollMs: 30_000 },
    media: {
      allowedHosts: [],
      timeoutMs: 10_000,
      maxBytes: 10 * MEGABYTE,
      importInlineImages: true,
      maxInlineImages: 20,
      concurrentDownloads: 10,
      maxPixels: 40_000_000,
      maxPixelsPerRequest: 160_000_000,
      maxPixelsDecodingAtOnce: 80_000_000,
    },
  } satisfies PluginConfig,
  validator(config: unknown) {
    const result = pluginConfigSchema.safeParse(config);
    if (!result.success) {
      const problems = result.error.issues
        .map((issue) => `  - ${issue.path.join('.') || '(root)'}: ${issue.message}`)
        .join('\n');
      throw new Error(`Invalid config for plugin "publish-bridge" in config/plugins:\n${problems}`);
    }
  },
};
