import { testDatabaseClient } from '../helpers/databases';
import {
  captureServerErrors,
  columnOf,
  documentsOf,
  snapshotTables,
  storageOf,
  tableOf,
  UIDS,
} from '../helpers/inspect';
import { useSite } from '../helpers/site';

const POST = UIDS.post;
/** A family emoji: four emoji joined by three zero-width joiners, 11 UTF-16 code units. */
const FAMILY = '👩‍👩‍👧‍👦';
/**
 * A site whose tables were made in latin1 exists only on MySQL and MariaDB. PostgreSQL's encoding
 * is the whole database's, and Strapi 5.54 does not start on a LATIN1 one: its first start stores
 * users-permissions' email templates, whose "’" LATIN1 lacks (measured: 22P05 at that insert).
 */
const describeOnMariadb = testDatabaseClient() === 'mariadb' ? describe : describe.skip;

describe('Unicode in contract bodies', () => {
  let serverErrors: string[];

  const site = useSite();
  beforeAll(async () => {
    serverErrors = captureServerErrors(site.strapi);
  });
  afterEach(() => {
    expect(serverErrors).toEqual([]);
  });

  it('publishes a title of emoji sequences longer than its column, cut before the first sequence that does not fit', async () => {
    // 1 + 30 × 11 code units; the 255-unit column ends one unit into the 24th family's first emoji.
    const title = `a${FAMILY.repeat(30)}`;
    const reply = await site.send('POST', '/posts', { title, content: '<p>Body.</p>', status: 'publish' });
    expect(reply).toMatchObject({ status: 200 });
    for (const status of ['draft', 'published'] as const) {
      const stored = await documentsOf(site.strapi, POST).findOne({ documentId: reply.body.id, status });
      expect((stored as { title?: string } | null)?.title).toBe(`a${FAMILY.repeat(23)}`);
    }
  });

  it('refuses a title whose first character alone is longer than its column, instead of storing an empty title', async () => {
    // One grapheme: an "e" with 300 combining accents, 301 UTF-16 units over the 255-unit column.
    const title = `e${'\u0301'.repeat(300)}`;
    const before = await documentsOf(site.strapi, POST).count({});
    const reply = await site.send('POST', '/posts', { title, content: '<p>Body.</p>', status: 'publish' });
    expect([reply.status, reply.body.error]).toEqual([
      400,
      expect.stringMatching(/^Invalid request: title: /),
    ]);
    expect(await documentsOf(site.strapi, POST).count({})).toBe(before);

    // An update too: the post keeps the title it has.
    const created = await site.send('POST', '/posts', {
      title: 'Kept',
      content: '<p>Body.</p>',
      status: 'draft',
    });
    expect([created.status, created.body.error]).toEqual([200, undefined]);
    const update = await site.send('PUT', `/posts/${created.body.id}`, { title });
    expect([update.status, update.body.error]).toEqual([
      400,
      expect.stringMatching(/^Invalid request: title: /),
    ]);
    const stored = await documentsOf(site.strapi, POST).findOne({ documentId: created.body.id });
    expect((stored as { title?: string } | null)?.title).toBe('Kept');
  });

  it('refuses a lone surrogate with a 400 naming the field, and stores nothing', async () => {
    const before = await documentsOf(site.strapi, POST).count({});
    const reply = await site.send('POST', '/posts', {
      title: 'Half an emoji \uD83D',
      content: '<p>Body.</p>',
      status: 'publish',
    });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: expect.stringMatching(/^Invalid request: title .*surrogate/) });
    const update = await site.send('PUT', '/posts/none', { seo: { description: 'cut \uDE00 here' } });
    expect(update.status).toBe(400);
    expect(update.body.error).toMatch(/^Invalid request: seo\.description /);
    expect(await documentsOf(site.strapi, POST).count({})).toBe(before);
  });
});

describeOnMariadb('text a latin1 column cannot hold (MariaDB only: run with npm run test:mariadb)', () => {
  const site = useSite();

  it('answers 400 naming the column when latin1 columns cannot hold a name or a title, and changes nothing', async () => {
    const knex = site.strapi.db.connection;
    const category = storageOf(site.strapi, 'blogCategory');
    const post = storageOf(site.strapi, 'post');
    const columns = [
      {
        table: tableOf(site.strapi, category.uid),
        column: columnOf(site.strapi, category.uid, category.nameField),
      },
      {
        table: tableOf(site.strapi, post.uid),
        column: columnOf(site.strapi, post.uid, post.attribute('title')),
      },
    ];
    const definitions = await Promise.all(
      columns.map(async ({ table, column }) => {
        const [[found]] = await knex.raw(
          'SELECT COLUMN_TYPE AS type, COLLATION_NAME AS collation, IS_NULLABLE AS nullable FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND COLUMN_NAME = ?',
          [table, column]
        );
        return { table, column, ...found } as {
          table: string;
          column: string;
          type: string;
          collation: string;
          nullable: string;
        };
      })
    );
    const collate = (collationOf: (original: string) => string) =>
      Promise.all(
        definitions.map(({ table, column, type, collation: original, nullable }) => {
          const collation = collationOf(original);
          const charset = collation.split('_')[0];
          const nulls = nullable === 'YES' ? 'NULL' : 'NOT NULL';
          return knex.raw(
            `ALTER TABLE ?? MODIFY ?? ${type} CHARACTER SET ${charset} COLLATE ${collation} ${nulls}`,
            [table, column]
          );
        })
      );
    const refused = (place: string) => [
      400,
      expect.stringMatching(
        new RegExp(
          `^The site's database cannot store some characters of this request's text: ${place} holds a character set without them .*utf8mb4`
        )
      ),
    ];

    // Tables made where latin1 was the server's default.
    await collate(() => 'latin1_swedish_ci');
    try {
      const before = await snapshotTables(site.strapi);
      const body = { title: 'Tokyo', content: '<p>Body.</p>', status: 'publish' };
      // The search by name compares the column with the name: an illegal mix of collations.
      for (const categories of [['日本'], ['Travel', '東京 🗼']]) {
        const reply = await site.send('POST', '/posts', { ...body, categories });
        expect([reply.status, reply.body.error]).toEqual(refused('a column of collation latin1_swedish_ci'));
      }
      // The title is stored without a comparison: an incorrect string value for its column.
      const titled = await site.send('POST', '/posts', { ...body, title: 'Ελλάδα' });
      expect([titled.status, titled.body.error]).toEqual(
        refused(`the column ${definitions[1].table}\\.${definitions[1].column}`)
      );
      expect(await snapshotTables(site.strapi)).toEqual(before);

      // Latin text goes on being stored in those columns.
      const latin = await site.send('POST', '/posts', { ...body, title: 'Café', categories: ['Crème'] });
      expect([latin.status, latin.body.error]).toEqual([200, undefined]);
    } finally {
      await collate((original) => original);
    }
  });
});
