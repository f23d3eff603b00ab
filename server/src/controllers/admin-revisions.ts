import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { revisionIdSchema, revisionsQuerySchema } from '../contract/admin-schemas';
import { describeZodError } from '../contract/errors';
import { getService } from '../plugin';

/**
 * Revisions and the side panel are an entry's content: besides the route's logs.read, each
 * answer is judged by the Content Manager's own permissions on that very entry (conditions,
 * locales, fields), through the content-access service.
 */
// Over 50 lines: a controller factory; its three handlers, each short, share one access check.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const revisions = () => getService(strapi, 'revisions');
  const accessTo = (ctx: Context, uid: string, documentId: string, locale?: string) =>
    getService(strapi, 'content-access').of(ctx.state.userAbility, uid, documentId, locale);

  /** The entry a query names and the admin's access to it, when it may read it; otherwise answered here. */
  async function readableEntry(ctx: Context) {
    const parsed = revisionsQuerySchema.safeParse(ctx.query);
    if (!parsed.success) return void ctx.badRequest(describeZodError(parsed.error));
    const { uid, documentId, locale } = parsed.data;
    const access = await accessTo(ctx, uid, documentId, locale);
    if (!access) return void ctx.notFound(`${uid} is not a content type of this site.`);
    if (!access.mayRead()) {
      return void ctx.forbidden(
        `Reading this entry of ${uid} in the Content Manager is not allowed for your role.`
      );
    }
    return { ...parsed.data, access };
  }

  return {
    async find(ctx: Context) {
      const entry = await readableEntry(ctx);
      if (!entry) return;
      const { uid, documentId, locale, access } = entry;
      ctx.body = { data: await revisions().list(uid, documentId, locale, access.mayReadAttribute) };
    },

    /** The Content Manager's side panel for one entry. */
    async entry(ctx: Context) {
      const entry = await readableEntry(ctx);
      if (!entry) return;
      const { uid, documentId, locale, access } = entry;
      const panel = getService(strapi, 'managed-entries').panel(
        uid,
        documentId,
        locale,
        access.mayReadAttribute
      );
      ctx.body = { data: await panel };
    },

    /** Restoring writes content: every attribute it writes must be one the admin may edit (or create, for a deleted entry). */
    async restore(ctx: Context) {
      const id = revisionIdSchema.safeParse(ctx.params.id);
      if (!id.success) return ctx.badRequest('The revision id must be a positive whole number.');
      const target = await revisions().targetOf(id.data);
      if (!target) {
        return ctx.notFound(
          `Revision ${id.data} does not exist (revisions past revisions.keepPerEntry are dropped, and a deleted entry's is spent once restored).`
        );
      }
      const access = await accessTo(ctx, target.uid, target.documentId, target.locale);
      if (!access?.mayWrite(target.attributes)) {
        return ctx.forbidden(
          `Restoring this revision writes ${target.attributes.join(', ')} of an entry of ${target.uid}: your role may not edit all of them in the Content Manager.`
        );
      }
      ctx.body = { data: await revisions().restore(id.data) };
    },
  };
};
