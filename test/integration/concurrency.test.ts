import { randomBytes } from 'node:crypto';
import { type Reply, serviceOf, useSite } from '../helpers/site';
import { testDatabaseClient } from '../helpers/databases';
import {
  captureServerErrors,
  countBy,
  distinctDocuments,
  documentsOf,
  identityRows,
  rowsNamed,
  rowsOf,
  storageOf,
  withoutRequestId,
} from '../helpers/inspect';
import { recordTally, serverErrorsIn } from '../helpers/tally';
import { storedKey } from '../../server/src/services/publishing/identities';

/**
 * Simultaneous requests that name the same new thing must create it once. SQLite serialises
 * writes and hides races, so these tests matter on PostgreSQL and MariaDB (TEST_DB). They run
 * with the example's own blog types (the default) and with the plugin's types, where tags are
 * entities too.
 */
const PARALLEL = 50;
const db = testDatabaseClient();

const unique = () => randomBytes(4).toString('hex');
const caseVariant = (name: string, index: number) =>
  [name, name.toLowerCase(), name.toUpperCase()][index % 3];
const inParallel = (count: number, request: (index: number) => Promise<Reply>) =>
  Promise.all(Array.from({ length: count }, (_, index) => request(index)));

describe.each(['site', 'plugin'])(`concurrent creates on ${db}, %s content types`, (contentTypes) => {
  let serverErrors: string[];
  const site = useSite({ PUBLISH_BRIDGE_CONTENT_TYPES: contentTypes });
  beforeAll(async () => {
    serverErrors = captureServerErrors(site.strapi);
  });
  beforeEach(() => {
    serverErrors.length = 0;
  });

  const tally = (test: string, replies: Reply[], duplicates: number) =>
    recordTally({
      test: `${test} (${contentTypes} types)`,
      requests: replies.length,
      duplicates,
      serverErrors: serverErrorsIn(replies),
    });

  /** Fails with a digest (statuses and the distinct causes the server logged) instead of 50 copies. */
  function expectNoFailures(replies: Reply[]) {
    expect({
      failures: countBy(replies.filter((reply) => reply.status !== 200).map((reply) => reply.status)),
      serverErrors: countBy(serverErrors.map(withoutRequestId)),
    }).toEqual({ failures: {}, serverErrors: {} });
  }

  function expectAllOkWithOneId(replies: Reply[]) {
    expectNoFailures(replies);
    const ids = new Set(replies.map((reply) => reply.body.id));
    expect(ids.size).toBe(1);
    return [...ids][0] as string;
  }

  test(`${PARALLEL} simultaneous publishes of one new source_id make one post`, async () => {
    const post = storageOf(site.strapi, 'post');
    const sourceId = `src-${unique()}`;
    const replies = await inParallel(PARALLEL, (index) =>
      site.send('POST', '/posts', {
        title: `Race ${sourceId} #${index}`,
        content: `<p>attempt ${index}</p>`,
        status: 'publish',
        source_id: sourceId,
      })
    );
    const id = expectAllOkWithOneId(replies);

    const documents = await documentsOf(site.strapi, post.uid).findMany({
      filters: { [post.attribute('source_id')]: sourceId },
      fields: ['documentId'],
    });
    const rows = (await rowsOf(site.strapi, post.uid)).filter(
      (row) => row[post.attribute('source_id')] === sourceId
    );
    const links = (await identityRows(site.strapi, post.registry)).filter(
      (row) => row.naturalKey === storedKey(`source:${sourceId}`)
    );
    tally('posts by source_id', replies, distinctDocuments(rows).size - 1);

    expect(documents.map((document: any) => document.documentId)).toEqual([id]);
    expect(distinctDocuments(rows)).toEqual(new Set([id]));
    // One draft row and one published row: the post was published, never duplicated.
    expect(rows).toHaveLength(2);
    expect(links.map((row) => row.target)).toEqual([id]);
    // Every request after the first applied its body to that post: the last write won whole.
    const published: any = await documentsOf(site.strapi, post.uid).findOne({
      documentId: id,
      status: 'published',
    });
    const winner = Number(/#(\d+)$/.exec(published[post.attribute('title')])?.[1]);
    expect(winner).toBeGreaterThanOrEqual(0);
    expect(JSON.stringify(published[post.attribute('content')]).match(/attempt \d+/g)).toEqual([
      `attempt ${winner}`,
    ]);
  });

  test(`${PARALLEL} parallel posts sharing new category, tag and author names (mixed case) create each name once`, async () => {
    const post = storageOf(site.strapi, 'post');
    const run = unique();
    const categories = [`News ${run}`, `World Affairs ${run}`];
    const tag = `Breaking ${run}`;
    const author = `Jane Doe ${run}`;
    const replies = await inParallel(PARALLEL, (index) =>
      site.send('POST', '/posts', {
        title: `Shared names ${run} ${index}`,
        content: '<p>body</p>',
        status: 'publish',
        source_id: `shared-${run}-${index}`,
        // Reversed on odd requests: transactions naming the same entities in opposite orders must not deadlock.
        categories: (index % 2 ? [...categories].reverse() : categories).map((name) =>
          caseVariant(name, index)
        ),
        tags: [caseVariant(tag, index + 1)],
        author: caseVariant(author, index + 2),
      })
    );
    expectNoFailures(replies);
    expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(PARALLEL);

    // Each name that becomes an entity (tags only where they are a relation) exists once.
    const named: Array<{ field: string; kind: 'blogCategory' | 'tag' | 'author'; name: string }> = [
      ...categories.map((name) => ({ field: 'categories', kind: 'blogCategory' as const, name })),
      { field: 'tags', kind: 'tag', name: tag },
      { field: 'author', kind: 'author', name: author },
    ];
    const entities = named.filter(({ field }) => post.isRelation(field));
    const rows = await Promise.all(
      entities.map(({ kind, name }) => {
        const target = storageOf(site.strapi, kind);
        return rowsNamed(site.strapi, target.uid, target.nameField, name);
      })
    );
    tally(
      'categories, tags and authors named by parallel posts',
      replies,
      rows.reduce((sum, found) => sum + Math.max(0, found.length - 1), 0)
    );
    expect(entities.map(({ field }) => field)).toEqual(expect.arrayContaining(['categories', 'author']));
    for (const [index, found] of rows.entries()) {
      expect([entities[index].name, found.length]).toEqual([entities[index].name, 1]);
    }

    // Every post links to those very entities, each once.
    const populate = Object.fromEntries(
      [...new Set(entities.map(({ field }) => post.attribute(field)))].map((attribute) => [
        attribute,
        { fields: ['documentId'] },
      ])
    );
    const posts = (await documentsOf(site.strapi, post.uid).findMany({
      filters: { [post.attribute('source_id')]: { $startsWith: `shared-${run}-` } },
      populate,
      limit: PARALLEL * 2,
    })) as any[];
    expect(posts).toHaveLength(PARALLEL);
    const idOf = (kind: string, name: string) =>
      rows[entities.findIndex((entity) => entity.kind === kind && entity.name === name)][0].documentId;
    for (const stored of posts) {
      const categoryIds = stored[post.attribute('categories')].map((category: any) => category.documentId);
      expect(new Set(categoryIds)).toEqual(new Set(categories.map((name) => idOf('blogCategory', name))));
      expect(categoryIds).toHaveLength(categories.length);
      expect(stored[post.attribute('author')].documentId).toBe(idOf('author', author));
      if (post.isRelation('tags')) {
        expect(stored[post.attribute('tags')].map((entry: any) => entry.documentId)).toEqual([
          idOf('tag', tag),
        ]);
      }
    }
  });

  test(`${PARALLEL} simultaneous POST /blog-categories with one name in mixed case make one category`, async () => {
    const category = storageOf(site.strapi, 'blogCategory');
    const name = `Tech Talk ${unique()}`;
    const replies = await inParallel(PARALLEL, (index) =>
      site.send('POST', '/blog-categories', { name: caseVariant(name, index), description: 'parallel' })
    );
    const id = expectAllOkWithOneId(replies);
    const rows = await rowsNamed(site.strapi, category.uid, category.nameField, name);
    tally('blog categories by name', replies, rows.length - 1);
    expect(rows.map((row) => row.documentId)).toEqual([id]);
  });

  test(`${PARALLEL} simultaneous POST /authors with one email make one author`, async () => {
    const authors = storageOf(site.strapi, 'author');
    const run = unique();
    const email = `writer-${run}@example.com`;
    const replies = await inParallel(PARALLEL, (index) =>
      site.send('POST', '/authors', {
        email,
        username: `writer-${run}`,
        display_name: caseVariant(`Writer ${run}`, index),
      })
    );
    const id = expectAllOkWithOneId(replies);
    const rows = (await rowsOf(site.strapi, authors.uid)).filter(
      (row) => String(row[authors.attribute('email')]).toLowerCase() === email
    );
    tally('authors by email', replies, rows.length - 1);
    expect(rows.map((row) => row.documentId)).toEqual([id]);
  });

  test(`${PARALLEL} simultaneous POST /product-categories with one source_id make one product category`, async () => {
    const productCategory = storageOf(site.strapi, 'productCategory');
    const run = unique();
    const sourceId = `pcat-${run}`;
    const replies = await inParallel(PARALLEL, (index) =>
      site.send('POST', '/product-categories', {
        name: caseVariant(`Garden Tools ${run}`, index),
        source_id: sourceId,
      })
    );
    const id = expectAllOkWithOneId(replies);
    const rows = (await rowsOf(site.strapi, productCategory.uid)).filter(
      (row) => row[productCategory.attribute('source_id')] === sourceId
    );
    tally('product categories by source_id', replies, distinctDocuments(rows).size - 1);
    expect(distinctDocuments(rows)).toEqual(new Set([id]));
  });

  describe('names and keys compare the same way on every database', () => {
    async function categoriesOf(documentId: string): Promise<string[]> {
      const post = storageOf(site.strapi, 'post');
      const category = storageOf(site.strapi, 'blogCategory');
      const stored: any = await documentsOf(site.strapi, post.uid).findOne({
        documentId,
        populate: { [post.attribute('categories')]: { fields: [category.nameField] } },
      });
      return stored[post.attribute('categories')].map((entry: any) => entry[category.nameField]);
    }

    test('names equal once case and spacing are folded share one entity', async () => {
      const category = storageOf(site.strapi, 'blogCategory');
      const run = unique();
      const spellings = [`Café Crème ${run}`, `CAFÉ CRÈME ${run}`, `  café   crème ${run} `];
      const replies = [];
      for (const [index, spelling] of spellings.entries()) {
        replies.push(
          await site.send('POST', '/posts', {
            title: `Folding ${run} ${index}`,
            content: '<p>x</p>',
            status: 'draft',
            categories: [spelling],
          })
        );
      }
      expectNoFailures(replies);
      expect(await rowsNamed(site.strapi, category.uid, category.nameField, spellings[0])).toHaveLength(1);
      const names = await Promise.all(replies.map((reply) => categoriesOf(reply.body.id)));
      expect(names).toEqual([[spellings[0]], [spellings[0]], [spellings[0]]]);
    });

    test('names that differ beyond case (accents, ß) stay distinct', async () => {
      // MariaDB's default collations treat "resume" = "résumé" and "strasse" = "straße".
      const run = unique();
      const names = [`Resume ${run}`, `Résumé ${run}`, `Strasse ${run}`, `Straße ${run}`];
      const reply = await site.send('POST', '/posts', {
        title: `Distinct ${run}`,
        content: '<p>x</p>',
        status: 'draft',
        categories: names,
      });
      expectNoFailures([reply]);
      expect(await categoriesOf(reply.body.id)).toEqual(names);
    });

    test('source_ids are exact: "Item", "item" and "ITEM" are three pieces of content', async () => {
      const run = unique();
      const replies = [];
      for (const sourceId of [`Item-${run}`, `item-${run}`, `ITEM-${run}`]) {
        replies.push(
          await site.send('POST', '/posts', {
            title: sourceId,
            content: '<p>x</p>',
            status: 'draft',
            source_id: sourceId,
          })
        );
      }
      expectNoFailures(replies);
      expect(new Set(replies.map((reply) => reply.body.id)).size).toBe(3);
    });

    test('a name as long as the contract allows (255 characters) is stored and found again', async () => {
      const category = storageOf(site.strapi, 'blogCategory');
      const name = `${unique()}-${'n'.repeat(246)}`;
      expect(name).toHaveLength(255);
      const first = await site.send('POST', '/posts', {
        title: 'Long name 1',
        content: '<p>x</p>',
        status: 'draft',
        categories: [name],
      });
      const second = await site.send('POST', '/posts', {
        title: 'Long name 2',
        content: '<p>x</p>',
        status: 'draft',
        categories: [name.toUpperCase()],
      });
      expectNoFailures([first, second]);
      expect(await rowsNamed(site.strapi, category.uid, category.nameField, name)).toHaveLength(1);
    });
  });
});

// The isolation level is MariaDB's question: SQLite has one writer and PostgreSQL reads at READ COMMITTED by default.
const describeOnMariadb = db === 'mariadb' ? describe : describe.skip;

describeOnMariadb('transactions on MariaDB (MariaDB only: run with npm run test:mariadb)', () => {
  const site = useSite();

  /** Whether a transaction's second read sees a row committed by another connection after its first read. */
  const seesCommitsMadeMeanwhile = async (trx: any) => {
    const table = 'publish_bridge_identities';
    const count = async () => Number((await trx(table).count({ rows: '*' }))[0].rows);
    const before = await count();
    const now = new Date();
    await site.strapi.db.connection(table).insert({
      resource: 'isolation_probe',
      natural_key: randomBytes(8).toString('hex'),
      target: 'none',
      created_at: now,
      updated_at: now,
    });
    return (await count()) > before;
  };

  test("the plugin's transactions read at READ COMMITTED, and Strapi's own keep the server's default", async () => {
    const plugin = await serviceOf(site, 'transactions').run(({ trx }: any) => seesCommitsMadeMeanwhile(trx));
    const strapis = await site.strapi.db.transaction(({ trx }) => seesCommitsMadeMeanwhile(trx));
    // REPEATABLE READ keeps the first read's snapshot; READ COMMITTED sees the new row.
    expect({ plugin, strapis }).toEqual({ plugin: true, strapis: false });
  });
});
