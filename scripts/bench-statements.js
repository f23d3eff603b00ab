#!/usr/bin/env node
/**
 * `npm run bench:statements`: how many SQL statements each request of the bench runs, and which.
 * Time is no measure on a shared machine; a count of statements is the same on every run.
 *
 *   node scripts/bench-statements.js                  SQLite (a fresh temporary file)
 *   --db postgres | mariadb                           a fresh database, as the bench makes it
 *   --items 5000                                      published items filled in before D (the bench's 100,000 take minutes)
 *   --requests 5                                      requests per side; the table shows the mean of each
 *   --site-connections 2                              the site has that many connections (as the bench's option)
 *   --keep-database                                   leave the database in place, to EXPLAIN its statements
 *   --dump DIR                                        write each request's statements to DIR, a file a request
 *
 * The example site is booted as the bench boots it (scripts/bench/setup.js, `strapi start`), with
 * count-statements.js preloaded into the server: it writes each statement Strapi's knex connection
 * runs to a file. Requests go one at a time; a request's statements are those written between
 * sending it and its answer ("in request"), and those written in the SETTLE_MS after ("after":
 * the activity log, receipts, anything deferred). Scenarios are the bench's: A create, B full
 * publish (categories, tags, author, SEO), C content update, each beside the native /api/articles
 * write of the same post, and D: page 1, page items/100 asked alone (by offset), and the same page
 * walked (right after the page before, as the publisher's sync asks, so from that page's last key).
 */
'use strict';

const { randomBytes } = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { setTimeout: sleep } = require('node:timers/promises');
const { createDatabase, isClient } = require('./lib/databases');
const { ensureBuilds } = require('./lib/example-site');
const { runNode, startServer } = require('./bench/server');
const { benchEnv, clients, expectStatus, nativeRelated, probe, send } = require('./bench/requests');
const workload = require('./bench/workload');

/** @typedef {import('./bench/measure').Request} Request */

const KEY = `pb_bench_${randomBytes(16).toString('hex')}`;
/** Long enough for the activity log's batch (200 ms) and a receipt's write to land. */
const SETTLE_MS = 600;
/** D's page size, as the bench's D asks. */
const PER_PAGE = 100;

/** @param {string[]} argv */
function parseArguments(argv) {
  const options = {
    db: /** @type {import('./lib/databases').Client} */ ('sqlite'),
    items: 5_000,
    requests: 5,
    siteConnections: 1,
    keepDatabase: false,
    /** @type {string | undefined} */
    dump: undefined,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const given = argv[i];
    const [flag, inline] = given.split(/=(.*)/s);
    if (flag === '--keep-database') {
      options.keepDatabase = true;
      continue;
    }
    const value = inline ?? argv[(i += 1)];
    if (flag === '--db' && isClient(value)) options.db = value;
    else if (flag === '--dump' && value) options.dump = path.resolve(value);
    else if ((flag === '--items' || flag === '--requests') && /^\d+$/.test(value))
      options[flag === '--items' ? 'items' : 'requests'] = Number(value);
    else if (flag === '--site-connections' && /^[1-9]\d*$/.test(value))
      options.siteConnections = Number(value);
    else
      throw new Error(
        `Unknown option or value: ${given} ${inline === undefined ? (value ?? '') : ''} (see the top of ${__filename}).`
      );
  }
  if (options.items < 200)
    throw new Error('--items must be at least 200: D reads page items/100 of 100 items.');
  return options;
}

const progress = (/** @type {string} */ message) => process.stderr.write(`[statements] ${message}\n`);

/**
 * What a statement does and to which table: its first word (select, insert, begin...) and the
 * first table it names after from, into, update or join, without its schema (PostgreSQL's
 * public.), the first member's for a union.
 * @param {string} sql
 */
