import type { Core, UID } from '@strapi/strapi';
import { UIDS } from '../../server/src/constants';
import { serviceOf } from './site';

export { UIDS };

/**
 * Reads the database under a running site directly, bypassing the plugin and the Document
 * Service, so a test counts what was really written (every row, draft and published).
 */
type Meta = {
  tableName: string;
  attributes: Record<
    string,
    { columnName?: string; joinTable?: { name: string; joinColumn: { name: string } } }
  >;
};

const metaOf = (strapi: Core.Strapi, uid: string) =>
  strapi.db.metadata.get(uid as UID.Schema) as unknown as Meta;

/** A test's look at entries: it reads whatever attributes the type it names has. */
type Params = Record<string, unknown>;
type Found = Promise<any>;

/** The Document Service calls tests make, for a type the test names at run time. */
export type TestDocuments = {
  findOne(params: Params): Found;
  findFirst(params?: Params): Found;
  findMany(params?: Params): Promise<any[]>;
  count(params?: Params): Promise<number>;
  create(params: Params): Found;
  update(params: Params): Found;
  delete(params: Params): Found;
  publish(params: Params): Found;
  unpublish(params: Params): Found;
  discardDraft(params: Params): Found;
};

/** The Query Engine calls tests make: the rows as stored, every version of every document. */
export type TestQuery = {
  findOne(params?: Params): Found;
  findMany(params?: Params): Promise<any[]>;
  count(params?: Params): Promise<number>;
  create(params: Params): Found;
  createMany(params: Params): Found;
  update(params: Params): Found;
  updateMany(params: Params): Found;
  delete(params: Params): Found;
  deleteMany(params?: Params): Found;
};

/**
 * The Document Service of a content type named at run time. Strapi types `strapi.documents()` by
 * the uids an app generates, which these tests (run against several mappings) cannot name.
 */
export const documentsOf = (strapi: Core.Strapi, uid: string): TestDocuments =>
  strapi.documents(uid as UID.ContentType) as unknown as TestDocuments;

/** The Query Engine of a content type named at run time, for the same reason as `documentsOf`. */
export const queryOf = (strapi: Core.Strapi, uid: string): TestQuery =>
  strapi.db.query(uid as UID.Schema) as unknown as TestQuery;

/** The table a content type's rows are stored in. */
export const tableOf = (strapi: Core.Strapi, uid: string): string => metaOf(strapi, uid).tableName;
const knex = (strapi: Core.Strapi) => strapi.db.connection;

export const columnOf = (strapi: Core.Strapi, uid: string, attribute: string) =>
  metaOf(strapi, uid).attributes[attribute]?.columnName ?? attribute;

/** The same folding the plugin promises for names: Unicode-aware, case- and space-insensitive. */
export const foldName = (name: string) => name.normalize('NFC').trim().replace(/\s+/g, ' ').toLowerCase();

/** Every row of a content type's table, with attribute names as keys. */
export async function rowsOf(strapi: Core.Strapi, uid: string): Promise<Record<string, any>[]> {
  const meta = metaOf(strapi, uid);
  const rows = await knex(strapi)(meta.tableName).select('*');
  const attributeOfColumn = new Map(
    Object.entries(meta.attributes).map(([attribute, definition]) => [
      definition.columnName ?? attribute,
      attribute,
    ])
  );
  return rows.map((row: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(row).map(([column, value]) => [attributeOfColumn.get(column) ?? column, value])
    )
  );
}

/** Rows whose `field` folds to the same name as `name`; folding happens here so SQLite's ASCII-only LOWER() does not matter. */
export async function rowsNamed(strapi: Core.Strapi, uid: string, field: string, name: string) {
  return (await rowsOf(strapi, uid)).filter(
    (row) => typeof row[field] === 'string' && foldName(row[field]) === foldName(name)
  );
}

/** Each row of a document in a type with i18n, as `locale:draft|published:title`, sorted. */
export async function localizedVersionsOf(strapi: Core.Strapi, uid: string, documentId: string) {
  const rows = (await queryOf(strapi, uid).findMany({ where: { documentId } })) as Array<{
    locale: string;
    publishedAt: unknown;
    title: string;
  }>;
  return rows.map((row) => `${row.locale}:${row.publishedAt ? 'published' : 'draft'}:${row.title}`).sort();
}

export const distinctDocuments = (rows: Record<string, any>[]) => new Set(rows.map((row) => row.documentId));

export async function identityRows(strapi: Core.Strapi, resource?: string) {
  const rows = await rowsOf(strapi, UIDS.identity);
  return resource ? rows.filter((row) => row.resource === resource) : rows;
}

/** The notes the activity log holds for the latest request. */
export async function latestActivityNotes(strapi: Core.Strapi): Promise<string[]> {
  await serviceOf({ strapi }, 'activity-writer').flush();
  const rows = await rowsOf(strapi, UIDS.activityEntry);
  const latest = rows.sort((a, b) => Number(a.id) - Number(b.id)).at(-1)!;
  return typeof latest.notes === 'string' ? JSON.parse(latest.notes) : latest.notes;
}

