import type { Context } from 'koa';
import type { z } from 'zod';
import { parseBody } from '../contract/errors';
import type { ContractState } from '../middlewares/contract-gate';

/** The body the gate parsed from the verified bytes, validated against a contract schema. */
export const contractBody = <T extends z.ZodType>(ctx: Context, schema: T): z.infer<T> =>
  parseBody(schema, emptyAsObject((ctx.state.publishBridge as ContractState).body));

/** An empty body is an empty object (a handshake may send none); `null` stays a mistake. */
const emptyAsObject = (body: unknown) => (body === undefined ? {} : body);

/**
 * Answers the contract's entity response; what the site adjusted while storing (a value cut to
 * fit, HTML kept as a code block, an image that failed to import) goes to the activity log.
 */
export function replyWithEntity(
  ctx: Context,
  { notes, created: _created, ...entity }: { id: string; url?: string; notes?: string[]; created?: boolean }
) {
  if (notes && notes.length > 0) (ctx.state.publishBridge as ContractState).notes = notes;
  ctx.body = entity;
}
