import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXAMPLE_DIR } from './site';
import { startInstance, type Instance } from './instances';
import { createTestDatabase, type TestDatabase } from './databases';

/**
 * A copy of the example site whose schemas a test may change, as a developer does in the
 * Content-Type Builder, between real starts of its own processes on one database. Its
 * config/plugins.js is the example's own, read from the example (so the plugin still resolves
 * to this repository), with what a start asks for applied on top.
 */
export type SiteCopy = {
  dir: string;
  /** Changes one of the site's content type schemas (`api::<name>.<name>`) on disk. */
  editSchema(name: string, edit: (schema: ContentTypeSchema) => void): void;
  /** Starts the copy in a process of its own (test/helpers/instances.ts). */
  start(env: Record<string, string>, plugin?: PluginState): Promise<Instance>;
  remove(): void;
};

export type ContentTypeSchema = { attributes: Record<string, Record<string, unknown>> };

/**
 * How the plugin takes part in a start: enabled with the example's mapping, or with some of its
 * fields mapped elsewhere (`null` leaves one out); `enabled: false` in config/plugins; or gone
 * from config/plugins altogether, as after its package was removed.
 */
export type PluginState =
  | { enabled: true; fields?: Record<string, Record<string, string | null>> }
  | { enabled: false }
  | 'removed';

const PLUGINS_CONFIG = (original: string) => `const example = require(${JSON.stringify(original)});

module.exports = (context) => {
  const config = example(context);
  const state = JSON.parse(process.env.PB_PLUGIN_STATE || '{"enabled":true}');
  if (state === 'removed') {
    delete config['publish-bridge'];
    return config;
  }
  const plugin = config['publish-bridge'];
  plugin.enabled = state.enabled;
  for (const [kind, fields] of Object.entries(state.fields || {})) {
    const mapped = { ...plugin.config.contentTypes[kind].fields };
    for (const [field, attribute] of Object.entries(fields)) {
      if (attribute === null) delete mapped[field];
      else mapped[field] = attribute;
    }
    plugin.config.contentTypes[kind] = { ...plugin.config.contentTypes[kind], fields: mapped };
  }
  return config;
};
`;

export function createSiteCopy(): SiteCopy {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pb-site-'));
  for (const part of ['config', 'src', 'public', 'package.json']) {
    fs.cpSync(path.join(EXAMPLE_DIR, part), path.join(dir, part), { recursive: true });
  }
  fs.writeFileSync(
    path.join(dir, 'config', 'plugins.js'),
    PLUGINS_CONFIG(path.join(EXAMPLE_DIR, 'config', 'plugins.js'))
  );
  fs.symlinkSync(path.resolve(EXAMPLE_DIR, '..', 'node_modules'), path.join(dir, 'node_modules'));
  const schemaFile = (name: string) =>
    path.join(dir, 'src', 'api', name, 'content-types', name, 'schema.json');

  return {
    dir,
    editSchema(name, edit) {
      const schema = JSON.parse(fs.readFileSync(schemaFile(name), 'utf8'));
      edit(schema);
      fs.writeFileSync(schemaFile(name), `${JSON.stringify(schema, null, 2)}\n`);
    },
    start: (env, plugin = { enabled: true }) =>
      startInstance({ ...env, EXAMPLE_DIR: dir, PB_PLUGIN_STATE: JSON.stringify(plugin) }),
    remove: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

/** Renames an attribute, keeping its definition, as a developer renaming a field does. */
export const renameAttribute = (from: string, to: string) => (schema: ContentTypeSchema) => {
  schema.attributes[to] = schema.attributes[from];
  delete schema.attributes[from];
};

/** Removes an attribute. */
export const removeAttribute = (name: string) => (schema: ContentTypeSchema) => {
  delete schema.attributes[name];
};

/**
 * A fresh copy of the site and a fresh database for each test of a file, with `env` for every
 * start; `start` stops the instance running first, so one process at a time uses the database.
 */
export function siteCopyPerTest(env: Record<string, string>) {
  let database: TestDatabase;
  let copy: SiteCopy;
  let instance: Instance | undefined;
  beforeEach(async () => {
    database = await createTestDatabase();
    copy = createSiteCopy();
  });
  afterEach(async () => {
    await instance?.stop();
    instance = undefined;
    copy.remove();
    await database.drop();
  });
  return {
    copy: () => copy,
    async start(plugin?: PluginState, more: Record<string, string> = {}): Promise<Instance> {
      await instance?.stop();
      instance = await copy.start({ ...database.env, ...env, ...more }, plugin);
      return instance;
    },
  };
}
