import slugify from 'slugify';

const SLUG_MAX = 200;

/** A URL-safe slug that Strapi's `uid` attribute accepts (`^[A-Za-z0-9-_.~]*$`). */
export function toSlug(text: string, fallback: string): string {
  const slug = slugify(text, { lower: true, strict: true, trim: true }).slice(0, SLUG_MAX).replace(/-+$/, '');
  return slug || fallback;
}
