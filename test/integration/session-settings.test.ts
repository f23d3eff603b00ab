import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { testDatabaseClient } from '../helpers/databases';
import { useSite } from '../helpers/site';

/**
 * The plugin bounds its transactions' lock waits on the connection the site's pool lends it; on
 * MySQL and MariaDB that setting is the session's, so the connection must go back to the pool
 * with the session's own values: those the site's `pool.afterCreate` set, not the server's
 * defaults (the site's own transactions on that connection would then wait 50 s, or a day for a
 * table lock, where the site chose otherwise). PostgreSQL scopes the plugin's setting to its
 * transaction. A pool of one connection: the one the publish used is the one read after it.
 */
const SESSION_SETTINGS: Partial<Record<string, { set: string; read: string; expected: unknown }>> = {
  mariadb: {
    set: 'SET SESSION innodb_lock_wait_timeout = 7, lock_wait_timeout = 9',
    read: 'SELECT @@SESSION.innodb_lock_wait_timeout AS rowLocks, @@SESSION.lock_wait_timeout AS tableLocks',
    expected: { rowLocks: '7', tableLocks: '9' },
  },
  postgres: {
    set: "SET lock_timeout = '7s'",
    read: 'SHOW lock_timeout',
    expected: { lock_timeout: '7s' },
  },
};
const settings = SESSION_SETTINGS[testDatabaseClient()];

(settings ? describe : describe.skip)('a site that sets its connections’ lock waits', () => {
  const site = useSite(
    { DATABASE_POOL_MIN: '0', DATABASE_POOL_MAX: '1' },
    {
      beforeLoad(strapi) {
        strapi.config.set(
          'database.connection.pool.afterCreate',
          (
            connection: { query: (sql: string, done: (error: Error | null) => void) => void },
            done: (error: Error | null, connection: unknown) => void
          ) => {
            connection.query(settings!.set, (error) => done(error, connection));
          }
        );
      },
    }
  );

  const sessionSettings = async () => {
    const result = await site.strapi.db.connection.raw(settings!.read);
    const [row] = testDatabaseClient() === 'postgres' ? result.rows : result[0];
    // MariaDB hands the numbers back as text or numbers, by driver setting.
    return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, String(value)]));
  };

  test('gets them back after a publish, on the connection the publish ran on', async () => {
    expect(await sessionSettings()).toEqual(settings!.expected);
    const run = randomBytes(4).toString('hex');
    const reply = await site.send('POST', '/posts', {
      title: `Session settings ${run}`,
      content: '<p>Published on the only connection.</p>',
      status: 'publish',
      source_id: `session-settings-${run}`,
    });
    expect(reply.status).toBe(200);
    // The answers and the log are written after the reply, on the same connection.
    await sleep(400);
    expect(await sessionSettings()).toEqual(settings!.expected);
  });
});
