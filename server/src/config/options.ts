import { z } from 'zod';
import { CAPABILITIES } from '../contract/capabilities';
import { isValidTimeZone } from '../contract/dates';
import type { PageType } from '../contract/responses';
import { SEO_PART_NAMES } from '../contract/seo-parts';
import { allowListEntryProblem } from '../network/address-guard';
import { RESOURCE_KINDS } from '../mapping/catalogue';

/**
 * The schemas of the options a site sets for the plugin, one each, so that the top level
 * (config/index.ts) and a connection (config/connections.ts) check an option the same way.
 */

export const pathSchema = z.string().regex(/^\/[A-Za-z0-9._~\-/]*[A-Za-z0-9._~-]$/, {
  error: 'must be a path starting with "/" and not ending with "/", e.g. "/api/publish-bridge"',
});

export const localeSchema = z.string().regex(/^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$/, {
  error: 'must be a locale code of the site, such as "en" or "fr-FR"',
});

export const capabilityChoicesSchema = z.partialRecord(z.enum(CAPABILITIES), z.boolean());

export const MEGABYTE = 1024 * 1024;

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

export const contentTypeMappingSchema = z
  .object({ uid: z.string().min(1), fields: z.record(z.string(), fieldMapping) })
  .strict();

/**
 * Hosts or addresses (IP, CIDR) that may be private although the address guard refuses such
 * addresses. Each entry goes through the guard's own parse here, so an entry it would refuse
 * stops the boot instead of failing every download.
 */
export const allowedHostsSchema = z.array(
  z.string().superRefine((entry, context) => {
    const problem = allowListEntryProblem(entry);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  })
);

const urlTemplate = z.string().regex(/^https?:\/\/[^\s]*\{(slug|id)\}/, {
  error: 'must be an absolute http(s) URL containing {slug} or {id}, e.g. "https://example.com/blog/{slug}"',
});

/** Resources stored in the site's own content types instead of the plugin's. */
export const contentTypesSchema = z.partialRecord(z.enum(RESOURCE_KINDS), contentTypeMappingSchema);

export const urlTemplatesSchema = z.object({
  post: urlTemplate.optional(),
  category: urlTemplate.optional(),
  product: urlTemplate.optional(),
  product_cat: urlTemplate.optional(),
} satisfies Record<PageType, unknown>);

export const timezoneSchema = z
  .string()
  .refine(isValidTimeZone, { error: 'must be an IANA time zone such as "Europe/Paris"' });

export const siteSchema = z.object({ name: z.string().optional(), url: z.string().optional() });

/**
 * What HTML becomes in a `richtext` attribute: kept as HTML, or converted to Markdown. No
 * default: unset, it follows the site's richtext editor (mapping/richtext-format.ts), which only
 * a value left out can tell from one chosen.
 */
export const richtextFormatSchema = z.enum(['html', 'markdown']);

/**
 * Bounds the conversion of a request's HTML (Blocks, Markdown, dynamic-zone sections): past
 * `maxBlocks` blocks the rest is kept verbatim as one HTML block, and the parser reads at most
 * 25 nodes per allowed block. A conversion to Markdown runs on a worker thread and gets
 * `markdownTimeoutMs`, past which the HTML is kept as it is. `allowedEmbedHosts`: the hosts
 * whose https iframes the content-safety policy keeps live (see mapping/content-safety).
 */
export const contentOptionsSchema = z
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
  .strict();

/** Image import: hosts or addresses (IP, CIDR) that may be private, and limits of downloads. */
export const mediaSchema = z
  .object({
    allowedHosts: allowedHostsSchema,
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
  .strict();
