import type { Context } from 'koa';
import type { z } from 'zod';
import { parseBody } from '../contract/errors';
import type { ContractState } from '../middlewares/contract-gate';

/** The body the gate parsed from the verified bytes, validated against a contract schema. */
export const contractBody = <T extends z.ZodType>(ctx: Context, schema: T): z.infer<T> =>
  parseBody(schema, (ctx.state.publishBridge as ContractState).body ?? {});
