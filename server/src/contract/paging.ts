import { z } from 'zod';
import { ContractError, describeZodError, safeParseInPlainWords } from './errors';

/**
 * List paging (contract 4, rule 5): the publisher asks for `per_page` items of `page`
 * (1-based) until a page comes back shorter than `per_page`.
 */

export const PER_PAGE_DEFAULT = 100;
export const PER_PAGE_MAX = 250;
/** Bounds the offset so it stays an exact integer on every database. */
export const PAGE_MAX = 1_000_000;

const positiveInteger = (max: number, fallback: number) =>
  z.preprocess(
    (value) => (value === undefined ? String(fallback) : value),
    z
      .string()
      .regex(/^\d+$/, { error: 'must be a whole number' })
      .transform(Number)
      .pipe(
        z
          .number()
          .min(1, { error: 'must be at least 1' })
          .max(max, { error: `must be at most ${max}` })
      )
  );

export const pagingQuerySchema = z.object({
  per_page: positiveInteger(PER_PAGE_MAX, PER_PAGE_DEFAULT),
  page: positiveInteger(PAGE_MAX, 1),
});

export type Paging = { perPage: number; page: number; offset: number; limit: number };

export function parsePaging(query: Record<string, unknown>): Paging {
  const single = (value: unknown) => (Array.isArray(value) ? value[value.length - 1] : value);
  const result = safeParseInPlainWords(pagingQuerySchema, {
    per_page: single(query.per_page),
    page: single(query.page),
  });
  if (!result.success) throw new ContractError(400, describeZodError(result.error));
  const { per_page: perPage, page } = result.data;
  return { perPage, page, offset: (page - 1) * perPage, limit: perPage };
}
