import { z } from 'zod';
import { SEO_PART_NAMES, SEO_PARTS, type SeoPartKind, type SeoPartName } from './seo-parts';

/**
 * The contract's request bodies (contract-v1 section 2) as zod schemas: one source for
 * validation and for the types the services work with. Unknown fields are dropped so a
 * publisher that adds fields keeps working. A `null` is read as "not sent": the partial
 * update rule then keeps the stored value, so nothing is lost by accident.
 */

/** varchar(255) is what Strapi gives `string` and `uid` attributes on every database. */
export const SHORT_TEXT_MAX = 255;
/** The contract's limit for ids (section 8), also used for `source_id`. */
export const ID_MAX = 191;
export const URL_MAX = 2048;
/** Keeps one request from creating an unbounded number of taxonomy entries. */
export const NAMES_MAX = 100;
export const POST_STATUSES = ['publish', 'draft'] as const;

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === null ? undefined : value), schema.optional());

/** Every schema of `shape` optional, as `optional` makes one. */
function optionalEach<Shape extends Record<string, z.ZodType>>(shape: Shape) {
  return Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, optional(schema)])) as {
    [Key in keyof Shape]: ReturnType<typeof optional<Shape[Key]>>;
  };
}

const shortText = z.string().max(SHORT_TEXT_MAX);
const longText = z.string();
const name = z.string().trim().min(1, { error: 'must not be empty' }).max(SHORT_TEXT_MAX);
const names = z.array(name).max(NAMES_MAX);
/** A post title has no contract limit: it is cut to fit the site's attribute, not refused. */
const title = z.string().trim().min(1, { error: 'must not be empty' });
const sourceId = z.string().trim().min(1, { error: 'must not be empty' }).max(ID_MAX);
const httpUrl = z
  .string()
  .max(URL_MAX)
  .refine((value) => value === '' || /^https?:\/\/\S+$/i.test(value), {
    error: 'must be an http(s) URL',
  });

/** `YYYY-MM-DD HH:MM:SS` with a real calendar date and time. */
export const PUBLISH_DATE_PATTERN = /^(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})$/;
const publishDate = z.string().refine(isValidPublishDate, {
  error: 'must be a date in the format YYYY-MM-DD HH:MM:SS',
});

function isValidPublishDate(value: string): boolean {
  const match = PUBLISH_DATE_PATTERN.exec(value);
  if (!match) return false;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number);
  const probe = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  return (
    probe.getUTCFullYear() === year &&
    probe.getUTCMonth() === month - 1 &&
    probe.getUTCDate() === day &&
    hour < 24 &&
    minute < 60 &&
    second < 60
  );
}

/** An seo part never costs the post: a url part that is not an absolute http(s) URL is left out when stored. */
const SEO_VALUES = {
  text: longText,
  url: longText,
  names: z.array(shortText).max(NAMES_MAX),
} satisfies Record<SeoPartKind, z.ZodType>;

/** Each part's schema, by the kind the table gives it. */
const seoValueSchemas = Object.fromEntries(
  SEO_PART_NAMES.map((part) => [part, SEO_VALUES[SEO_PARTS[part].kind]])
) as { [Part in SeoPartName]: (typeof SEO_VALUES)[(typeof SEO_PARTS)[Part]['kind']] };

export const seoSchema = z.object(optionalEach(seoValueSchemas));

const postFields = {
  title,
  content: longText,
  excerpt: optional(longText),
  status: z.enum(POST_STATUSES),
  date: optional(publishDate),
  categories: optional(names),
  tags: optional(names),
  author: optional(shortText),
  featured_image: optional(httpUrl),
  reading_time: optional(shortText),
  seo: optional(seoSchema),
  source_id: optional(sourceId),
};

export const postCreateSchema = z.object(postFields);

export const postUpdateSchema = z.object({
  ...postFields,
  title: optional(postFields.title),
  content: optional(postFields.content),
  status: optional(postFields.status),
});

export const handshakeSchema = z.object({}).loose();

export const authorCreateSchema = z
  .object({
    username: optional(z.string().trim().max(SHORT_TEXT_MAX)),
    email: optional(z.email({ error: 'must be a valid email address' }).max(SHORT_TEXT_MAX)),
    display_name: optional(z.string().trim().max(SHORT_TEXT_MAX)),
    first_name: optional(shortText),
    last_name: optional(shortText),
    description: optional(longText),
    role: optional(shortText),
    url: optional(httpUrl),
  })
  .refine((author) => Boolean(author.display_name || author.username), {
    error: 'or username is required: an author needs at least one of them',
    path: ['display_name'],
  });

export const blogCategoryCreateSchema = z.object({
  name,
  description: optional(longText),
  slug: optional(shortText),
  parent: optional(shortText),
});

export const productImageSchema = z.object({
  url: httpUrl,
  alt: optional(shortText),
});

export const productUpdateSchema = z.object({
  name: optional(name),
  type: optional(shortText),
  description: optional(longText),
  short_description: optional(longText),
  categories: optional(names),
  tags: optional(names),
  images: optional(z.array(productImageSchema).max(NAMES_MAX)),
  source_id: optional(sourceId),
});

/** Fields a product body may carry that the contract forbids writing (copy only). */
export const PRODUCT_COMMERCE_FIELDS = [
  'price',
  'regular_price',
  'sale_price',
  'sku',
  'stock',
  'stock_quantity',
  'stock_status',
];

export const productCategoryCreateSchema = z.object({
  name,
  description: optional(longText),
  image: optional(httpUrl),
  source_id: optional(sourceId),
});

export type PostCreate = z.infer<typeof postCreateSchema>;
export type PostUpdate = z.infer<typeof postUpdateSchema>;
export type Seo = z.infer<typeof seoSchema>;
export type AuthorCreate = z.infer<typeof authorCreateSchema>;
export type BlogCategoryCreate = z.infer<typeof blogCategoryCreateSchema>;
export type ProductUpdate = z.infer<typeof productUpdateSchema>;
export type ProductCategoryCreate = z.infer<typeof productCategoryCreateSchema>;
