/**
 * One Strapi instance of the example site in a process of its own (started by
 * test/helpers/instances.ts with child_process.fork), for tests that need several instances on
 * one database, or a server process the test runner does not share. It reports
 * `{ type: 'ready', port }` once listening, then answers `{ id, command, args }` messages with
 * `{ id, result }` or `{ id, error }`.
 */
const { createStrapi } = require('@strapi/strapi');

const PLUGIN = 'publish-bridge';
const exampleDir = process.env.EXAMPLE_DIR;

/**
 * Counted instead of ending the process, so a test can report what Strapi left unhandled: the
 * message, and the first frame of the (async) stack outside knex and Strapi's database layer,
 * which names who sent a query that failed (knex's "Transaction query already complete" has no SQL).
 */
const unhandledRejections = [];
Error.stackTraceLimit = 30;
const DRIVER_FRAME = /node_modules\/(knex|mysql2|pg|@strapi\/database)\/|\(node:|\(<anonymous>\)/;
process.on('unhandledRejection', (reason) => {
  const message = String((reason && reason.message) || reason).slice(0, 500);
  const frames = String((reason && reason.stack) || '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line));
  const sentBy = frames.find((line) => !DRIVER_FRAME.test(line));
  unhandledRejections.push({ message, sentBy: sentBy ? sentBy.trim() : '' });
});

async function main() {
  const strapi = await createStrapi({ appDir: exampleDir, distDir: exampleDir, autoReload: false }).load();
  await strapi.server.mount();
  const server = strapi.server.httpServer;
  if (!server.listening) await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));

  const plugin = () => strapi.plugin(PLUGIN);
  const resource = (kind) => plugin().service('mapping').resource(kind);

  const commands = {
    /** Saves settings as the admin page does (SettingsChanges: `connectionKey`, `capabilities`, ...). */
    updateSettings: (changes) => plugin().service('settings').update(changes),
    unhandledRejections: () => unhandledRejections,

    /** Each post published with source_id `${prefix}${index}`: its documents and category names. */
    async postsBySourceId(prefix, count) {
      const post = resource('post');
      const category = resource('blogCategory');
      const sourceAttribute = post.fields.source_id.attribute;
      const categoriesAttribute = post.fields.categories.attribute;
      const found = [];
      for (let index = 0; index < count; index += 1) {
        const documents = await strapi.documents(post.uid).findMany({
          filters: { [sourceAttribute]: `${prefix}${index}` },
          populate: { [categoriesAttribute]: { fields: [category.nameField] } },
        });
        found.push(
          documents.map((document) => ({
            documentId: document.documentId,
            categories: document[categoriesAttribute].map((entry) => entry[category.nameField]).sort(),
          }))
        );
      }
      return found;
    },

    /** How many posts whose source_id starts with `prefix` have a `status` version. */
    async postsCount(prefix, status) {
      const post = resource('post');
      return strapi.documents(post.uid).count({
        filters: { [post.fields.source_id.attribute]: { $startsWith: prefix } },
        status,
      });
    },

    /** How many entries of a resource carry `name` (compared without regard to case). */
    async countNamed(kind, name) {
      const { uid, nameField } = resource(kind);
      const rows = await strapi.db.connection(strapi.db.metadata.get(uid).tableName).select('*');
      const column = strapi.db.metadata.get(uid).attributes[nameField].columnName || nameField;
      return new Set(
        rows
          .filter((row) => String(row[column]).toLowerCase() === name.toLowerCase())
          .map((row) => row.document_id)
      ).size;
    },

    /** Registry rows whose target no longer exists in any content type the contract writes. */
    async orphanIdentities() {
      const identities = await strapi.db
        .connection(strapi.db.metadata.get(`plugin::${PLUGIN}.identity`).tableName)
        .select('*');
      const kinds = ['post', 'blogCategory', 'tag', 'author', 'product', 'productCategory'];
      const existing = new Set();
      for (const kind of kinds) {
        const table = strapi.db.metadata.get(resource(kind).uid).tableName;
        for (const row of await strapi.db.connection(table).select('document_id'))
          existing.add(row.document_id);
      }
      return identities
        .filter((row) => !existing.has(row.target))
        .map((row) => `${row.resource} ${row.natural_key}`);
    },

    /**
     * Every row of the site's content (its own types, the plugin's content and registry, their
     * join tables), in a stable order: equal snapshots mean nothing was written in between. The
     * activity log is left out: refusals are meant to be counted there.
     */
    async contentSnapshot() {
      // Answers kept for replays are written in batches after the replies: settle them first.
      await plugin().service('receipts').flush();
      const left = new Set([`plugin::${PLUGIN}.activity-entry`]);
      const tables = new Set();
      for (const [uid, meta] of strapi.db.metadata) {
        if (left.has(uid) || !(uid.startsWith('api::') || uid.startsWith(`plugin::${PLUGIN}.`))) continue;
        tables.add(meta.tableName);
        for (const attribute of Object.values(meta.attributes)) {
          if (attribute.joinTable) tables.add(attribute.joinTable.name);
        }
      }
      const snapshot = {};
      for (const table of [...tables].sort()) {
        const rows = await strapi.db.connection(table).select('*');
        snapshot[table] = rows.map((row) => JSON.stringify(row, Object.keys(row).sort())).sort();
      }
      return snapshot;
    },

    /** Deletes the receipts this instance takes for expired, as it does once a minute. */
    pruneReceipts: () => plugin().service('receipts').prune(),

    /** One document as the Document Service reads it (the draft, or `status: 'published'`). */
    findDocument: (uid, documentId, status) => strapi.documents(uid).findOne({ documentId, status }),

    /** The notes of the latest request in the activity log. */
    async latestNotes() {
      await plugin().service('activity-writer').flush();
      const [latest] = await strapi.db
        .query(`plugin::${PLUGIN}.activity-entry`)
        .findMany({ orderBy: { id: 'desc' }, limit: 1 });
      return typeof latest?.notes === 'string' ? JSON.parse(latest.notes) : (latest?.notes ?? []);
    },

    /** Drops the indexes the plugin added (`…_pb_idx`), as if it had never started on this database. */
    async dropPluginIndexes() {
      const dropped = [];
      for (const { tableName } of strapi.db.metadata.values()) {
        for (const { name } of await strapi.db.dialect.schemaInspector.getIndexes(tableName)) {
          if (!name.endsWith('_pb_idx')) continue;
          await strapi.db.connection.schema.alterTable(tableName, (table) => table.dropIndex([], name));
          dropped.push(name);
        }
      }
      return dropped;
    },

    /**
     * The plugin's indexes (`…_pb_idx`) on each table, read from the database's catalogue (Strapi's
     * inspector leaves out PostgreSQL's indexes on an expression).
     */
    async pluginIndexes() {
      const knex = strapi.db.connection;
      const client = strapi.db.dialect.client;
      const rows =
        client === 'sqlite'
          ? await knex.raw(
              "SELECT tbl_name AS t, name AS i FROM sqlite_master WHERE type = 'index' AND name LIKE '%pb_idx'"
            )
          : client === 'postgres'
            ? (
                await knex.raw(
                  "SELECT tablename AS t, indexname AS i FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE '%pb_idx'"
                )
              ).rows
            : (
                await knex.raw(
                  "SELECT DISTINCT TABLE_NAME AS t, INDEX_NAME AS i FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND INDEX_NAME LIKE '%pb_idx'"
                )
              )[0];
      const found = {};
      for (const { t, i } of rows) (found[t] = found[t] || []).push(i);
      for (const names of Object.values(found)) names.sort();
      return found;
    },

    /** One of the plugin's services, e.g. `pluginService('uninstall', 'prepare')` as from `strapi console`. */
    pluginService: (service, method, ...args) =>
      plugin()
        .service(service)
        [method](...args),

    /** Every table of the database. */
    tables: () => strapi.db.dialect.schemaInspector.getTables(),

    /** One Query Engine call, e.g. `query('admin::role', 'findMany', { where })`. */
    query: (uid, method, params) => strapi.db.query(uid)[method](params),

    /** One of the admin's own services, as its routes call them (e.g. `adminService('role', 'assignPermissions', id, list)`). */
    adminService: (service, method, ...args) => strapi.admin.services[service][method](...args),

    /** Runs one statement as the site's own connection would, e.g. to set a database up as an older version left it. */
    runSql: async (sql, bindings = []) => {
      await strapi.db.connection.raw(sql, bindings);
    },

    async stop() {
      await strapi.destroy();
      setImmediate(() => process.exit(0));
    },
  };

  process.on('message', async ({ id, command, args = [] }) => {
    try {
      process.send({ id, result: (await commands[command](...args)) ?? null });
    } catch (error) {
      process.send({ id, error: String((error && error.stack) || error) });
    }
  });
  process.send({ type: 'ready', port: server.address().port });
}

main().catch((error) => {
  process.send({ type: 'failed', error: String((error && error.stack) || error) });
  process.exit(1);
});
