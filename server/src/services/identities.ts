import { createHash } from 'node:crypto';
import type { Core } from '@strapi/strapi';
import { UIDS } from '../constants';
import { tableOf } from '../database/tables';
import type { Knex, Trx } from '../database/knex';

/**
 * Exclusive by default: the holder is about to change the row. With a `locale`, only rows in that
 * locale make the document exist (the plugin's version of a document with i18n on).
 */
type RowLock = { shared?: boolean; locale?: string };

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

/**
 * The values of `column` among `values`, looked up by equality so that an index on the column
 * serves it on every database (a LIKE prefix cannot use PostgreSQL's index under a non-C
 * collation, nor SQLite's, which compares LIKE case-insensitively: both read the whole table).
 * On MySQL and MariaDB the value is read as binary-collated utf8mb4, so that a UNION of columns
 * with different collations (a site's own table beside the plugin's) is not refused as an
 * illegal mix.
 */
function valuesIn(knex: Knex, mysql: boolean, table: string, column: string, values: string[]) {
  const value = mysql
    ? knex.raw('convert(?? using utf8mb4) collate utf8mb4_bin as value', [column])
    : { value: column };
  return knex(table).select(value).whereIn(column, values);
}
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
  const knex = (): Knex => strapi.db.connection;
  const locksRows = () => strapi.db.dialect.client !== 'sqlite';

  const identities = () => tableOf(strapi, UIDS.identity);

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
      const table = identities();
      let query = knex()(table.name)
        .select(table.column('target'))
        .where({ [table.column('resource')]: registryName, [table.column('naturalKey')]: storedKey(key) })
        .first();
      if (trx) query = query.transacting(trx);
      if (trx && locksRows()) query = lock.shared ? query.forShare() : query.forUpdate();
      const row = await query;
      return row ? (row[table.column('target')] as string) : null;
    },

    /** Records that `key` names `target`; throws the driver's unique violation if another request did first. */
    async claim(trx: Trx, registryName: string, key: string, target: string) {
      await this.claimAll(trx, registryName, [key], target);
    },

    /**
     * Records the document under `keys`, or under its own `documentKey` when there are none: the
     * registry knows every document the plugin created, which tells them from the entries editors made.
     */
    async claimDocument(trx: Trx, registryName: string, keys: string[], target: string) {
      await this.claimAll(trx, registryName, keys.length > 0 ? keys : [documentKey(target)], target);
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
      const table = identities();
      const query = knex()(table.name)
        .select({ key: table.column('naturalKey') })
        .where({ [table.column('resource')]: registryName, [table.column('target')]: target });
      const rows: Array<{ key: string }> = await (trx ? query.transacting(trx) : query);
      return rows.map((row) => row.key);
    },

    async forgetKey(trx: Trx, registryName: string, key: string) {
      const table = identities();
      await knex()(table.name)
        .transacting(trx)
        .where({ [table.column('resource')]: registryName, [table.column('naturalKey')]: storedKey(key) })
        .delete();
    },

    async forgetTarget(trx: Trx, registryName: string, target: string) {
      const table = identities();
      await knex()(table.name)
        .transacting(trx)
        .where({ [table.column('resource')]: registryName, [table.column('target')]: target })
        .delete();
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
      const table = tableOf(strapi, uid);
      let query = knex()(table.name)
        .transacting(trx)
        .select({ id: table.column('id'), ...(lock.locale ? { locale: table.column('locale') } : {}) })
        .where(table.column('documentId'), documentId);
      if (locksRows()) query = lock.shared ? query.forShare() : query.forUpdate();
      const rows: Array<{ locale?: string }> = await query;
      return rows.some((row) => !lock.locale || row.locale === lock.locale);
    },

    /**
     * The document named by the first of `keys` that still exists, its rows locked. Keys left
     * behind by a document deleted in the Content Manager are dropped, so the name can be reused.
     */
    async findLive(
      trx: Trx,
      registryName: string,
      uid: string,
      keys: string[],
      lock: RowLock = {}
    ): Promise<string | null> {
      for (const key of keys) {
        const target = await this.lookup(trx, registryName, key, lock);
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
      if (keys.length === 0) return new Map();
      const registry = identities();
      const table = tableOf(strapi, uid);
      const keyOf = new Map(keys.map((key) => [storedKey(key), key]));
      // A locking read of a join locks the rows it returns in both tables.
      let query = knex()({ registry: registry.name })
        .transacting(trx)
        .join(
          { entry: table.name },
          `entry.${table.column('documentId')}`,
          `registry.${registry.column('target')}`
        )
        .select({
          key: `registry.${registry.column('naturalKey')}`,
          target: `registry.${registry.column('target')}`,
          ...(lock.locale ? { locale: `entry.${table.column('locale')}` } : {}),
        })
        .where(`registry.${registry.column('resource')}`, registryName)
        .whereIn(`registry.${registry.column('naturalKey')}`, [...keyOf.keys()]);
      if (locksRows()) query = lock.shared ? query.forShare() : query.forUpdate();
      const rows: Array<{ key: string; target: string; locale?: string }> = await query;
      const live = new Map<string, string>();
      for (const row of rows) {
        const key = keyOf.get(row.key);
        if (key !== undefined && (!lock.locale || row.locale === lock.locale)) live.set(key, row.target);
      }
      return live;
    },

    /** `claim` for several keys in one statement: all of them, or the unique violation. */
    async claimAll(trx: Trx, registryName: string, keys: string[], target: string) {
      if (keys.length === 0) return;
      const table = identities();
      const now = new Date();
      await knex()(table.name)
        .transacting(trx)
        .insert(
          keys.map((key) => ({
            [table.column('resource')]: registryName,
            [table.column('naturalKey')]: storedKey(key),
            [table.column('target')]: target,
            [table.column('createdAt')]: now,
            [table.column('updatedAt')]: now,
            [table.column('publishedAt')]: now,
          }))
        );
    },

    /**
     * The first of `base`, `base-2`, `base-3`... that no entry of `uid` uses and no identity
     * claims: one query on both tables for the first candidates, each further one (a title many
     * entries share) for twice as many, every lookup through an index. The caller claims
     * `slug:<slug>` once the entry exists, so a concurrent request that picked the same slug
     * loses at the unique index and is retried.
     */
    async freeSlug(
      trx: Trx,
      registryName: string,
      uid: string,
      slugField: string,
      base: string
    ): Promise<string> {
      const stem = base.slice(0, SLUG_STEM_MAX);
      const table = tableOf(strapi, uid);
      const registry = identities();
      const mysql = strapi.db.dialect.client === 'mysql';
      for (
        let first = 1, count = FIRST_CANDIDATES;
        ;
        first += count, count = Math.min(count * 2, MOST_CANDIDATES)
      ) {
        const candidates = Array.from({ length: count }, (_, index) =>
          first + index === 1 ? base : `${stem}-${first + index}`
        );
        const keys = candidates.map((candidate) => storedKey(`slug:${candidate}`));
        const usedSlugs = valuesIn(knex(), mysql, table.name, table.column(slugField), candidates);
        const usedKeys = valuesIn(knex(), mysql, registry.name, registry.column('naturalKey'), keys).where(
          registry.column('resource'),
          registryName
        );
        const rows: Array<{ value: string }> = await usedSlugs.unionAll(usedKeys).transacting(trx);
        // Lower case: MySQL and MariaDB compare (and index) "Post-2" and "post-2" as the same value.
        const used = new Set(rows.map((row) => String(row.value).toLowerCase()));
        const free = candidates.find(
          (candidate, index) => !used.has(candidate.toLowerCase()) && !used.has(keys[index].toLowerCase())
        );
        if (free) return free;
      }
    },
  };
};
