import type { Core } from '@strapi/strapi';
import type { NamedKind } from '../../mapping/catalogue';
import type { FieldTarget } from '../../mapping/resolve';
import { storedName } from '../../mapping/text-values';
import type { Resource } from '../../resources';
import { toSlug } from '../../utils/slug';
import type { Transaction } from '../delivery/transactions';
import { getService } from '../../plugin';
import { documentsOf } from '../../database/documents';
import { documentIdsEqualIgnoringCase } from '../../database/indexes';
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
   * For each of `names`, keyed by its nameKey, the entry named so, compared as the registry
   * compares names. The rows named so without regard to case are found through the plugin's
   * index on the name column, every name's in one query; the Document Service then reads those
   * documents' versions it serves (draft, locale), all in one read. The database's comparison goes
   * through the column's collation (on MySQL/MariaDB "Résumé" matches "Resume"), so each name's
   * candidates (those its own lookup found, in the order read) are narrowed.
   */
  async function entriesNamed(trx: Trx, { uid, nameField }: Resource, names: string[]) {
    const table = tableOf(strapi, uid);
    const rows = await documentIdsEqualIgnoringCase(
      strapi,
      trx,
      { name: table.name, documentId: table.column('documentId'), column: table.column(nameField) },
      names.map((name) => name.trim())
    );
    const found = new Map<string, string>();
    if (rows.length === 0) return found;
    const candidates = await documentsOf(strapi, uid).findMany({
      filters: { documentId: { $in: [...new Set(rows.map((row) => row.documentId))] } },
      fields: ['documentId', nameField],
      // Of an editor's entries one name matches ("News", "news"), always the oldest.
      sort: 'id:asc',
    });
    names.forEach((name, position) => {
      const matched = new Set(rows.filter((row) => row.wanted === position).map((row) => row.documentId));
      const wanted = nameKey(name);
      const entry = candidates.find(
        (candidate) =>
          matched.has(candidate.documentId) && nameKey(String(candidate[nameField] ?? '')) === wanted
      );
      if (entry) found.set(wanted, entry.documentId);
    });
    return found;
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
      transaction: Transaction,
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
      const { uid, registry: registryName } = resource;
      const { trx } = transaction;
      const registry = identities();
      const nameKey = this.nameKey(name);
      const sourceKeys = sourceId ? [sourceKey(sourceId)] : [];
      const lookupKeys = [...sourceKeys, nameKey, ...(slug ? [slugKey(slug)] : [])];

      // A shared lock: publishes that refer to the same category or author need not wait for each other.
      const known = await registry.findLive(trx, registryName, uid, lookupKeys, { shared: true });
      if (known) return known;

      const existing = (await entriesNamed(trx, resource, [name])).get(nameKey);
      if (existing) {
        const keys = [...sourceKeys, nameKey, editorsEntryKey(existing)];
        await registry.claimAll(trx, registryName, keys, existing);
        return existing;
      }
      return this.createNamed(transaction, kind, name, { data, slug, keys: [...sourceKeys, nameKey], notes });
    },

    /**
     * A new entry named `name`, built from `data` (Strapi attribute values), with a free slug,
     * claimed under `keys` and its slug. The name is stored cut to fit the name attribute (noted).
     */
    async createNamed(
      { trx }: Transaction,
      kind: NamedKind,
      name: string,
      {
        data,
        slug,
        keys,
        notes,
      }: { data: Record<string, unknown>; slug?: string; keys: string[]; notes: string[] }
    ): Promise<string> {
      const resource: Resource = getService(strapi, 'mapping').resource(kind);
      const { uid, registry: registryName, nameField, slugField } = resource;
      const freeSlug = slugField
        ? await identities().freeSlug(trx, registryName, uid, slugField, toSlug(slug ?? name, registryName))
        : undefined;
      const created = await documentsOf(strapi, uid).create({
        data: {
          ...data,
          [nameField]: storedName(resource, name.trim(), notes),
          ...(slugField ? { [slugField]: freeSlug } : {}),
        },
        status: 'published',
      });
      const claims = new Set([...keys, ...(freeSlug ? [slugKey(freeSlug)] : [])]);
      await identities().claimAll(trx, registryName, [...claims], created.documentId, uid);
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
      // Names the registry knows are found (and locked) together, then those it does not know,
      // each step in one global order (sorted keys), which keeps two publishes that share names
      // from deadlocking.
      const { uid, registry } = getService(strapi, 'mapping').resource(kind);
      const keys = [...unique.keys()].sort();
      const ids = await identities().liveTargets(transaction.trx, registry, uid, keys, { shared: true });
      const unknown = keys.filter((key) => !ids.has(key)).map((key) => unique.get(key)!);
      const found = await this.findOrCreateNamed(transaction, kind, unknown, notes);
      return [...unique.keys()].map((key) => ids.get(key) ?? found.get(key)!);
    },

    /**
     * `findOrCreate` for `names` (with distinct name keys, in their sorted order) that liveTargets
     * did not find: one registry lookup and one search by name for all of them, one claim of the
     * editors' entries found; only new entries are created one by one. A name the registry holds
     * after all (its document deleted, or claimed by a request that committed since) goes through
     * findOrCreate, which tells those apart. Keyed by nameKey.
     */
    async findOrCreateNamed(
      transaction: Transaction,
      kind: NamedKind,
      names: string[],
      notes: string[]
    ): Promise<Map<string, string>> {
      const ids = new Map<string, string>();
      if (names.length === 0) return ids;
      const resource: Resource = getService(strapi, 'mapping').resource(kind);
      const { trx } = transaction;
      const held = await identities().lookupAll(trx, resource.registry, names.map(nameKey), { shared: true });
      for (const name of names.filter((name) => held.has(nameKey(name))))
        ids.set(nameKey(name), await this.findOrCreate(transaction, kind, name, { notes }));
      const unheld = names.filter((name) => !held.has(nameKey(name)));
      const existing =
        unheld.length > 0 ? await entriesNamed(trx, resource, unheld) : new Map<string, string>();
      const adopted = unheld.filter((name) => existing.has(nameKey(name)));
      await identities().claimEach(
        trx,
        resource.registry,
        adopted.map((name) => {
          const target = existing.get(nameKey(name))!;
          return { keys: [nameKey(name), editorsEntryKey(target)], target };
        })
      );
      for (const name of adopted) ids.set(nameKey(name), existing.get(nameKey(name))!);
      for (const name of unheld.filter((name) => !existing.has(nameKey(name)))) {
        const created = await this.createNamed(transaction, kind, name, {
          data: {},
          keys: [nameKey(name)],
          notes,
        });
        ids.set(nameKey(name), created);
      }
      return ids;
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
      // As a list of one name: a name the registry knows is found in one statement.
      return this.resolveNames(transaction, kind, [value], notes);
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
