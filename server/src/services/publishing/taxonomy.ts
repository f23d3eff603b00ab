import type { Core } from '@strapi/strapi';
import type { NamedKind } from '../../mapping/catalogue';
import type { FieldTarget } from '../../mapping/resolve';
import { storedName } from '../../mapping/text-values';
import type { Resource } from '../../resources';
import { toSlug } from '../../utils/slug';
import type { Transaction } from '../delivery/transactions';
import { getService } from '../../plugin';
import { documentsOf } from '../../database/documents';
import { whereEqualsIgnoringCase } from '../../database/indexes';
import { tableOf } from '../../database/tables';
import type { Trx } from '../../database/knex';
import { editorsEntryKey, slugKey, sourceKey } from './identities';

/** Entities a post or product refers to by name; missing ones are created. */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const identities = () => getService(strapi, 'identities');
  const nameKey = (name: string) => `name:${identities().normalise(name)}`;

  /** The first of `names` for a relation that holds one entry; the others are noted as not stored. */
  function primaryName(field: string, target: FieldTarget, names: string[], notes: string[]): string[] {
    const [primary, ...others] = names;
    const dropped = others.filter((name) => nameKey(name) !== nameKey(primary));
    if (dropped.length > 0) {
      notes.push(
        `${field}: ${target.attribute} holds one entry, so the primary (first) "${primary}" was stored; not stored: ${dropped.map((name) => `"${name}"`).join(', ')}.`
      );
    }
    return primary === undefined ? [] : [primary];
  }

  /**
   * An entry named `name`, compared as the registry compares names. The rows named so without
   * regard to case are found through the plugin's index on the name column; the Document Service
   * then reads those documents' versions it serves (draft, locale). The database's comparison goes
   * through the column's collation (on MySQL/MariaDB "Résumé" matches "Resume"), so the
   * candidates are narrowed.
   */
  async function entryNamed(trx: Trx, { uid, nameField }: Resource, name: string) {
    const table = tableOf(strapi, uid);
    const rows: { documentId: string }[] = await whereEqualsIgnoringCase(
      strapi,
      table.name,
      table.column(nameField),
      name.trim()
    )
      .transacting(trx)
      .distinct({ documentId: table.column('documentId') });
    if (rows.length === 0) return undefined;
    const candidates = await documentsOf(strapi, uid).findMany({
      filters: { documentId: { $in: rows.map((row) => row.documentId) } },
      fields: ['documentId', nameField],
    });
    const wanted = nameKey(name);
    return candidates.find((candidate) => nameKey(String(candidate[nameField] ?? '')) === wanted);
  }

  return {
    nameKey,

    /**
     * The documentId of the entity named `name` (case-insensitive), or known by `sourceId` or
     * `slug`: the one the registry knows, else one an editor created with that name, else a new
     * one built from `data` (Strapi attribute values). The full name is matched; a new entry stores it
     * cut to fit the name attribute (noted), and the registry keeps finding it by the full name.
     */
    async findOrCreate(
      { trx }: Transaction,
      kind: NamedKind,
      name: string,
      {
        data = {},
        sourceId,
        slug,
        notes = [],
      }: { data?: Record<string, unknown>; sourceId?: string; slug?: string; notes?: string[] } = {}
    ): Promise<string> {
      const resource: Resource = getService(strapi, 'mapping').resource(kind);
      const { uid, registry: registryName, nameField, slugField } = resource;
      const registry = identities();
      const nameKey = this.nameKey(name);
      const sourceKeys = sourceId ? [sourceKey(sourceId)] : [];
      const lookupKeys = [...sourceKeys, nameKey, ...(slug ? [slugKey(slug)] : [])];

      // A shared lock: publishes that refer to the same category or author need not wait for each other.
      const known = await registry.findLive(trx, registryName, uid, lookupKeys, { shared: true });
      if (known) return known;

      const existing = await entryNamed(trx, resource, name);
      if (existing) {
        const keys = [...sourceKeys, nameKey, editorsEntryKey(existing.documentId)];
        await registry.claimAll(trx, registryName, keys, existing.documentId);
        return existing.documentId;
      }

      const freeSlug = slugField
        ? await registry.freeSlug(trx, registryName, uid, slugField, toSlug(slug ?? name, registryName))
        : undefined;
      const created = await documentsOf(strapi, uid).create({
        data: {
          ...data,
          [nameField]: storedName(resource, name.trim(), notes),
          ...(slugField ? { [slugField]: freeSlug } : {}),
        },
        status: 'published',
      });
      const claims = new Set([...sourceKeys, nameKey, ...(freeSlug ? [slugKey(freeSlug)] : [])]);
      await registry.claimAll(trx, registryName, [...claims], created.documentId, uid);
      return created.documentId;
    },

    /** Document ids for `names` in their order, duplicates (case-insensitive) folded. */
    async resolveNames(
      transaction: Transaction,
      kind: NamedKind,
      names: string[],
      notes: string[] = []
    ): Promise<string[]> {
      const unique = new Map<string, string>();
      for (const name of names) {
        const key = this.nameKey(name);
        if (!unique.has(key)) unique.set(key, name);
      }
      // Names the registry knows are found (and locked) together; the others are found or created
      // one by one, in one global order, which keeps two publishes that share names from deadlocking.
      const { uid, registry } = getService(strapi, 'mapping').resource(kind);
      const keys = [...unique.keys()].sort();
      const ids = await identities().liveTargets(transaction.trx, registry, uid, keys, { shared: true });
      for (const key of keys) {
        if (ids.has(key)) continue;
        ids.set(key, await this.findOrCreate(transaction, kind, unique.get(key)!, { notes }));
      }
      return [...unique.keys()].map((key) => ids.get(key)!);
    },

    /** The entry one name (or, for a `parent`, an existing id) refers to, as a list of none or one. */
    async relatedIds(
      transaction: Transaction,
      field: string,
      kind: NamedKind,
      value: string,
      notes: string[]
    ): Promise<string[]> {
      if (!value.trim()) return [];
      const related: Resource = getService(strapi, 'mapping').resource(kind);
      if (field === 'parent' && (await identities().lockDocument(transaction.trx, related.uid, value))) {
        return [value];
      }
      const documentId = await this.findOrCreate(transaction, kind, value, { notes });
      return [documentId];
    },

    /**
     * A relation attribute's value: names become relations to entries found or created by name;
     * a `parent` may also be given by id. A single relation holds the primary (first) name, a
     * list relation a list (of one for an `author` or `parent`).
     */
    async relationValue(
      transaction: Transaction,
      field: string,
      target: FieldTarget,
      value: string | string[],
      notes: string[]
    ) {
      const kind = target.targetKind as NamedKind;
      const ids: string[] = Array.isArray(value)
        ? await this.resolveNames(
            transaction,
            kind,
            target.multiple ? value : primaryName(field, target, value, notes),
            notes
          )
        : await this.relatedIds(transaction, field, kind, value, notes);
      return target.multiple ? { set: ids } : (ids[0] ?? null);
    },
  };
};
