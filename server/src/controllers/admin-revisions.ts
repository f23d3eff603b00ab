import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import {
  revisionIdSchema,
  revisionsQuerySchema,
  type CancelledSchedule,
  type RevisionsQuery,
} from '#contract/admin/revisions';
import { describeZodError, safeParseInPlainWords } from '../contract/errors';
import { getService } from '../plugin';
import type { ContentAccess } from '../services/editors/content-access';

type AdminUser = {
  firstname?: string | null;
  lastname?: string | null;
  username?: string | null;
  email: string;
};

/** An admin as the activity log names them: their name, else their username, else their email. */
const nameOf = ({ firstname, lastname, username, email }: AdminUser) =>
  [firstname, lastname].filter(Boolean).join(' ') || username || email;

/** What a handler needs the admin to be allowed to do with the entry, and the refusal otherwise. */
type Requirement = { allows: (access: ContentAccess) => boolean; refusal: string };

/**
 * The refusal for an entry the admin may not read: the same whichever entry, type or revision it
 * is, so that nothing of the entry (its type, ids, fields) reaches a role that may not read it.
 */
const NOT_READABLE =
  'Your role may not read this entry in the Content Manager, so its revisions and details are not shown. Ask an administrator for the read permission on it.';

/** The answer, alike, for a revision that does not exist and for one the admin may not read (its entry, or any field it holds). */
const NO_SUCH_REVISION =
  'No revision with this id that your role may read: revisions past revisions.keepPerEntry are dropped, a deleted entry’s is spent once restored, and those of entries your role may not read in the Content Manager are not shown. Reload the list of revisions.';

const READ: Requirement = {
  allows: (access) => access.mayRead(),
  refusal: NOT_READABLE,
};
// Says nothing of the entry: the admin may not even be allowed to read it.
const PUBLISH: Requirement = {
  allows: (access) => access.mayPublish(),
  refusal:
    'Cancelling a scheduled publish takes the Content Manager’s permission to publish the entry in its locale, which your role does not give. Ask an admin who may publish it.',
};

/** Whether the admin may read the entry and some of `values` in it: a revision they are shown. */
const showsAnything = async (access: ContentAccess, values: Record<string, unknown>) =>
  access.mayRead() && Object.keys(await access.readable(values)).length > 0;

/**
 * Revisions and the side panel are an entry's content: besides the route's guard, each
 * answer is judged by the Content Manager's own permissions on that very entry (conditions,
 * locales, fields), through the content-access service.
 */
// Over 50 lines: a controller factory; its four handlers, each short, share one access check.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const revisions = () => getService(strapi, 'revisions');
  const accessTo = (ctx: Context, uid: string, documentId: string, locale?: string) =>
    getService(strapi, 'content-access').of(ctx.state.userAbility, uid, documentId, locale);
  /** The locale the panel shows, and is judged in: without one asked for, the one the plugin writes the entry in. */
  const panelLocale = ({ uid, documentId, locale }: RevisionsQuery) =>
    getService(strapi, 'managed-entries').localeOf(uid, documentId, locale);

  /**
   * The entry a query names and the admin's access to it in the locale `localeOf` says is shown,
   * when `required` allows it; otherwise answered here.
   */
  async function permittedEntry(
    ctx: Context,
    required: Requirement,
    localeOf = async (query: RevisionsQuery): Promise<string | undefined> => query.locale
  ) {
    const parsed = safeParseInPlainWords(revisionsQuerySchema, ctx.query);
    if (!parsed.success) return void ctx.badRequest(describeZodError(parsed.error));
    const { uid, documentId } = parsed.data;
    const locale = await localeOf(parsed.data);
    const access = await accessTo(ctx, uid, documentId, locale);
    if (!access) return void ctx.notFound(`${uid} is not a content type of this site.`);
    if (!required.allows(access)) return void ctx.forbidden(required.refusal);
    return { uid, documentId, locale, access };
  }

  return {
    async find(ctx: Context) {
      const entry = await permittedEntry(ctx, READ);
      if (!entry) return;
      const { uid, documentId, locale, access } = entry;
      ctx.body = { data: await revisions().list(uid, documentId, locale, access.readable) };
    },

    /** The Content Manager's side panel for one entry. */
    async entry(ctx: Context) {
      const entry = await permittedEntry(ctx, READ, panelLocale);
      if (!entry) return;
      const { uid, documentId, locale, access } = entry;
      const panel = getService(strapi, 'managed-entries').panel(uid, documentId, locale, access);
      ctx.body = { data: await panel };
    },

    /** The panel's Cancel button: allowed to whoever may publish the entry, in the locale the panel shows. */
    async cancelSchedule(ctx: Context) {
      const entry = await permittedEntry(ctx, PUBLISH, panelLocale);
      if (!entry) return;
      const { uid, documentId, locale } = entry;
      const cancelled = await getService(strapi, 'schedules').cancelByAdmin(
        uid,
        documentId,
        locale,
        nameOf(ctx.state.user as AdminUser)
      );
      if (!cancelled) {
        return ctx.notFound(
          'No scheduled publish waits for this entry: it was published, cancelled or moved meanwhile. Reload the page to see its state.'
        );
      }
      const answer: CancelledSchedule = { cancelled: true };
      ctx.body = { data: answer };
    },

    /**
     * Restoring writes content: the admin must be able to read the entry, and every attribute it
     * writes must be one the admin may edit (or create, for a deleted entry).
     */
    async restore(ctx: Context) {
      const id = revisionIdSchema.safeParse(ctx.params.id);
      if (!id.success) return ctx.badRequest('The revision id must be a positive whole number.');
      const target = await revisions().targetOf(id.data);
      const access = target && (await accessTo(ctx, target.uid, target.documentId, target.locale));
      // Revision ids are sequential: one the admin may not read (its entry, or every field it
      // holds, as the list leaves it out) answers as a missing one, or a role could probe which
      // ids exist. (The Content Manager answers 403 for an entry a role may not read, but a
      // documentId cannot be guessed.)
      if (!target || !access || !(await showsAnything(access, target.values)))
        return ctx.notFound(NO_SUCH_REVISION);
      const refused = access.unwritable(Object.keys(target.values));
      if (refused.length > 0) {
        return ctx.forbidden(
          `Restoring this revision writes fields of an entry of ${target.uid} that your role may not edit in the Content Manager: ${refused.join(', ')}. Ask for the update permission on them, or restore it as an admin who has it.`
        );
      }
      ctx.body = { data: await revisions().restore(id.data, ctx.state.user) };
    },
  };
};
