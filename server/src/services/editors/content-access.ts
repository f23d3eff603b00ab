import type { Core } from '@strapi/strapi';
import { contentTypeOf } from '../../database/schemas';
import { documentsOf } from '../../database/documents';

type Action = 'read' | 'update' | 'create' | 'publish';
type Values = Record<string, unknown>;
/** The Content Manager's permission checker (its `permission-checker` service), as used here. */
type PermissionChecker = {
  can: Record<Action, (entity?: Values, field?: string) => boolean>;
  requiresEntity: Record<Action, () => boolean>;
  sanitizeOutput(data: Values): Promise<Values>;
};

/** What an admin may do with one entry's content, judged as the Content Manager judges it. */
export type ContentAccess = {
  /** Whether the admin may read the entry (a deleted one: only under no condition but its locale). */
  mayRead(): boolean;
  /** Whether the admin may publish the entry (and so decide when it is published); a missing one: as `mayRead`. */
  mayPublish(): boolean;
  /** `values` (attribute → value) with only what the admin may read of them, down to a component's parts. */
  readable(values: Values): Promise<Values>;
  /**
   * The fields among `attributes`, as the Content Manager's permissions name them
   * (`seo.metaTitle` for a part of a component), that the admin may not write: update in the
   * entry, or create anew when it is gone. Writing an attribute writes every part of it.
   */
  unwritable(attributes: string[]): string[];
  /** The fields among `attributes`, named as `unwritable` names them, that the admin may not read. */
  unreadable(attributes: string[]): string[];
};

/**
 * Revisions and the side panel hold an entry's content, so the admin API shows and writes them
 * only as the Content Manager would: through its own permission checker, against the entry
 * itself, so that conditions ("only their own entries"), locales and field-level permissions
 * (which name each part of a component) apply, not only the permission on the type.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => ({
  /** The admin's access to the entry in `locale`, or null when `uid` is no content type of the site. */
  async of(
    userAbility: unknown,
    uid: string,
    documentId: string,
    locale?: string
  ): Promise<ContentAccess | null> {
    const contentType = contentTypeOf(strapi, uid);
    if (!contentType) return null;
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
    // Every field the Content Manager's permissions can name on the type, as its role editor lists them.
    const permissionFields: string[] = strapi
      .service('admin::content-type')
      .getNestedFields(contentType, { components: strapi.components });
    const fieldsOf = (attribute: string) =>
      permissionFields.filter((field) => field === attribute || field.startsWith(`${attribute}.`));
    // A missing entry (deleted) is judged as the Content Manager judges one to be created: by its
    // locale, so that a condition on its creator refuses it; without a locale, only permissions
    // without conditions allow it.
    const subject: Values | undefined = entry ?? (locale ? { documentId, locale } : undefined);
    const judge = (action: Action, field?: string) =>
      subject
        ? checker.can[action](subject, field)
        : unconditional(action) && checker.can[action](undefined, field);
    const mayWrite = (field: string) => judge(entry ? 'update' : 'create', field);
    return {
      mayRead: () => judge('read'),
      mayPublish: () => judge('publish'),
      // The checker judges the data it sanitizes: the entry (its creator, its locale) with the values shown in it.
      async readable(values) {
        const shown = await checker.sanitizeOutput({ ...subject, ...values });
        return Object.fromEntries(
          Object.keys(values).flatMap((key) => (key in shown ? [[key, shown[key]]] : []))
        );
      },
      unwritable: (attributes) => attributes.flatMap(fieldsOf).filter((field) => !mayWrite(field)),
      unreadable: (attributes) => attributes.flatMap(fieldsOf).filter((field) => !judge('read', field)),
    };
  },
});
