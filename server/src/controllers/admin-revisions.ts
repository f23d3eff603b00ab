import type { Core } from '@strapi/strapi';
import type { Context } from 'koa';
import { revisionIdSchema, revisionsQuerySchema } from '../contract/admin-schemas';
import { describeZodError } from '../contract/errors';
import { getService } from '../plugin';

/** The Content Manager's own permissions on the revision's type: a revision is that type's content. */
const CONTENT_MANAGER = {
  read: 'plugin::content-manager.explorer.read',
  update: 'plugin::content-manager.explorer.update',
  create: 'plugin::content-manager.explorer.create',
};

type Ability = { can(action: string, subject?: string): boolean } | undefined;
const may = (ctx: Context, action: keyof typeof CONTENT_MANAGER, uid: string) =>
  Boolean((ctx.state.userAbility as Ability)?.can(CONTENT_MANAGER[action], uid));

/** The entry a query names, when the query is valid and the admin may read its type; otherwise answered here. */
function readableEntry(ctx: Context) {
  const parsed = revisionsQuerySchema.safeParse(ctx.query);
  if (!parsed.success) return void ctx.badRequest(describeZodError(parsed.error));
  if (!may(ctx, 'read', parsed.data.uid)) {
    return void ctx.forbidden(
      `Reading ${parsed.data.uid} in the Content Manager is not allowed for your role.`
    );
  }
  return parsed.data;
}

export default ({ strapi }: { strapi: Core.Strapi }) => {
  const revisions = () => getService(strapi, 'revisions');
  return {
    async find(ctx: Context) {
      const entry = readableEntry(ctx);
      if (entry) ctx.body = { data: await revisions().list(entry.uid, entry.documentId, entry.locale) };
    },

    /** The Content Manager's side panel for one entry. */
    async entry(ctx: Context) {
      const entry = readableEntry(ctx);
      if (entry) {
        const panel = getService(strapi, 'managed-entries').panel(entry.uid, entry.documentId, entry.locale);
        ctx.body = { data: await panel };
      }
    },

    /** Restoring writes content: it takes the Content Manager's update permission (create, for a deleted entry). */
    async restore(ctx: Context) {
      const id = revisionIdSchema.safeParse(ctx.params.id);
      if (!id.success) return ctx.badRequest('The revision id must be a positive whole number.');
      const target = await revisions().targetOf(id.data);
      if (!target)
        return ctx.notFound(
          `Revision ${id.data} does not exist (revisions past revisions.keepPerEntry are dropped).`
        );
      const needed = target.exists ? 'update' : 'create';
      if (!may(ctx, needed, target.uid)) {
        return ctx.forbidden(
          `Restoring this revision needs the Content Manager's ${needed} permission on ${target.uid}.`
        );
      }
      ctx.body = { data: await revisions().restore(id.data) };
    },
  };
};
