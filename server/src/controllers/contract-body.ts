import type { Context } from 'koa';
import type { z } from 'zod';
import { parseBody } from '../contract/errors';
import { requireVerified } from '../utils/verified-requests';

/** The body the gate parsed from this request's verified bytes, validated against a contract schema. */
export const contractBody = <T extends z.ZodType>(ctx: Context, schema: T): z.infer<T> =>
  parseBody(schema, emptyAsObject(requireVerified(ctx).body));

/** An empty body is an empty object (a handshake may send none); `null` stays a mistake. */
const emptyAsObject = (body: unknown) => (body === undefined ? {} : body);

/**
 * Answers the contract's entity response; what the site adjusted while storing (a value cut to
 * fit, HTML kept as a code block, an image that failed to import) goes to the activity log.
 */
export function replyWithEntity(
  ctx: Context,
  { notes, ...entity }: { id: string; url?: string; notes?: string[] }
) {
  if (notes && notes.length > 0) requireVerified(ctx).notes = notes;
  ctx.body = entity;
}
