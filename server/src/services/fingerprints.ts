import type { Core } from '@strapi/strapi';
import { UIDS } from '../constants';
import { componentOf, contentTypeOf } from '../database/schemas';
import { tableOf } from '../database/tables';
import { changedFields, digestOf, type Fingerprints, type ShapesOf } from '../mapping/fingerprints';
import type { Resource } from '../resources';
import type { LocaleScope } from './locales';
import type { WriteResult } from './types';

type Knex = any;
type Trx = unknown;
type Values = Record<string, unknown>;

/** The columns that name an entry's managed-entry row: its type, its documentId, its locale ('' without i18n). */
export function managedEntryOf(strapi: Core.Strapi, uid: string, documentId: string, at: LocaleScope) {
  const { column } = tableOf(strapi, UIDS.managedEntry);
  return {
    [column('contentType')]: uid,
    [column('entryDocumentId')]: documentId,
    [column('entryLocale')]: at.locale ?? '',
  };
}

/** One column of the entry's managed-entry row; outside a transaction when `trx` is null (a read for display). */
export async function managedEntryValue(
  strapi: Core.Strapi,
  trx: Trx | null,
  uid: string,
  documentId: string,
  at: LocaleScope,
  attribute: 'fingerprints' | 'scheduledAt'
): Promise<unknown> {
  const { name, column } = tableOf(strapi, UIDS.managedEntry);
  const query = (strapi.db.connection as Knex)(name)
    .select({ value: column(attribute) })
    .where(managedEntryOf(strapi, uid, documentId, at))
    .first();
  return (await (trx ? query.transacting(trx) : query))?.value;
}

/**
 * What the plugin last wrote into each entry it manages, kept as a fingerprint per contract field
 * (see mapping/fingerprints.ts), one row per entry and locale. Written in the transaction of the
 * write it describes, and read under the lock that write holds on the entry.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = (): Knex => strapi.db.connection;
  const table = () => tableOf(strapi, UIDS.managedEntry);
  const shapes: ShapesOf = (uid) => (contentTypeOf(strapi, uid) ?? componentOf(strapi, uid))?.attributes;

  const entryOf = (resource: Resource, documentId: string, at: LocaleScope) =>
    managedEntryOf(strapi, resource.uid, documentId, at);

  return {
    /** The fingerprints kept for the entry: none for an entry written before they were kept. */
    async stored(
      trx: Trx | null,
      resource: Resource,
      documentId: string,
      at: LocaleScope
    ): Promise<Fingerprints> {
      const value = await managedEntryValue(strapi, trx, resource.uid, documentId, at, 'fingerprints');
      return (typeof value === 'string' ? JSON.parse(value) : value) ?? {};
    },

    /** The shapes of a content type's attributes, as fingerprints and revisions read them. */
    shapeOf: (uid: string) => shapes(uid) ?? {},

    /**
     * How the Document Service reads `attributes` of `uid` for a comparison: related entries by
     * documentId, files by id, components and zones one level deep.
     */
    populateOf(uid: string, attributes: string[]): Record<string, unknown> {
      const shapeOf = shapes(uid) ?? {};
      const how = (type: string) => {
        if (type === 'relation') return { fields: ['documentId'] };
        if (type === 'media') return { fields: ['id'] };
        return true;
      };
      return Object.fromEntries(
        attributes.flatMap((attribute) => {
          const type = shapeOf[attribute]?.type ?? '';
          return ['relation', 'media', 'component', 'dynamiczone'].includes(type)
            ? [[attribute, how(type)]]
            : [];
        })
      );
    },

    /** The sent fields whose stored values someone changed since the plugin wrote them. */
    changed(resource: Resource, fields: string[], fingerprints: Fingerprints, current: Values): string[] {
      return changedFields(fields, fingerprints, current, this.shapeOf(resource.uid), shapes);
    },

    /**
     * Keeps the fingerprints of the fields `written` wrote beside those `kept` for the fields it
     * did not send. `stored` holds the values the write replaced, when they were read.
     */
    async record(
      trx: Trx,
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      written: WriteResult,
      { kept = {}, stored }: { kept?: Fingerprints; stored?: Values | null } = {}
    ): Promise<void> {
      const fingerprints: Fingerprints = { ...kept };
      for (const [field, attributes] of Object.entries(written.attributesOf)) {
        const digests = attributes.map((attribute) => [
          attribute,
          digestOf(attribute, written.data, this.shapeOf(resource.uid), shapes, stored),
        ]);
        fingerprints[field] = { ...kept[field], ...Object.fromEntries(digests) };
      }
      const { name, column } = table();
      const now = new Date();
      await knex()(name)
        .transacting(trx)
        .insert({
          ...entryOf(resource, documentId, at),
          [column('fingerprints')]: JSON.stringify(fingerprints),
          [column('createdAt')]: now,
          [column('updatedAt')]: now,
          [column('publishedAt')]: now,
        })
        .onConflict([column('contentType'), column('entryDocumentId'), column('entryLocale')])
        .merge([column('fingerprints'), column('updatedAt')]);
    },

    /** Forgets the entry in the plugin's locale: it was deleted there. */
    async forget(trx: Trx, resource: Resource, documentId: string, at: LocaleScope): Promise<void> {
      await knex()(table().name)
        .transacting(trx)
        .where(entryOf(resource, documentId, at))
        .delete();
    },
  };
};
