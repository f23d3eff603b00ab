import type { Core } from '@strapi/strapi';
import type { ActivityItem } from '#contract/admin/common';
import type { ManagedEntryPanel } from '#contract/admin/revisions';
import { documentsOf } from '../../database/documents';
import { RESOURCE_KINDS } from '../../mapping/catalogue';
import type { Resource } from '../../resources';
import type { ContentAccess } from './content-access';
import type { LocaleScope } from '../site/locales';
import { inConnection } from '../../utils/connection-scope';
import type { Connection } from '../../config/connections';
import { getService } from '../../plugin';
import { SOURCE_KEY_PREFIX } from '../publishing/identities';
import { attributesOfField } from './revisions';

type Values = Record<string, unknown>;

/**
 * The fields of `resource` a delivery's note (or refusal) names: each begins with the field it is
 * about (`excerpt: …`, `seo.description was …`) and may name others or their attributes (`to fit
 * metaTitle`, `holds the post's excerpt`). Words are read whole, so `content-safety` names no field.
 */
function fieldsNamedIn(resource: Resource, text: string): string[] {
  const words = new Set(text.split(/[^\w.-]+/).flatMap((word) => [word, word.split('.')[0]]));
  return Object.keys(resource.fields).filter(
    (field) => words.has(field) || attributesOfField(resource.fields[field]).some((name) => words.has(name))
  );
}