function kindOf(sql) {
  const verb = /^\s*\(?\s*(\w+)/.exec(sql)?.[1]?.toLowerCase() ?? '?';
  const table = /\b(?:from|into|update|join)\s+(?:[`"]?\w+[`"]?\.)?[`"]?(\w+)/i.exec(sql)?.[1];
  return table ? `${verb} ${table}` : verb;
}

/**
 * The statements appended to `file` since the last read: whole lines only, counted in bytes, since
 * the server may be writing the next statement (its characters several bytes each) as this reads.
 */
function statementReader(/** @type {string} */ file) {
  let offset = 0;
  return () => {
    const bytes = fs.readFileSync(file);
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end <= offset) return [];
    const added = bytes.subarray(offset, end).toString('utf8');
    offset = end;
    return added
      .split('\n')
      .filter(Boolean)
      .map((line) => /** @type {string} */ (JSON.parse(line)));
  };
}

/** @typedef {{ side: string; requests: number; during: Map<string, number>; after: Map<string, number> }} Counted */

/**
 * @param {Map<string, number>} counts
 * @param {string[]} statements
 */
function tally(counts, statements) {
  for (const sql of statements) counts.set(kindOf(sql), (counts.get(kindOf(sql)) ?? 0) + 1);
}

/**
 * Writes one request's statements to a file of their own in `directory`, named after the request.
 * @param {string} directory
 * @param {string} name
 * @param {string[]} during
 * @param {string[]} after
 */
function dumpStatements(directory, name, during, after) {
  fs.mkdirSync(directory, { recursive: true });
  const file = path.join(directory, `${name.replace(/[^\w.-]+/g, '_')}.sql`);
  fs.writeFileSync(
    file,
    [...during, '-- after the answer', ...after].map((sql) => `${sql};`).join('\n') + '\n'
  );
}

const total = (/** @type {Map<string, number>} */ counts) => [...counts.values()].reduce((a, b) => a + b, 0);

/**
 * @param {Counted[]} rows
 * @param {{ database: string; items: number }} about
 */
function report(rows, { database, items }) {
  const per = (/** @type {number} */ n, /** @type {number} */ requests) =>
    String(Number((n / requests).toFixed(1)));
  const lines = [
    '',
    `Statements per request: ${database}, ${items.toLocaleString('en-US')} items filled in before D`,
    '',
  ];
  lines.push(
    `${'side'.padEnd(44)}${'total'.padStart(6)}${'in request'.padStart(11)}${'after'.padStart(7)}  by kind and table, in request (after)`
  );
  lines.push('-'.repeat(120));
  for (const { side, requests, during, after } of rows) {
    const kinds = [...new Set([...during.keys(), ...after.keys()])].sort(
      (a, b) => (during.get(b) ?? 0) - (during.get(a) ?? 0) || a.localeCompare(b)
    );
    const breakdown = kinds
      .map((kind) => {
        const late = after.get(kind);
        return `${kind} ${per(during.get(kind) ?? 0, requests)}${late ? ` (${per(late, requests)})` : ''}`;
      })
      .join(', ');
    lines.push(
      `${side.padEnd(44)}${per(total(during) + total(after), requests).padStart(6)}${per(total(during), requests).padStart(11)}${per(total(after), requests).padStart(7)}  ${breakdown}`
    );
  }
  lines.push('');
  return lines.join('\n');
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  const database = await createDatabase(options.db, 'pb_bench');
  const env = benchEnv(database.env, KEY, options.siteConnections);
  const stamp = `${process.pid}-${Date.now()}`;
  const resultFile = path.join(os.tmpdir(), `pb-statements-setup-${stamp}.json`);
  const statementsFile = path.join(os.tmpdir(), `pb-statements-${stamp}.jsonl`);
  /** @type {import('./bench/server').Server | undefined} */
  let server;
  /** @type {(items: number, ...flags: string[]) => Promise<{ apiToken: string }>} */
  const setup = async (items, ...flags) => {
    await runNode([path.join(__dirname, 'bench', 'setup.js'), resultFile, String(items), ...flags], env);
    return JSON.parse(fs.readFileSync(resultFile, 'utf8'));
  };
  const start = async () => {
    fs.writeFileSync(statementsFile, '');
    server = await startServer(env, { statementsFile });
    return { baseUrl: server.baseUrl, read: statementReader(statementsFile) };
  };
  try {
    await ensureBuilds({
      env,
      run: (command, args, spawnOptions) => {
        const { status } = require('node:child_process').spawnSync(command, args, {
          ...spawnOptions,
          stdio: ['ignore', 2, 2],
        });
        if (status !== 0) throw new Error(`${[command, ...args].join(' ')} failed (exit ${status}).`);
      },
      log: progress,
    });
    progress(`${database.label}: creating the schema and an API token...`);
    const { apiToken } = await setup(0);
    let { baseUrl, read } = await start();
    const client = clients(apiToken, KEY);
    const { blocks } = await probe(baseUrl, client);
    const related = await nativeRelated(baseUrl, client);
    const runTag = randomBytes(3).toString('hex');
    let counter = 0;
    const next = () => (counter += 1);
    /** @type {Counted[]} */
    const rows = [];

    /**
     * Sends `options.requests` requests one at a time, counting each one's statements.
     * @param {string} side
     * @param {() => Request} request
     * @param {number[]} expect
     */
    const count = async (side, request, expect) => {
      progress(side);
      const row = { side, requests: options.requests, during: new Map(), after: new Map() };
      for (let i = 0; i < options.requests; i += 1) {
        // Whatever ran since the last request's settling is no request's.
        read();
        expectStatus(await send(baseUrl, request()), expect, side);
        const during = read();
        await sleep(SETTLE_MS);
        const after = read();
        tally(row.during, during);
        tally(row.after, after);
        if (options.dump) dumpStatements(options.dump, `${side} ${i + 1}`, during, after);
      }
      rows.push(row);
    };

    await count(
      'A create: POST /posts',
      () => client.plugin('POST', '/posts', workload.createBody(runTag, next())),
      [200]
    );
    await count(
      'A create: POST /api/articles',
      () => client.native('POST', '/api/articles', workload.nativeCreateData(runTag, next(), blocks)),
      [201]
    );
    await count(
      'B full publish: POST /posts',
      () => client.plugin('POST', '/posts', workload.fullCreateBody(runTag, next())),
      [200]
    );
    await count(
      'B full publish: POST /api/articles',
      () =>
        client.native(
          'POST',
          '/api/articles',
          workload.nativeFullData(runTag, next(), { blocks, ...related })
        ),
      [201]
    );

    const sourceId = `bench-${runTag}-update`;
    const updated = expectStatus(
      await send(
        baseUrl,
        client.plugin('POST', '/posts', { ...workload.createBody(runTag, next()), source_id: sourceId })
      ),
      [200],
      'C: the post to update'
    ).id;
    const nativeUpdated = expectStatus(
      await send(
        baseUrl,
        client.native('POST', '/api/articles', {
          title: `Bench ${runTag} update`,
          slug: `bench-${runTag}-update`,
          content: blocks,
        })
      ),
      [201],
      'C: the native article to update'
    ).data.documentId;
    await count(
      'C content update: PUT /posts/{id}',
      () => {
        const n = next();
        return client.plugin('PUT', `/posts/${updated}`, {
          content: workload.revisionHtml(n) + workload.HTML,
          source_id: sourceId,
        });
      },
      [200]
    );
    await count(
      'C content update: PUT /api/articles/{id}',
      () =>
        client.native('PUT', `/api/articles/${nativeUpdated}`, {
          content: [workload.revisionBlock(next()), ...blocks],
        }),
      [200]
    );

    // In the full bench, A to C leave thousands of posts before the fill, so its page 1 holds the
    // site's own posts only and its far pages the fill's mix of three types; so here too.
    progress(`publishing ${PER_PAGE} more posts, so page 1 holds the site's own posts only...`);
    for (let i = 0; i < PER_PAGE; i += 1)
      expectStatus(
        await send(baseUrl, client.plugin('POST', '/posts', workload.createBody(runTag, next()))),
        [200],
        'A post before the fill'
      );
    await /** @type {import('./bench/server').Server} */ (server).stop();
    progress(
      `D: adding ${options.items} published posts, categories and products with the server stopped...`
    );
    await setup(options.items, '--no-token');
    ({ baseUrl, read } = await start());
    const far = Math.floor(options.items / PER_PAGE);
    const page = (/** @type {number} */ n) => () =>
      client.plugin('GET', `/pages?per_page=${PER_PAGE}&page=${n}`);
    await count('D list: GET /pages page 1', page(1), [200]);
    await count(`D list: GET /pages page ${far} alone`, page(far), [200]);
    // As the bench's D walks: the page before once, then the walked page again and again from its key.
    expectStatus(await send(baseUrl, page(far - 1)()), [200], `page ${far - 1}`);
    await count(`D list: GET /pages page ${far} walked`, page(far), [200]);

    process.stdout.write(report(rows, { database: database.label, items: options.items }));
  } finally {
    if (server) await server.stop();
    for (const file of [resultFile, statementsFile]) fs.rmSync(file, { force: true });
    if (options.keepDatabase) progress(`kept the database: ${JSON.stringify(database.env)}`);
    else
      await database.drop().catch((error) => progress(`could not drop the bench database: ${error.message}`));
  }
}

main().catch((error) => {
  process.stderr.write(`\n[statements] ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
