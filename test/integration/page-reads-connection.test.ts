import { serviceOf, useSite } from '../helpers/site';
import { listenToLog } from '../helpers/inspect';
import { testDatabaseClient } from '../helpers/databases';

// On SQLite the page list reads through a read-only connection of its own (pages.test shows why);
// these sites are SQLite's alone, each started for its own block.

/** A better-sqlite3 connection, as the site's database config is handed each one its pool opens. */
type PreparedConnection = {
  open: boolean;
  pragma(source: string, options: { simple: true }): unknown;
  close(): void;
};

/**
 * A site whose database config prepares each SQLite connection (`pool.afterCreate`), as a site
 * does to set an encryption key or a function a connection without them could not read with; it
 * records the connections it prepared and the warnings logged. `refusal` is what its preparation
 * answers for the connection opened after `prepared` others (none: it prepares it).
 */
function usePreparingSite(refusal: (prepared: number) => Error | null = () => null) {
  const prepared: PreparedConnection[] = [];
  const warnings: string[] = [];
  const site = useSite(
    {},
    {
      beforeLoad(strapi) {
        strapi.config.set(
          'database.connection.pool.afterCreate',
          (
            connection: PreparedConnection,
            done: (error: Error | null, connection: PreparedConnection) => void
          ) => {
            const refused = refusal(prepared.length);
            if (!refused) prepared.push(connection);
            done(refused, connection);
          }
        );
        listenToLog(strapi, 'warn', (message) => void warnings.push(message));
      },
    }
  );
  return {
    site,
    prepared,
    /** The read-only connections prepared: the page list's own. */
    readOnly: () => prepared.filter((connection) => connection.pragma('query_only', { simple: true }) === 1),
    fallbackWarnings: () =>
      warnings.filter((message) => message.includes("reads through the site's connection")),
  };
}

(testDatabaseClient() === 'sqlite' ? describe : describe.skip)(
  'a site that prepares its SQLite connections',
  () => {
    const preparing = usePreparingSite();

    test("the page list's own connection is prepared as the site's are; when it fails, pages read through the site's", async () => {
      const first = await preparing.site.send('GET', '/pages?per_page=5');
      expect(first.status).toBe(200);
      const [own, ...more] = preparing.readOnly();
      expect(own).toBeDefined();
      expect(more).toHaveLength(0);

      // What a connection the site's setup did not reach meets: every read on it fails.
      own.close();
      expect(await preparing.site.send('GET', '/pages?per_page=5')).toMatchObject({
        status: 200,
        body: first.body,
      });
      expect(await preparing.site.send('GET', '/pages?per_page=5')).toMatchObject({
        status: 200,
        body: first.body,
      });
      expect(preparing.fallbackWarnings()).toHaveLength(1);
    });
  }
);

(testDatabaseClient() === 'sqlite' ? describe : describe.skip)('a site whose plugin has stopped', () => {
  const preparing = usePreparingSite();

  test("a page reads through the site's connection and opens no other", async () => {
    // Opened as Strapi started, before any page was asked.
    expect(preparing.readOnly()).toHaveLength(1);
    // Strapi destroys plugins before it closes its HTTP server: a page can still arrive.
    await serviceOf(preparing.site, 'pages').stop();
    expect((await preparing.site.send('GET', '/pages?per_page=5')).status).toBe(200);
    expect((await preparing.site.send('GET', '/pages?per_page=5')).status).toBe(200);
    expect(preparing.prepared.filter((connection) => connection.open)).toHaveLength(1);
    expect(preparing.fallbackWarnings()).toHaveLength(0);
  });
});

(testDatabaseClient() === 'sqlite' ? describe : describe.skip)(
  "a site whose preparation refuses the page list's connection",
  () => {
    const preparing = usePreparingSite((prepared) =>
      prepared > 0 ? new Error('the key store answered no') : null
    );

    test("pages read through the site's connection, and the start says why once", async () => {
      expect((await preparing.site.send('GET', '/pages?per_page=5')).status).toBe(200);
      expect((await preparing.site.send('GET', '/pages?per_page=5')).status).toBe(200);
      expect(preparing.prepared).toHaveLength(1);
      expect(preparing.fallbackWarnings()).toEqual([
        expect.stringContaining('did not open (the key store answered no)'),
      ]);
    });
  }
);
