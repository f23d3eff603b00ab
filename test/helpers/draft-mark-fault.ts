import type { Site } from './site';
import { UIDS } from './inspect';

const TRIGGER = 'publish_bridge_test_refuse_draft_marks';
const MESSAGE = 'draft marks refused by the test';

/**
 * A real fault in the database, not a stand-in for the plugin's code: from now on the database
 * refuses every UPDATE of the managed-entries table that writes the draft mark
 * (`draftSavedInStrapi`), as a revoked grant or a lock held past the timeout would. The other
 * writes of the table (schedules, fingerprints) go through. Returns the function that lifts it.
 */
export async function refuseDraftMarks(site: Site): Promise<() => Promise<void>> {
  const knex = site.strapi.db.connection;
  const { tableName, attributes } = site.strapi.db.metadata.get(UIDS.managedEntry);
  const column = (name: string) => (attributes[name] as { columnName?: string }).columnName ?? name;
  const mark = column('draftSavedInStrapi');
  const client = site.strapi.db.dialect.client;
  if (client === 'sqlite') {
    await knex.raw(
      `CREATE TRIGGER ${TRIGGER} BEFORE UPDATE OF ${mark} ON ${tableName} BEGIN SELECT RAISE(ABORT, '${MESSAGE}'); END`
    );
    return async () => void (await knex.raw(`DROP TRIGGER ${TRIGGER}`));
  }
  if (client === 'postgres') {
    await knex.raw(
      `CREATE FUNCTION ${TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $body$ BEGIN RAISE EXCEPTION '${MESSAGE}'; END $body$`
    );
    await knex.raw(
      `CREATE TRIGGER ${TRIGGER} BEFORE UPDATE OF ${mark} ON ${tableName} FOR EACH ROW EXECUTE FUNCTION ${TRIGGER}()`
    );
    return async () => {
      await knex.raw(`DROP TRIGGER ${TRIGGER} ON ${tableName}`);
      await knex.raw(`DROP FUNCTION ${TRIGGER}()`);
    };
  }
  // MySQL and MariaDB cannot name the columns an UPDATE sets: the mark's UPDATE is the one that changes it.
  await knex.raw(
    `CREATE TRIGGER ${TRIGGER} BEFORE UPDATE ON ${tableName} FOR EACH ROW BEGIN
       IF NOT (NEW.${mark} <=> OLD.${mark}) THEN
         SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = '${MESSAGE}';
       END IF;
     END`
  );
  return async () => void (await knex.raw(`DROP TRIGGER ${TRIGGER}`));
}
