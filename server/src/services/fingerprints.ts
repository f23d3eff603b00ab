import type { Core } from '@strapi/strapi';
import { UIDS } from '../constants';
import { tableOf } from '../database/tables';
import {
  changedFields,
  digestOf,
  type AttributeShape,
  type Fingerprints,
  type ShapesOf,
} from '../mapping/fingerprints';
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

/**
 * What the plugin last wrote into each entry it manages, kept as a fingerprint per contract field
 * (see mapping/fingerprints.ts), one row per entry and locale. Written in the transaction of the
 * write it describes, and read under the lock that write holds on the entry.
 */
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const knex = (): Knex => strapi.db.connection;
  const table = () => tableOf(strapi, UIDS.managedEntry);
  const shapes: ShapesOf = (uid) =>
    (strapi.getModel(uid as never) as { attributes?: Record<string, AttributeShape> } | undefined)
      ?.attributes;
  const shapeOf = (resource: Resource) => shapes(resource.uid) ?? {};

  const entryOf = (resource: Resource, documentId: string, at: LocaleScope) =>
    managedEntryOf(strapi, resource.uid, documentId, at);

  return {
    /** The fingerprints kept for the entry: none for an entry written before they were kept. */
    async stored(trx: Trx, resource: Resource, documentId: string, at: LocaleScope): Promise<Fingerprints> {
      const { name, column } = table();
      const row = await knex()(name)
        .transacting(trx)
        .select({ fingerprints: column('fingerprints') })
        .where(entryOf(resource, documentId, at))
        .first();
      const value = row?.fingerprints;
      return (typeof value === 'string' ? JSON.parse(value) : value) ?? {};
    },

    /**
     * How the Document Service reads `attributes` for a comparison: related entries by
     * documentId, files by id, components and zones one level deep.
     */
    populateOf(resource: Resource, attributes: string[]): Record<string, unknown> {
      const shapeOf = shapes(resource.uid) ?? {};
      const how = (attribute: string) => {
        const type = shapeOf[attribute]?.type;
        if (type === 'relation') return { fields: ['documentId'] };
        if (type === 'media') return { fields: ['id'] };
        return true;
      };
      const populated = attributes.filter((attribute) =>
        ['relation', 'media', 'component', 'dynamiczone'].includes(shapeOf[attribute]?.type ?? '')
      );
      return Object.fromEntries(populated.map((attribute) => [attribute, how(attribute)]));
    },

    /** The sent fields whose stored values someone changed since the plugin wrote them. */
    changed(resource: Resource, fields: string[], fingerprints: Fingerprints, current: Values): string[] {
      return changedFields(fields, fingerprints, current, shapeOf(resource), shapes);
    },

    /**
     * Keeps the fingerprints of the fields `written` wrote beside those kept for the fields it
     * did not send. `before` holds the values the write replaced, when they were read.
     */
    async record(
      trx: Trx,
      resource: Resource,
      documentId: string,
      at: LocaleScope,
      written: WriteResult,
      kept: Fingerprints = {},
      before?: Values | null
    ): Promise<void> {
      const fingerprints: Fingerprints = { ...kept };
      for (const [field, attributes] of Object.entries(written.attributesOf)) {
        const digests = attributes.map((attribute) => [
          attribute,
          digestOf(attribute, written.data, shapeOf(resource), shapes, before),
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
