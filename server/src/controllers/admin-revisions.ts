import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { revisionIdSchema, revisionsQuerySchema, type RevisionsQuery } from '../contract/admin-schemas';
import { describeZodError } from '../contract/errors';
import { getService } from '../plugin';

/**
 * The refusal for an entry the admin may not read: the same whichever entry, type or revision it
 * is, so that nothing of the entry (its type, ids, fields) reaches a role that may not read it.
 */
const NOT_READABLE =
  'Your role may not read this entry in the Content Manager, so its revisions and details are not shown. Ask an administrator for the read permission on it.';

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

  /**
   * The entry a query names and the admin's access to it in the locale `localeOf` says is shown,
   * when it may read it; otherwise answered here.
   */
  async function readableEntry(
    ctx: Context,
    localeOf = async (query: RevisionsQuery): Promise<string | undefined> => query.locale
  ) {
    const parsed = revisionsQuerySchema.safeParse(ctx.query);
    if (!parsed.success) return void ctx.badRequest(describeZodError(parsed.error));
    const { uid, documentId } = parsed.data;
    const locale = await localeOf(parsed.data);
    const access = await accessTo(ctx, uid, documentId, locale);
    if (!access) return void ctx.notFound(`${uid} is not a content type of this site.`);
    if (!access.mayRead()) return void ctx.forbidden(NOT_READABLE);
    return { uid, documentId, locale, access };
  }

  return {
    async find(ctx: Context) {
      const entry = await readableEntry(ctx);
      if (!entry) return;
      const { uid, documentId, locale, access } = entry;
      ctx.body = { data: await revisions().list(uid, documentId, locale, access.readable) };
    },

    /** The Content Manager's side panel for one entry. */
    async entry(ctx: Context) {
      // Judged in the locale it shows: without one asked for, the one the plugin writes the entry in.
      const entry = await readableEntry(ctx, ({ uid, documentId, locale }) =>
        getService(strapi, 'managed-entries').localeOf(uid, documentId, locale)
      );
      if (!entry) return;
      const { uid, documentId, locale, access } = entry;
      const panel = getService(strapi, 'managed-entries').panel(uid, documentId, locale, access.readable);
      ctx.body = { data: await panel };
    },

    /**
     * Restoring writes content: the admin must be able to read the entry, and every attribute it
     * writes must be one the admin may edit (or create, for a deleted entry).
     */
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
      if (!access?.mayRead()) return ctx.forbidden(NOT_READABLE);
      const refused = access.unwritable(target.attributes);
      if (refused.length > 0) {
        return ctx.forbidden(
          `Restoring this revision writes fields of an entry of ${target.uid} that your role may not edit in the Content Manager: ${refused.join(', ')}. Ask for the update permission on them, or restore it as an admin who has it.`
        );
      }
      ctx.body = { data: await revisions().restore(id.data, ctx.state.user) };
    },
  };
};
