import type { Core } from '@strapi/strapi';
import { contentTypeOf } from '../database/schemas';
import { documentsOf, type DocumentEntry } from '../database/documents';

type Action = 'read' | 'update' | 'create';
/** The Content Manager's permission checker (its `permission-checker` service), as used here. */
type PermissionChecker = {
  can: Record<Action, (entity?: DocumentEntry, field?: string) => boolean>;
  requiresEntity: Record<Action, () => boolean>;
};

/** What an admin may do with one entry's content, judged as the Content Manager judges it. */
export type ContentAccess = {
  /** Whether the admin may read the entry (a deleted one: only without conditions on the type). */
  mayRead(): boolean;
  /** Whether the admin may read `attribute` of the entry. */
  mayReadAttribute(attribute: string): boolean;
  /** Whether the admin may write every one of `attributes`: update the entry, or create it anew when it is gone. */
  mayWrite(attributes: string[]): boolean;
};

/**
 * Revisions and the side panel hold an entry's content, so the admin API shows and writes them
 * only as the Content Manager would: through its own permission checker, against the entry
 * itself, so that conditions ("only their own entries"), locales and field-level permissions
 * apply, not only the permission on the type.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** The admin's access to the entry, or null when `uid` is no content type of the site. */
  async of(
    userAbility: unknown,
    uid: string,
    documentId: string,
    locale?: string
  ): Promise<ContentAccess | null> {
    if (!contentTypeOf(strapi, uid)) return null;
    const checker = strapi
      .plugin('content-manager')
      .service('permission-checker')
      .create({ userAbility, model: uid }) as PermissionChecker;
    // The fields conditions read: who created it (admin::is-creator) and its locale.
    const entry =
      (await documentsOf(strapi, uid).findOne({
        documentId,
        ...(locale ? { locale } : {}),
        populate: { createdBy: { fields: ['id'] } },
      })) ?? undefined;
    const unconditional = (action: Action) => !checker.requiresEntity[action]();
    return {
      mayRead: () => (entry ? checker.can.read(entry) : unconditional('read') && checker.can.read()),
      mayReadAttribute: (attribute) => checker.can.read(entry, attribute),
      mayWrite: (attributes) =>
        entry
          ? attributes.every((attribute) => checker.can.update(entry, attribute))
          : unconditional('create') &&
            attributes.every((attribute) => checker.can.create(undefined, attribute)),
    };
  },
});
