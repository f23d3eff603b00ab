import type { Core, UID } from '@strapi/strapi';
import { sanitize } from '@strapi/utils';

/**
 * Writes a document's published version in place, for the one case Strapi 5's Document Service
 * has no call for: publishing new values while an editor's unpublished draft stays as it is
 * (its publish copies the whole draft). Built from the parts Strapi's own i18n plugin uses to
 * write another locale's published row (`documents.utils.transformData`, the repository's
 * `updateComponents` and `omitComponentData`), with the entity validator its update runs, and
 * the Query Engine writing the row. No other row is created, moved or deleted, so lifecycle
 * subscribers see the published row updated and its components replaced, nothing else.
 */

type Model = { uid: string; modelName: string; attributes: Record<string, Attribute> };
type Attribute = { type: string; component?: string; components?: string[]; unstable_virtual?: boolean };
type Row = { id: number; locale?: string | null };
type Repository = {
  updateComponents(entry: Row, data: Record<string, unknown>): Promise<Record<string, unknown>>;
  omitComponentData(data: Record<string, unknown>): Record<string, unknown>;
};
type DocumentsUtils = {
  transformData(
    data: Record<string, unknown>,
    options: { uid: string; status: 'published'; locale?: string | null; allowMissingId: boolean }
  ): Promise<Record<string, unknown>>;
};
type Validator = {
  validateEntityUpdate(
    model: Model,
    data: Record<string, unknown>,
    options: { isDraft: boolean; locale?: string | null; strictRelations: boolean },
    entity: Row
  ): Promise<Record<string, unknown>>;
};

const modelOf = (strapi: Core.Strapi, uid: string) => strapi.getModel(uid as UID.Schema) as unknown as Model;

/**
 * Writes `data` (as the Document Service takes it: relations by documentId) into the published
 * row `version`, and marks it published now, as Strapi's publish does. Relations go to the
 * published versions of their targets, as Strapi's publish links them.
 */
export async function writePublishedVersion(
  strapi: Core.Strapi,
  uid: string,
  version: Row,
  data: Record<string, unknown>
): Promise<void> {
  const model = modelOf(strapi, uid);
  const documents = strapi.documents as unknown as { utils: DocumentsUtils };
  const repository = strapi.documents(uid as UID.ContentType) as unknown as Repository;
  const linked = await documents.utils.transformData(structuredClone(data), {
    uid,
    status: 'published',
    locale: version.locale,
    allowMissingId: true,
  });
  const valid = await (strapi.entityValidator as unknown as Validator).validateEntityUpdate(
    model,
    linked,
    // As Strapi's own update: strict relations refuse a required relation left without a target.
    {
      isDraft: false,
      locale: version.locale,
      strictRelations: strapi.config.get('api.documents.strictRelations') === true,
    },
    version
  );
  const components = await repository.updateComponents(version, valid);
  const updated = await strapi.db.query(uid as UID.Schema).update({
    where: { id: version.id },
    data: { ...repository.omitComponentData(valid), ...components, publishedAt: new Date() },
  });
  // Gone since it was read (an editor's publish replaced it): the caller's transaction rolls back.
  if (!updated)
    throw new Error(`the published version of ${uid} (row ${version.id}) changed while it was written`);
}

type I18n = {
  service(name: 'content-types'): {
    isLocalizedContentType(model: Model): boolean;
    getNonLocalizedAttributes(model: Model): string[];
    getNestedPopulateOfNonLocalizedAttributes(uid: string): string[];
  };
  service(name: 'localizations'): { syncNonLocalizedAttributes(entry: unknown, model: Model): Promise<void> };
};

/** The attributes every locale of the type shares (i18n's non-localized ones); none without i18n. */
export function sharedAttributesOf(strapi: Core.Strapi, uid: string): string[] {
  const i18n = strapi.plugin('i18n') as unknown as I18n | undefined;
  const model = modelOf(strapi, uid);
  if (!i18n?.service('content-types').isLocalizedContentType(model)) return [];
  return i18n.service('content-types').getNonLocalizedAttributes(model);
}

/** Whether the type is localized and holds values every locale shares (non-localized attributes). */
export const sharesValuesAcrossLocales = (strapi: Core.Strapi, uid: string): boolean =>
  sharedAttributesOf(strapi, uid).length > 0;

/**
 * Gives the other locales' versions in the same status the row's non-localized values, as
 * Strapi's i18n plugin does after each save and publish (from a Document Service middleware this
 * write does not pass), when `written` (the data just written) holds any: a write that left them
 * alone leaves the other locales alone, and they do not show "Modified" for nothing.
 */
export async function shareNonLocalizedValues(
  strapi: Core.Strapi,
  uid: string,
  id: number,
  written: Record<string, unknown>
): Promise<void> {
  if (!sharedAttributesOf(strapi, uid).some((attribute) => attribute in written)) return;
  // A type with shared attributes is localized, so i18n is there.
  const i18n = strapi.plugin('i18n') as unknown as I18n;
  const model = modelOf(strapi, uid);
  const populate = i18n.service('content-types').getNestedPopulateOfNonLocalizedAttributes(uid);
  const entry = await strapi.db.query(uid as UID.Schema).findOne({ where: { id }, populate });
  await i18n.service('localizations').syncNonLocalizedAttributes(entry, model);
}

/**
 * Tells the site's webhooks `entry.publish` of the published row `id` once the caller's
 * transaction commits, with the payload Strapi's own publish sends (document-service/events.ts):
 * the row read with every relation, file, component and zone, sanitized for output.
 */
export async function announcePublish(strapi: Core.Strapi, uid: string, id: number): Promise<void> {
  const model = modelOf(strapi, uid);
  const announce = async () => {
    const entry = await strapi.db
      .query(uid as UID.Schema)
      .findOne({ where: { id }, populate: deepPopulate(strapi, uid) });
    const sanitized = await sanitize.sanitizers.defaultSanitizeOutput(
      { schema: model as never, getModel: (name) => strapi.getModel(name as UID.Schema) as never },
      entry
    );
    await strapi.eventHub.emit('entry.publish', { model: model.modelName, uid, entry: sanitized });
  };
  await strapi.db.transaction(async ({ onCommit }) => {
    // Strapi runs commit callbacks without awaiting them: a failure here is logged, never thrown.
    onCommit(() => {
      announce().catch((error: unknown) =>
        strapi.log.warn(
          `[publish-bridge] the entry.publish event of ${uid} ${id} was not sent: ${String(error)}`
        )
      );
    });
  });
}

/** Strapi's populate for event payloads (document-service/utils/populate.ts), which it does not export. */
function deepPopulate(strapi: Core.Strapi, uid: string): Record<string, unknown> {
  const populate: Record<string, unknown> = {};
  for (const [name, attribute] of Object.entries(modelOf(strapi, uid).attributes)) {
    if (attribute.type === 'relation' && !attribute.unstable_virtual) populate[name] = {};
    if (attribute.type === 'media') populate[name] = { select: ['*'] };
    if (attribute.type === 'component')
      populate[name] = { populate: deepPopulate(strapi, attribute.component!) };
    if (attribute.type === 'dynamiczone') {
      const fragments = (attribute.components ?? []).map((component) => [
        component,
        { populate: deepPopulate(strapi, component) },
      ]);
      populate[name] = { on: Object.fromEntries(fragments) };
    }
  }
  return populate;
}