/**
 * What the Content Manager's side panel shows of an entry the plugin manages: that it came from
 * the publisher, its source_id, the last delivery, when its publish is scheduled, the fields
 * editors changed since, and the
 * revisions kept of it. Entries the plugin did not create (an editor's, or one it only found by
 * name) are not managed.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  /**
   * The resource stored in `uid` that created the document, if one did, and the connection it
   * came through: the panel is read in that connection's scope (its locale, its registry). A
   * document several connections write (linkLocalizations: one localization each) is `locale`'s
   * writer's; without a locale, or when none writes it, the first connection's.
   */
  async function managing(uid: string, documentId: string, locale?: string): Promise<Managing | undefined> {
    let first: Managing | undefined;
    const connections = getService(strapi, 'mapping').fittingConnections();
    // With one connection there is no other writer to tell apart: no locale to read.
    const byLocale = locale !== undefined && connections.length > 1;
    for (const connection of connections) {
      const found = await inConnection(connection, async () => {
        const resource = await managingResourceHere(uid, documentId);
        if (!resource) return undefined;
        const writes = !byLocale || (await writtenLocaleOf(resource)) === locale;
        return { managing: { resource, connection }, writes };
      });
      if (found?.writes) return found.managing;
      first ??= found?.managing;
    }
    return first;
  }

  /** The locale the connection in scope writes `resource` in; none in a type without i18n. */
  const writtenLocaleOf = async (resource: Resource) =>
    (await getService(strapi, 'locales').scopeOf(resource)).locale;

  async function managingResourceHere(uid: string, documentId: string): Promise<Resource | undefined> {
    const mapping = getService(strapi, 'mapping');
    const identities = getService(strapi, 'identities');
    for (const kind of RESOURCE_KINDS) {
      const resource = mapping.resource(kind);
      if (resource.uid === uid && (await identities.knows(null, resource.registry, documentId)))
        return resource;
    }
    return undefined;
  }

  /**
   * The source_id a site that stores it nowhere still matches republishes by: the registry's key,
   * when it is kept as sent (identities.storedKey digests the others, which cannot be shown).
   */
  async function registeredSourceId(resource: Resource, documentId: string): Promise<string | undefined> {
    const keys = await getService(strapi, 'identities').keysOf(null, resource.registry, documentId);
    const key = keys.find((stored) => stored.startsWith(SOURCE_KEY_PREFIX) && !stored.includes('#'));
    return key?.slice(SOURCE_KEY_PREFIX.length);
  }

  async function sourceIdOf(
    resource: Resource,
    documentId: string,
    at: LocaleScope,
    readable: (values: Values) => Promise<Values>
  ) {
    const attribute = resource.fields.source_id?.attribute;
    if (!attribute) return registeredSourceId(resource, documentId);
    const entry = await documentsOf(strapi, resource.uid).findOne({ documentId, ...at, fields: [attribute] });
    const shown = await readable({ [attribute]: entry?.[attribute] ?? null });
    return (shown[attribute] as string | null | undefined) ?? undefined;
  }

  /** The fields among `fields` the admin may read some attribute of: a name is content too. */
  async function readableFieldNames(
    resource: Resource,
    fields: string[],
    readable: (values: Values) => Promise<Values>
  ): Promise<string[]> {
    const attributesOf = (field: string) => attributesOfField(resource.fields[field]);
    const shown = await readable(
      Object.fromEntries(fields.flatMap(attributesOf).map((attribute) => [attribute, null]))
    );
    return fields.filter((field) => attributesOf(field).some((attribute) => attribute in shown));
  }

  /**
   * The entry's last delivery as the admin may see it: its notes and refusal are about the locale
   * the plugin writes and the fields they name, so they are shown only in that locale and only
   * when the admin may read every field they name, each whole: a note about the seo object may
   * speak of any of its parts, so reading the component's meta title alone does not show it.
   * The delivery's time, action and outcome stay: the admin may read the entry it wrote.
   */
  async function lastDelivery(
    resource: Resource,
    documentId: string,
    at: LocaleScope,
    access: ContentAccess
  ): Promise<ActivityItem | undefined> {
    const delivery = await getService(strapi, 'activity').latestFor(documentId);
    if (!delivery) return undefined;
    const { notes, reason, ...shown } = delivery;
    const written = (await getService(strapi, 'locales').scopeOf(resource)).locale;
    if (written !== at.locale) return shown;
    const readableFields = new Set(
      (await readableFieldNames(resource, Object.keys(resource.fields), access.readable)).filter(
        (field) => access.unreadable(attributesOfField(resource.fields[field])).length === 0
      )
    );
    const mayRead = (text: string) =>
      fieldsNamedIn(resource, text).every((field) => readableFields.has(field));
    const readableNotes = notes?.filter(mayRead) ?? [];
    return {
      ...shown,
      ...(readableNotes.length > 0 ? { notes: readableNotes } : {}),
      ...(reason !== undefined && mayRead(reason) ? { reason } : {}),
    };
  }

  /**
   * The entry's link as the platform is answered it (entities.withDraftPreview), for an admin who
   * may read the slug the public URL holds; a failing Preview handler leaves the public URL.
   */
  async function linkOf(
    resource: Resource,
    documentId: string,
    at: LocaleScope,
    readable: (values: Values) => Promise<Values>
  ): Promise<{ url?: string; urlKind?: 'public' | 'preview' }> {
    const { slugField } = resource;
    if (slugField && !(slugField in (await readable({ [slugField]: null })))) return {};
    const entities = getService(strapi, 'entities');
    const publicUrl = await entities.response(resource, documentId, null, at);
    const shown = await entities.withDraftPreview(resource, { ...publicUrl, notes: [] }, at);
    if (!shown.url) return {};
    return { url: shown.url, urlKind: shown.url === publicUrl.url ? 'public' : 'preview' };
  }

  /** The panel of an entry the plugin manages, read in the scope of the connection it came through. */
  async function managedPanel(
    uid: string,
    resource: Resource,
    documentId: string,
    at: LocaleScope,
    access: ContentAccess
  ): Promise<Omit<ManagedPanel, 'connection'>> {
    const { readable } = access;
    // One read of the entry's managed-entry row: the waiting publish and the fingerprints.
    const { scheduledAt, fingerprints } = await getService(strapi, 'fingerprints').entry(
      null,
      resource,
      documentId,
      at
    );
    return {
      managed: true,
      sourceId: await sourceIdOf(resource, documentId, at, readable),
      ...(scheduledAt ? { scheduledAt: scheduledAt.toISOString() } : {}),
      mayCancelSchedule: Boolean(scheduledAt) && access.mayPublish(),
      lastDelivery: await lastDelivery(resource, documentId, at, access),
      ...(await linkOf(resource, documentId, at, readable)),
      changedByEditors: await readableFieldNames(
        resource,
        await getService(strapi, 'editor-changes').changedSince(resource, documentId, at, fingerprints),
        readable
      ),
      revisions: await getService(strapi, 'revisions').list(uid, documentId, at.locale, readable),
    };
  }

  return {
    /** The connection whose publisher wrote the document stored in `uid` (in `locale`), if one did. */
    async connectionOf(uid: string, documentId: string, locale?: string): Promise<Connection | undefined> {
      return (await managing(uid, documentId, locale))?.connection;
    },

    /** The locale the panel shows of the entry: the one asked for, else the one the plugin writes it in. */
    async localeOf(uid: string, documentId: string, locale?: string): Promise<string | undefined> {
      if (locale) return locale;
      const found = await managing(uid, documentId);
      if (!found) return undefined;
      const { resource, connection } = found;
      return inConnection(connection, () => writtenLocaleOf(resource));
    },

    /**
     * The panel in `locale` (from `localeOf`, the one the admin's `access` was judged in): only
     * what the admin may read of values (the Content Manager's field permissions), and a waiting
     * publish cancellable by whoever may publish the entry.
     */
    async panel(
      uid: string,
      documentId: string,
      locale: string | undefined,
      access: ContentAccess
    ): Promise<ManagedEntryPanel> {
      const found = await managing(uid, documentId, locale);
      if (!found) return { managed: false };
      const { resource, connection } = found;
      const at: LocaleScope = locale ? { locale } : {};
      // A site with one connection has nothing to tell apart: its panel names none.
      const several = getService(strapi, 'connections').list().length > 1;
      return inConnection(connection, async () => ({
        ...(await managedPanel(uid, resource, documentId, at, access)),
        ...(several ? { connection: connection.name } : {}),
      }));
    },
  };
};

type Managing = { resource: Resource; connection: Connection };
type ManagedPanel = Extract<ManagedEntryPanel, { managed: true }>;
