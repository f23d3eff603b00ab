import { createHash } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { identityRegistry, type RowLock } from '../../database/identity-registry';
import type { Trx } from '../../database/knex';
import { getService } from '../../plugin';
import { sharedRegistryOf } from '../../resources';

/** The natural_key column is a varchar(255). */
const KEY_COLUMN_MAX = 255;
/** A suffixed slug keeps this much of its base, leaving room for the suffix in a varchar(255). */
const SLUG_STEM_MAX = 240;

/**
 * Candidates asked for by the first query; each further query asks for twice as many as the one
 * before, up to the most (two parameters each, far below every database's limit).
 */
const FIRST_CANDIDATES = 8;
const MOST_CANDIDATES = 256;

/** The documentIds Strapi makes (cuid2: lowercase letters and digits), with room to spare. */
const DOCUMENT_ID = /^[a-z0-9]{1,255}$/;
/**
 * The key that records a document as the plugin's when nothing else names it: a post with no
 * slug attribute and no source_id, an author with neither username nor email, an adopted entry.
 */
export const documentKey = (documentId: string) => `document:${documentId}`;
/** The key of an entity the publisher gave a source_id (a post, a category): republishes find it by this. */
export const SOURCE_KEY_PREFIX = 'source:';
export const sourceKey = (sourceId: string) => `${SOURCE_KEY_PREFIX}${sourceId}`;
/** The key of a slug an entity of the plugin's holds: a concurrent request that picked the same slug loses at the index. */
const SLUG_KEY_PREFIX = 'slug:';
export const slugKey = (slug: string) => `${SLUG_KEY_PREFIX}${slug}`;
/**
 * Marks an editor's entry the registry knows only because the publisher referred to it by name
 * (a category named in a post): the plugin finds it, but did not create it, so it is not the
 * platform's to delete.
 */
export const editorsEntryKey = (documentId: string) => `editors:${documentId}`;

/** Characters that every supported collation compares one to one (checked against MariaDB's *_ci collations). */
const PLAIN_KEY = /^[a-z0-9:._~-]+( [a-z0-9:._~-]+)*$/;

/**
 * The form a key is stored in. PostgreSQL and SQLite compare keys byte for byte, but MySQL and
 * MariaDB compare them through the column's collation, where "Abc" = "abc", "résumé" = "resume"
 * and "straße" = "strasse", and names can outgrow the column. So only keys made of characters
 * every collation keeps apart are stored as they are; any other key is stored as its kind and a
 * SHA-256 digest, which compares the same everywhere. "#" never occurs in a plain key, so the
 * two forms cannot collide.
 */
