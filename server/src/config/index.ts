import { z } from 'zod';
import { isValidTimeZone } from '../contract/dates';
import type { PageType } from '../contract/responses';
import { SEO_PART_NAMES } from '../contract/seo-parts';
import { allowListEntryProblem } from '../network/address-guard';
import { RESOURCE_KINDS } from '../mapping/catalogue';
import {
  capabilityChoicesSchema,
  connectionPathProblems,
  connectionsSchema,
  localeSchema,
  pathSchema,
} from './connections';

const MEGABYTE = 1024 * 1024;

const seoMapping = z
  .object(Object.fromEntries(SEO_PART_NAMES.map((part) => [part, z.string().optional()])))
  .strict();

/** A component uid of the zone, or `false` for none (that part of the HTML stays in the text). */
const componentChoice = z.union([z.string().min(1), z.literal(false)]);

const zoneMapping = z
  .object({
    attribute: z.string().min(1),
    components: z
      .object({
        text: z.string().min(1).optional(),
        image: componentChoice.optional(),
        quote: componentChoice.optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const fieldMapping = z.union([z.string().min(1), seoMapping, zoneMapping], {
  error: `must be an attribute name, an seo object { ${SEO_PART_NAMES.join(', ')} }, or a dynamic zone object { attribute, components: { text, image, quote } }`,
});

const contentTypeMapping = z
  .object({ uid: z.string().min(1), fields: z.record(z.string(), fieldMapping) })
  .strict();

/**
 * Hosts or addresses (IP, CIDR) that may be private although the address guard refuses such
 * addresses. Each entry goes through the guard's own parse here, so an entry it would refuse
 * stops the boot instead of failing every download.
 */
const allowedHosts = z.array(
  z.string().superRefine((entry, context) => {
    const problem = allowListEntryProblem(entry);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  })
);

const urlTemplate = z.string().regex(/^https?:\/\/[^\s]*\{(slug|id)\}/, {
  error: 'must be an absolute http(s) URL containing {slug} or {id}, e.g. "https://example.com/blog/{slug}"',
});

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
    urlTemplates: z.object({
      post: urlTemplate.optional(),
      category: urlTemplate.optional(),
      product: urlTemplate.optional(),
      product_cat: urlTemplate.optional(),
    } satisfies Record<PageType, unknown>),
    timezone: z
      .string()
      .refine(isValidTimeZone, { error: 'must be an IANA time zone such as "Europe/Paris"' }),
    site: z.object({ name: z.string().optional(), url: z.string().optional() }),
    /**
     * What HTML becomes in a `richtext` attribute: kept as HTML, or converted to Markdown. No
     * default here: unset, it follows the site's richtext editor (mapping/richtext-format.ts),
     * which only a value left out can tell from one chosen.
     */
    richtextFormat: z.enum(['html', 'markdown']).optional(),
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
    /** Resources stored in the site's own content types instead of the plugin's. */
    contentTypes: z.partialRecord(z.enum(RESOURCE_KINDS), contentTypeMapping),
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
    platform: z.object({ timeoutMs: z.number().int().min(500).max(120_000), allowedHosts }).strict(),
    /** How long "Test connection" waits for the site's own handshake through its public URL. */
    connectionTest: z.object({ timeoutMs: z.number().int().min(500).max(120_000) }).strict(),
    /**
     * Bounds the conversion of a request's HTML (Blocks, Markdown, dynamic-zone sections): past
     * `maxBlocks` blocks the rest is kept verbatim as one HTML block, and the parser reads at most
     * 25 nodes per allowed block. A conversion to Markdown runs on a worker thread and gets
     * `markdownTimeoutMs`, past which the HTML is kept as it is. `allowedEmbedHosts`: the hosts
     * whose https iframes the content-safety policy keeps live (see mapping/content-safety).
     */
    content: z
      .object({
        allowedEmbedHosts: z.array(
          z.string().regex(/^[a-z0-9-]+(\.[a-z0-9-]+)+$/, {
            error: 'must be a host name in lower case, without scheme or path, such as "www.youtube.com"',
          })
        ),
        maxBlocks: z.number().int().min(10).max(1_000_000),
        markdownTimeoutMs: z
          .number()
          .int()
          .min(100)
          .max(10 * 60_000),
      })
      .strict(),
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
    media: z
      .object({
        allowedHosts,
        timeoutMs: z
          .number()
          .int()
          .min(500)
          .max(10 * 60_000),
        maxBytes: z
          .number()
          .int()
          .min(1024)
          .max(512 * MEGABYTE),
        importInlineImages: z.boolean(),
        /** Images in a request's HTML past this many are not downloaded, and stay HTML. */
        maxInlineImages: z.number().int().min(0).max(1000),
        /**
         * Downloads one request runs at the same time: 10 by default, so a post of ten images from
         * a slow host waits for one round of downloads, not two. Each streams to a temporary file;
         * the decoding they lead to is bounded by the pixel limits below, not by this.
         */
        concurrentDownloads: z.number().int().min(1).max(32),
        /**
         * Pixels (width × height × frames, read from the file's header) an image may have: Strapi
         * decodes every pixel of every frame to make its thumbnails, seconds of CPU per hundred
         * megapixels.
         */
        maxPixels: z.number().int().min(1_000_000).max(268_402_689),
        /**
         * Pixels all the images one request imports may add up to: the per-image limit alone lets
         * a post of many images cost many times that CPU.
         */
        maxPixelsPerRequest: z.number().int().min(1_000_000).max(Number.MAX_SAFE_INTEGER),
        /**
         * Pixels the images of all requests together may be decoding at once; others wait their
         * turn. Per-request limits alone let concurrent requests add up: three within
         * maxPixelsPerRequest took the process to 1.77 GB. Decoding is CPU-bound, so more at once
         * adds memory, not speed. An image over this (within maxPixels) is decoded alone.
         */
        maxPixelsDecodingAtOnce: z.number().int().min(1_000_000).max(Number.MAX_SAFE_INTEGER),
      })
      .strict(),
  })
  .strict()
  .superRefine((config, context) => {
    for (const { name, message } of connectionPathProblems(config))
      context.addIssue({ code: 'custom', path: ['connections', name, 'path'], message });
  });

export type PluginConfig = z.infer<typeof pluginConfigSchema>;

/** Where a site stores one resource: its content type and, per contract field, the attribute. */
export type PublishBridgeContentTypeMapping = z.input<typeof contentTypeMapping>;

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