/** Rows of the join table behind a relation attribute (e.g. a post's categories). */

/** Connections the site's knex pool has handed out right now. */
export const connectionsInUse = (strapi: Core.Strapi): number =>
  (strapi.db.connection as any).client.pool.numUsed();

/**
 * Hands `heard` each message the site logs at `level`; the message then goes on to the site's
 * log, unless `heard` answers false.
 */
export function listenToLog(
  strapi: Core.Strapi,
  level: 'error' | 'warn' | 'info',
  heard: (message: string) => boolean | void
) {
  const original = strapi.log[level].bind(strapi.log);
  strapi.log[level] = ((message: string, ...rest: unknown[]) =>
    heard(String(message)) === false
      ? strapi.log
      : original(message, ...rest)) as Core.Strapi['log'][typeof level];
}

/**
 * Keeps what the site logs at error level (the plugin logs every 500 with its cause there),
 * so a failing assertion can show why the server answered 5xx. `quiet` keeps expected
 * failures out of the test output.
 */
export function captureServerErrors(strapi: Core.Strapi, { quiet = false } = {}): string[] {
  const logged: string[] = [];
  listenToLog(strapi, 'error', (message) => {
    logged.push(message.slice(0, 4000));
    return !quiet;
  });
  return logged;
}

/** A logged error reduced to its cause and first stack frames, so equal causes count once. */
export const withoutRequestId = (logged: string) =>
  logged
    .replace(/request [0-9a-f-]{36}/g, 'request <id>')
    .split('\n')
    .slice(0, 4)
    .join('\n');

export function countBy<T>(values: T[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
  return counts;
}

/** The record of requests: written a moment after each answer, refused ones included, by design. */
const REQUEST_RECORDS: string[] = [UIDS.activityEntry, UIDS.requestReceipt];

/**
 * Every row of every table the plugin's requests write content to (the plugin's types, the
 * site's mapped types, their join and component tables, the plugin's bookkeeping), in a stable
 * order: two snapshots are equal exactly when no content was written in between. The activity
 * log and the receipts are left out: they record each request, refused ones too.
 */
export async function snapshotTables(strapi: Core.Strapi): Promise<Record<string, unknown[]>> {
  const kinds: Kind[] = ['post', 'blogCategory', 'tag', 'author', 'product', 'productCategory'];
  const plugin = Object.values(UIDS).filter((uid) => !REQUEST_RECORDS.includes(uid));
  const uids = new Set<string>([...plugin, ...kinds.map((kind) => storageOf(strapi, kind).uid)]);
  for (const uid of [...uids]) {
    for (const attribute of Object.values(metaOf(strapi, uid).attributes) as Array<{ target?: string }>) {
      if (attribute.target && strapi.components[attribute.target as UID.Component])
        uids.add(attribute.target);
    }
  }
  const tables = new Set<string>();
  for (const uid of uids) {
    const meta = metaOf(strapi, uid);
    tables.add(meta.tableName);
    for (const attribute of Object.values(meta.attributes)) {
      if (attribute.joinTable) tables.add(attribute.joinTable.name);
    }
  }
  const snapshot: Record<string, unknown[]> = {};
  for (const table of [...tables].sort()) {
    const rows = await knex(strapi)(table).select('*');
    snapshot[table] = rows
      .map((row: Record<string, unknown>) => JSON.stringify(row, Object.keys(row).sort()))
      .sort();
  }
  return snapshot;
}

export type Kind = 'post' | 'blogCategory' | 'tag' | 'author' | 'product' | 'productCategory';

/**
 * Where the running site stores a resource (the example maps posts, blog categories and
 * authors onto its own types unless PUBLISH_BRIDGE_CONTENT_TYPES=plugin) and which attribute
 * holds a contract field, from the plugin's resolved mapping.
 */
export function storageOf(strapi: Core.Strapi, kind: Kind) {
  const resource = serviceOf({ strapi }, 'mapping').resource(kind) as {
    uid: string;
    registry: string;
    nameField: string;
    fields: Record<string, { attribute: string; adapter: string } | undefined>;
  };
  return {
    uid: resource.uid,
    registry: resource.registry,
    nameField: resource.nameField,
    attribute: (field: string) => {
      const target = resource.fields[field];
      if (!target) throw new Error(`${kind} stores no "${field}" in ${resource.uid}`);
      return target.attribute;
    },
    /** True when the resource stores `field` at all. */
    hasField: (field: string) => resource.fields[field] !== undefined,
    /** True when `field` is a relation to entities the plugin finds or creates by name. */
    isRelation: (field: string) => resource.fields[field]?.adapter === 'relation',
  };
}

/** Deletes every file of the Media Library through the upload plugin, so public/uploads is cleaned too. */
export async function removeUploadedFiles(strapi: Core.Strapi) {
  for (const file of await queryOf(strapi, 'plugin::upload.file').findMany({})) {
    await strapi.plugin('upload').service('upload').remove(file);
  }
}