export function storedKey(key: string): string {
  if (key.length <= KEY_COLUMN_MAX && PLAIN_KEY.test(key)) return key;
  const kind = /^[a-z_]+:/.exec(key)?.[0] ?? '';
  return `${kind}#${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

/**
 * Natural keys of entities (a post's source_id, a category's name, a slug) in a table with a
 * real unique index. Strapi's `unique: true` is a SELECT-then-INSERT that concurrent requests
 * race through; the index makes the database refuse the second claim, and the transaction
 * that lost is retried (see the transactions service). Keys are kept per registry name (a
 * resource's `registry`, stored in the `resource` column), so a category and a tag may share one.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const registry = identityRegistry(strapi);

  /**
   * A slug is the type's, not a connection's. Each connection keeps its keys in registries of its
   * own, so on a site with several the slugs are also claimed in one registry they all share per
   * type: two connections picking one slug at once then meet at its unique index, as two requests
   * of one connection meet in its own registry. One connection needs none.
   */
  const slugGuardsOf = (uid: string): string[] =>
    getService(strapi, 'connections').list().length > 1 ? [sharedRegistryOf('slugs', uid)] : [];

  /** The rows `read` finds for `keys` (it gets them as stored), each with its key as given. */
  async function rowsByKey<Row extends { key: string }>(
    keys: string[],
    read: (stored: string[]) => Promise<Row[]>
  ): Promise<Array<[string, Row]>> {
    if (keys.length === 0) return [];
    const keyOf = new Map(keys.map((key) => [storedKey(key), key]));
    const rows = await read([...keyOf.keys()]);
    return rows.flatMap((row) => (keyOf.has(row.key) ? [[keyOf.get(row.key)!, row] as [string, Row]] : []));
  }

  const normalise = (value: string) => value.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

  return {
    normalise,

    /**
     * The document a key points at. A locking read: concurrent writers of the same key wait
     * for each other, and on MySQL's repeatable read it also starts the snapshot after the lock.
     * A `shared` lock lets requests that only refer to the document hold it at the same time.
     * With `trx` null, a plain read outside any transaction, which locks nothing.
     */
    async lookup(
      trx: Trx | null,
      registryName: string,
      key: string,
      lock: RowLock = {}
    ): Promise<string | null> {
      return registry.targetOf(trx, registryName, storedKey(key), lock);
    },

    /**
     * `lookup` for several keys in one statement, each row found locked as `lookup` locks it: the
     * keys the registry holds, with their targets (live or not).
     */
    async lookupAll(
      trx: Trx,
      registryName: string,
      keys: string[],
      lock: RowLock = {}
    ): Promise<Map<string, string>> {
      const rows = await rowsByKey(keys, (stored) => registry.targetsOf(trx, registryName, stored, lock));
      return new Map(rows.map(([key, row]) => [key, row.target]));
    },

    /** Records that `key` names `target`; throws the driver's unique violation if another request did first. */
    async claim(trx: Trx, registryName: string, key: string, target: string) {
      await this.claimAll(trx, registryName, [key], target);
    },

    /**
     * Records the document under `keys`, or under its own `documentKey` when there are none: the
     * registry knows every document the plugin created, which tells them from the entries editors made.
     */
    async claimDocument(trx: Trx, registryName: string, keys: string[], target: string, uid?: string) {
      await this.claimAll(trx, registryName, keys.length > 0 ? keys : [documentKey(target)], target, uid);
    },

    /**
     * Whether `target` is the plugin's: the registry holds a key of `registryName` for it, for every
     * document the plugin created (or adopted), and none for an entry an editor made in the same
     * type, unless the publisher named it; then the registry marks it as the editor's. One index
     * lookup: the schema indexes registry name and target. Outside a transaction when `trx` is null.
     */
    async knows(trx: Trx | null, registryName: string, target: string): Promise<boolean> {
      const keys = await this.keysOf(trx, registryName, target);
      return keys.length > 0 && !keys.includes(storedKey(editorsEntryKey(target)));
    },

    /** The keys (as stored) that name `target`. Outside a transaction when `trx` is null: a read for display. */
    async keysOf(trx: Trx | null, registryName: string, target: string): Promise<string[]> {
      return registry.keysOf(trx, registryName, target);
    },

    async forgetKey(trx: Trx, registryName: string, key: string) {
      await registry.deleteKey(trx, registryName, storedKey(key));
    },

    async forgetTarget(trx: Trx, registryName: string, target: string) {
      await registry.deleteTarget(trx, registryName, target);
    },

    /**
     * Locks every row (draft and published, every locale) of a document until the transaction
     * ends, so concurrent updates of it run one after another. Returns false when the document
     * is gone (or has no row in `lock.locale`), and for an id Strapi never gives (it makes
     * lowercase letters and digits): MySQL and MariaDB compare through the column's collation,
     * where "id " and "íd" equal "id", so such a spelling would reach the document under a
     * receipt of its own and run a replayed write again; PostgreSQL refuses a NUL in any query.
     */
    async lockDocument(trx: Trx, uid: string, documentId: string, lock: RowLock = {}): Promise<boolean> {
      if (!DOCUMENT_ID.test(documentId)) return false;
      const rows = await registry.lockDocumentRows(trx, uid, documentId, lock);
      return rows.some((row) => !lock.locale || row.locale === lock.locale);
    },

    /**
     * The document named by the first of `keys` that still exists, its rows locked. Keys left
     * behind by a document deleted in the Content Manager are dropped, so the name can be reused.
     * `held`: a document whose rows the caller has locked as `lock` says, found without locking again.
     */
    async findLive(
      trx: Trx,
      registryName: string,
      uid: string,
      keys: string[],
      lock: RowLock = {},
      held?: string
    ): Promise<string | null> {
      for (const key of keys) {
        const target = await this.lookup(trx, registryName, key, lock);
        if (target && target === held) return target;
        if (target && (await this.lockDocument(trx, uid, target, lock))) return target;
        if (target) await this.forgetKey(trx, registryName, key);
      }
      return null;
    },

    /**
     * Of `keys`, those that name a document which still exists, with its target, each document's
     * rows locked as `lockDocument` locks them: one query for all of them, where `findLive` takes
     * two for each key. Keys it leaves out are unknown, or left behind by a deleted document:
     * `findLive` tells those apart.
     */
    async liveTargets(
      trx: Trx,
      registryName: string,
      uid: string,
      keys: string[],
      lock: RowLock = {}
    ): Promise<Map<string, string>> {
      const rows = await rowsByKey(keys, (stored) =>
        registry.lockLiveKeys(trx, registryName, uid, stored, lock)
      );
      const live = rows.filter(([, row]) => !lock.locale || row.locale === lock.locale);
      return new Map(live.map(([key, row]) => [key, row.target]));
    },

    /**
     * `claim` for several keys in one statement: all of them, or the unique violation. With the
     * type's `uid`, its slug keys are claimed for every connection as well (slugGuardsOf).
     */
    async claimAll(trx: Trx, registryName: string, keys: string[], target: string, uid?: string) {
      if (keys.length === 0) return;
      const slugs = uid ? keys.filter((key) => key.startsWith(SLUG_KEY_PREFIX)) : [];
      const guards = slugs.length > 0 ? slugGuardsOf(uid!) : [];
      await registry.insertKeys(trx, [
        ...keys.map((key) => ({ registryName, key: storedKey(key), target })),
        ...guards.flatMap((guard) =>
          slugs.map((key) => ({ registryName: guard, key: storedKey(key), target }))
        ),
      ]);
    },

    /**
     * `claimAll` for several targets in one statement, each with its keys, in the order given:
     * all of them, or the unique violation. Slug keys need `claimAll` (their guards).
     */
    async claimEach(trx: Trx, registryName: string, claims: Array<{ keys: string[]; target: string }>) {
      const rows = claims.flatMap(({ keys, target }) =>
        keys.map((key) => ({ registryName, key: storedKey(key), target }))
      );
      if (rows.length > 0) await registry.insertKeys(trx, rows);
    },

    /**
     * Frees the slugs `target` held for every connection, as it (or one of its locales) is
     * deleted; the slugs its other locales keep stay taken in their column.
     */
    async forgetSlugs(trx: Trx, uid: string, target: string) {
      for (const guard of slugGuardsOf(uid)) await this.forgetTarget(trx, guard, target);
    },

    /**
     * The first of `base`, `base-2`, `base-3`... that no entry of `uid` uses and no identity
     * claims (in `registryName`, or for every connection): one query on both tables for the first
     * candidates, each further one (a title many entries share) for twice as many, every lookup
     * through an index. The caller claims `slugKey(slug)` with the type's uid once the entry
     * exists, so a concurrent request that picked the same slug loses at the unique index and is
     * retried.
     */
    async freeSlug(
      trx: Trx,
      registryName: string,
      uid: string,
      slugField: string,
      base: string
    ): Promise<string> {
      const stem = base.slice(0, SLUG_STEM_MAX);
      for (
        let first = 1, count = FIRST_CANDIDATES;
        ;
        first += count, count = Math.min(count * 2, MOST_CANDIDATES)
      ) {
        const candidates = Array.from({ length: count }, (_, index) =>
          first + index === 1 ? base : `${stem}-${first + index}`
        );
        const keys = candidates.map((candidate) => storedKey(slugKey(candidate)));
        const values = await registry.usedSlugsAndKeys(
          trx,
          [registryName, ...slugGuardsOf(uid)],
          uid,
          slugField,
          candidates,
          keys
        );
        // Lower case: MySQL and MariaDB compare (and index) "Post-2" and "post-2" as the same value.
        const used = new Set(values.map((value) => value.toLowerCase()));
        const free = candidates.find(
          (candidate, index) => !used.has(candidate.toLowerCase()) && !used.has(keys[index].toLowerCase())
        );
        if (free) return free;
      }
    },
  };
};
