import type { Core } from '@strapi/strapi';
import type { Context, Next } from 'koa';
import { errorBody } from '../contract/errors';
import { answerError } from '../utils/error-answer';
import { requireVerified } from '../utils/verified-requests';

/** A mapped content type's own rules (lengths, required fields) are the sender's to satisfy: 400, not 500. */
const isStrapiValidationError = (error: unknown): error is Error =>
  error instanceof Error && error.name === 'ValidationError';

/**
 * First middleware of every contract route: Strapi's error middleware would wrap whatever a
 * controller throws in its own envelope, so errors are answered here in the contract's shape.
 */
export default (_config: unknown, { strapi }: { strapi: Core.Strapi }) =>
  async function contractErrors(ctx: Context, next: Next) {
    try {
      await next();
    } catch (error) {
      if (isStrapiValidationError(error)) {
        ctx.status = 400;
        ctx.body = errorBody(`The site's content type refused a value: ${error.message}`);
        return;
      }
      answerError(strapi, ctx, error, () => requireVerified(ctx).requestId);
    }
  };
