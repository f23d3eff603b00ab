import fc from 'fast-check';
import { PREFIX, serviceOf, useSite } from '../helpers/site';
import { testDatabaseClient } from '../helpers/databases';
import {
  captureServerErrors,
  countBy,
  documentsOf,
  identityRows,
  type Kind,
  rowsOf,
  storageOf,
  withoutRequestId,
} from '../helpers/inspect';
import { signedHeaders, TEST_KEY } from '../helpers/signing';
import { recordTally } from '../helpers/tally';

/**
 * Property tests over real signed HTTP: whatever the body, the site answers 2xx or 4xx with
 * `{ error }`, never 5xx and never hangs; whatever is changed in a signed request, it answers
 * 401; and after each property the tables hold nothing half-written. Each property runs RUNS
 * times on every database, however long that takes. Every run prints its seed: FUZZ_SEED=<seed>
 * replays it (a failure also prints fast-check's path), FUZZ_RUNS=<n> changes the number of runs.
 */
const db = testDatabaseClient();
const REQUEST_TIMEOUT_MS = 30_000;
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const SEED = process.env.FUZZ_SEED === undefined ? Date.now() % 2 ** 31 : Number(process.env.FUZZ_SEED);
const KINDS: Kind[] = ['post', 'blogCategory', 'tag', 'author', 'product', 'productCategory'];

let serverErrors: string[];
let existingPostId: string;
const site = useSite();
beforeAll(async () => {
  serverErrors = captureServerErrors(site.strapi);
  const created = await site.send('POST', '/posts', {
    title: 'Fuzz target',
    content: '<p>updated by the fuzzer</p>',
    status: 'publish',
    source_id: 'fuzz-target',
  });
  expect(created.status).toBe(200);
  existingPostId = created.body.id;
});

type Sent = { method: string; path: string; body: Buffer; headers: Record<string, string> };
type Answer = { status: number; text: string };

async function deliver({ method, path, body, headers }: Sent): Promise<Answer> {
  const response = await fetch(`${site.baseUrl}${PREFIX}${path}`, {
    method,
    headers,
    body: body.length > 0 ? body : undefined,
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  return { status: response.status, text: await response.text() };
}

const signed = (method: string, path: string, body: Buffer): Sent => ({
  method,
  path,
  body,
  headers: { ...(body.length > 0 ? { 'Content-Type': 'application/json' } : {}), ...signedHeaders(body) },
});

const parse = (text: string) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
};

/**
 * What no request may leave behind, read from the tables: per document at most one draft and one
 * published row and never a published row without its draft, one document per `source_id`, and
 * no identity pointing at a document that does not exist.
 */
async function expectConsistentTables() {
  const problems: string[] = [];
  for (const kind of KINDS) {
    const storage = storageOf(site.strapi, kind);
    const draftAndPublish = Boolean((site.strapi.contentTypes as any)[storage.uid].options?.draftAndPublish);
    const rows = await rowsOf(site.strapi, storage.uid);
    const versions = new Map<string, { drafts: number; published: number }>();
    for (const row of rows) {
      const counts = versions.get(row.documentId) ?? { drafts: 0, published: 0 };
      if (row.publishedAt) counts.published += 1;
      else counts.drafts += 1;
      versions.set(row.documentId, counts);
    }
    for (const [documentId, { drafts, published }] of versions) {
      const expected = draftAndPublish ? published <= 1 && drafts === 1 : published === 1 && drafts === 0;
      if (!expected) problems.push(`${kind} ${documentId}: ${drafts} draft and ${published} published rows`);
    }
    const sourceIdField = storage.hasField('source_id') ? storage.attribute('source_id') : undefined;
    if (sourceIdField) {
      const documentsBySourceId = new Map<string, Set<string>>();
      for (const row of rows.filter((candidate) => candidate[sourceIdField])) {
        const documents = documentsBySourceId.get(row[sourceIdField]) ?? new Set<string>();
        documentsBySourceId.set(row[sourceIdField], documents.add(row.documentId));
      }
      for (const [sourceId, documents] of documentsBySourceId) {
        if (documents.size > 1) problems.push(`${kind} source_id ${sourceId}: ${documents.size} documents`);
      }
    }
    for (const identity of await identityRows(site.strapi, storage.registry)) {
      if (!versions.has(identity.target)) {
        problems.push(`${kind} identity ${identity.naturalKey} points at missing ${identity.target}`);
      }
    }
  }
  expect(problems).toEqual([]);
}

/**
 * Runs a property RUNS times and records how many requests it sent; `send` delivers one
 * generated case and returns the answer that `expectation` checks. The tables are checked after.
 */
async function check<T>(
  name: string,
  arbitrary: fc.Arbitrary<T>,
  send: (value: T) => Promise<{ answer: Answer; context: string }>,
  expectation: (answer: Answer, context: string) => void
) {
  let requests = 0;
  let serverErrorCount = 0;
  console.log(`${name} on ${db}: seed ${SEED}, ${RUNS} runs (replay with FUZZ_SEED=${SEED})`);
  try {
    await fc.assert(
      fc.asyncProperty(arbitrary, async (value) => {
        const { answer, context } = await send(value);
        requests += 1;
        if (answer.status >= 500) serverErrorCount += 1;
        expectation(answer, context);
      }),
      { numRuns: RUNS, seed: SEED }
    );
  } finally {
    // Shrinking replays failing cases, so a failed run counts its 5xx answers more than once.
    recordTally({ test: name, requests, serverErrors: serverErrorCount });
  }
  // Runs skipped by a precondition send nothing, and are not counted as runs either.
  expect(requests).toBe(RUNS);
  await expectConsistentTables();
}

// --- Values a publisher should never send, and a few it may -------------------------------

/** Characters databases and drivers treat specially: NUL, lone surrogates, direction overrides... */
const oddCharacter = fc.constantFrom(
  '\u0000',
  '\uD800',
  '\uDFFF',
  '\u202E',
  '\u0301',
  '\uFEFF',
  '\uFFFF',
  'İ',
  'ß',
  'ǅ',
  '👩‍👩‍👧‍👦',
  "'",
  '\\',
  '%',
  '\r\n'
);
const oddText = fc.oneof(
  {
    weight: 3,
    arbitrary: fc
      .tuple(fc.string({ maxLength: 10 }), oddCharacter, fc.string({ maxLength: 10 }))
      .map((parts) => parts.join('')),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      "'; DROP TABLE publish_bridge_posts; --",
      '<script>alert(1)</script>',
      '{{slug}} ${id}',
      '../../etc/passwd',
      '\r\n\r\nHTTP/1.1 200 OK',
      '%00%ff'
    ),
  }
);
const hugeText = fc
  .tuple(fc.constantFrom('x', 'é', '🙂', '<p>a</p>'), fc.integer({ min: 256, max: 300_000 }))
  .map(([unit, count]) => unit.repeat(count));
const numberAsString = fc.oneof(
  fc.integer().map(String),
  fc.double().map(String),
  fc.constantFrom('1e400', '-0', 'NaN', 'Infinity', '0x10', '007', '9007199254740993')
);
const scalar = fc.oneof(
  { weight: 5, arbitrary: oddText },
  numberAsString,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(1e308, -1e308, Number.MAX_SAFE_INTEGER + 2, -0)
);
const nested: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(oddText, fc.constantFrom('__proto__', 'constructor', 'prototype')), tie('value'), {
      maxKeys: 4,
    })
  ),
})).value;
const deepNesting = fc
  .tuple(fc.constantFrom('[', '{"a":'), fc.integer({ min: 100, max: 20_000 }))
  .map(([open, depth]) => ({ rawJson: open.repeat(depth) + '1' + (open === '[' ? ']' : '}').repeat(depth) }));
const names = (count: fc.Arbitrary<number>) =>
  count.chain((length) =>
    fc.array(fc.oneof(oddText, fc.constantFrom('News', 'news', 'NEWS')), {
      minLength: length,
      maxLength: length,
    })
  );
const fieldValue = fc.oneof(
  { weight: 3, arbitrary: scalar },
  { weight: 1, arbitrary: hugeText },
  { weight: 2, arbitrary: nested },
  { weight: 1, arbitrary: names(fc.constantFrom(0, 1, 5, 101, 1000)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'publish',
      'draft',
      '2024-02-30 25:61:61',
      '2024-01-01 00:00:00',
      '0000-00-00 00:00:00'
    ),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('http://127.0.0.1:1/x.png', 'https://', 'javascript:alert(1)', 'ftp://x'),
  }
);

const CONTRACT_FIELDS = [
  'title',
  'content',
  'excerpt',
  'status',
  'date',
  'categories',
  'tags',
  'author',
  'featured_image',
  'reading_time',
  'seo',
  'source_id',
  'name',
  'description',
  'slug',
  'parent',
  'email',
  'username',
  'display_name',
  'image',
  'images',
  'type',
  'short_description',
  'price',
  'sku',
  'stock',
];

/** A JSON object text with any keys, `__proto__` included as a real key (JSON.stringify would drop it). */
const objectText = fc
  .array(
    fc.tuple(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...CONTRACT_FIELDS) },
        { weight: 1, arbitrary: fc.constantFrom('__proto__', 'constructor', 'prototype', 'seo.title') },
        { weight: 1, arbitrary: oddText }
      ),
      fieldValue
    ),
    { maxLength: 10 }
  )
  .map(
    (entries) =>
      `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value) ?? 'null'}`).join(',')}}`
  );

/** Bodies that are mostly a valid post with a few fields broken. */
const almostValidPost = fc
  .record({
    broken: fc.uniqueArray(fc.constantFrom(...CONTRACT_FIELDS.slice(0, 12)), { maxLength: 3 }),
    values: fc.array(fieldValue, { minLength: 3, maxLength: 3 }),
    sourceId: fc.constantFrom('fuzz-a', 'fuzz-b', 'fuzz-target', undefined),
  })
  .map(({ broken, values, sourceId }) => {
    const post: Record<string, unknown> = {
      title: 'Fuzzed post',
      content: '<p>fuzzed</p>',
      status: 'publish',
      categories: ['Fuzz', 'fuzz'],
      tags: ['Fuzz tag'],
      author: 'Fuzz Author',
      seo: { title: 'Fuzz', description: 'fuzz', keywords: ['fuzz'] },
      ...(sourceId ? { source_id: sourceId } : {}),
    };
    broken.forEach((field, index) => {
      post[field] = values[index];
    });
    return JSON.stringify(post);
  });

const bodyText = fc.oneof(
  { weight: 3, arbitrary: objectText },
  { weight: 3, arbitrary: almostValidPost },
  { weight: 1, arbitrary: fc.jsonValue().map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: deepNesting.map(({ rawJson }) => rawJson) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('', 'null', '[]', '"just a string"', '{"a":1,"a":2}', '\uFEFF{}', '{', 'nul'),
  }
);

const endpoint = fc.constantFrom(
  ['POST', () => '/posts'],
  ['PUT', () => `/posts/${existingPostId}`],
  ['PUT', () => '/posts/does-not-exist'],
  ['PUT', () => '/posts/%00%2F..%2F'],
  ['POST', () => '/handshake'],
  ['POST', () => '/blog-categories'],
  ['POST', () => '/authors'],
  ['POST', () => '/product-categories'],
  ['PUT', () => '/products/does-not-exist'],
  ['DELETE', () => '/posts/does-not-exist'],
  ['GET', () => '/pages?per_page=abc&page=-1'],
  ['GET', () => '/product-categories?per_page=250&page=1000000']
) as fc.Arbitrary<[string, () => string]>;

describe(`fuzzing on ${db}`, () => {
  test('any signed body gets 2xx or 4xx with { error }, never 5xx, never a hang', async () => {
    await check(
      'fuzz: random signed bodies',
      fc.tuple(endpoint, bodyText),
      async ([[method, path], text]) => {
        const body = method === 'GET' || method === 'DELETE' ? Buffer.alloc(0) : Buffer.from(text);
        const answer = await deliver(signed(method, path(), body));
        return { answer, context: `${method} ${path()} with ${text.slice(0, 200)}` };
      },
      (answer, context) => {
        const parsed = parse(answer.text) as { error?: unknown } | undefined;
        const seen = {
          context,
          status: answer.status,
          answer: answer.text.slice(0, 300),
          serverLog: answer.status >= 500 ? serverErrors.map(withoutRequestId).slice(-1) : [],
        };
        expect({ ...seen, acceptable: answer.status >= 200 && answer.status < 500 }).toEqual({
          ...seen,
          acceptable: true,
        });
        if (answer.status >= 400) {
          expect({ ...seen, keys: Object.keys(parsed ?? {}), error: typeof parsed?.error }).toEqual({
            ...seen,
            keys: ['error'],
            error: 'string',
          });
        } else {
          expect({ ...seen, json: typeof parsed }).toEqual({ ...seen, json: 'object' });
        }
      }
    );
    // The site still works normally afterwards.
    const after = await site.send('POST', '/posts', {
      title: 'After fuzzing',
      content: '<p>ok</p>',
      status: 'draft',
    });
    expect(after.status).toBe(200);
    expect(countBy(serverErrors.map(withoutRequestId))).toEqual({});
  });

  // --- Changing anything the signature covers ------------------------------------------------

  const printable = fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code));
  const replaceAt = (text: string, index: number, by: string) =>
    text.slice(0, index) + by + text.slice(index + 1);

  type Mutation = (request: Sent) => Sent | undefined;
  const header = (request: Sent, name: string): string | undefined => request.headers[name];
  /** `value` undefined removes the header; a mutation of a header that is already gone changes nothing. */
  const withHeader = (request: Sent, name: string, value: string | undefined): Sent | undefined => {
    if (request.headers[name] === undefined) return undefined;
    const headers = { ...request.headers };
    if (value === undefined) delete headers[name];
    else headers[name] = value;
    return { ...request, headers };
  };

  const mutation: fc.Arbitrary<{ describe: string; apply: Mutation }> = fc.oneof(
    fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => ({
      describe: `body byte ${at} := ${byte}`,
      apply: (request: Sent) => {
        const body = Buffer.from(request.body);
        const index = at % body.length;
        if (body[index] === byte) return undefined;
        body[index] = byte;
        return { ...request, body };
      },
    })),
    fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })).map(([at, byte]) => ({
      describe: `byte ${byte} inserted at ${at}`,
      apply: (request: Sent) => {
        const index = at % (request.body.length + 1);
        return {
          ...request,
          body: Buffer.concat([
            request.body.subarray(0, index),
            Buffer.from([byte]),
            request.body.subarray(index),
          ]),
        };
      },
    })),
    fc.nat().map((at) => ({
      describe: `body byte ${at} removed`,
      apply: (request: Sent) => {
        const index = at % request.body.length;
        return {
          ...request,
          body: Buffer.concat([request.body.subarray(0, index), request.body.subarray(index + 1)]),
        };
      },
    })),
    fc
      .tuple(
        fc.constantFrom('X-API-Key', 'X-Publisher-Timestamp', 'X-Publisher-Signature'),
        fc.nat(),
        printable
      )
      .map(([name, at, by]) => ({
        describe: `${name} character ${at} := ${by}`,
        apply: (request: Sent) => {
          const value = header(request, name) ?? '';
          const index = at % Math.max(1, value.length);
          if (value[index] === by) return undefined;
          return withHeader(request, name, replaceAt(value, index, by));
        },
      })),
    fc
      .tuple(fc.constantFrom('X-API-Key', 'X-Publisher-Timestamp', 'X-Publisher-Signature'), printable)
      .map(([name, extra]) => ({
        describe: `${name} + ${extra}`,
        apply: (request: Sent) => withHeader(request, name, header(request, name) + extra),
      })),
    fc.constantFrom('X-API-Key', 'X-Publisher-Timestamp', 'X-Publisher-Signature').map((name) => ({
      describe: `${name} removed`,
      apply: (request: Sent) => withHeader(request, name, undefined),
    })),
    fc
      .integer({ min: -240_000, max: 240_000 })
      .filter((shift) => shift !== 0)
      .map((shift) => ({
        describe: `timestamp shifted by ${shift} ms (inside the freshness window)`,
        apply: (request: Sent) =>
          withHeader(
            request,
            'X-Publisher-Timestamp',
            String(Number(header(request, 'X-Publisher-Timestamp')) + shift)
          ),
      })),
    fc.constant({
      describe: 'timestamp with a leading zero (same number, different signed text)',
      apply: (request: Sent) =>
        withHeader(request, 'X-Publisher-Timestamp', `0${header(request, 'X-Publisher-Timestamp')}`),
    }),
    fc.constant({
      describe: 'signature in upper case',
      apply: (request: Sent) => {
        const signature = header(request, 'X-Publisher-Signature') ?? '';
        return signature === signature.toUpperCase()
          ? undefined
          : withHeader(request, 'X-Publisher-Signature', signature.toUpperCase());
      },
    }),
    fc.constant({
      describe: 'signed with another key',
      apply: (request: Sent) => ({
        ...request,
        headers: { ...request.headers, ...signedHeaders(request.body, { key: `${TEST_KEY}x` }) },
      }),
    }),
    fc.constant({
      describe: 'body replaced by another signed body',
      apply: (request: Sent) => ({
        ...request,
        body: Buffer.from(JSON.stringify({ title: 'swapped', content: '', status: 'draft' })),
      }),
    })
  );

  const sameRequest = (left: Sent, right: Sent) =>
    left.body.equals(right.body) && JSON.stringify(left.headers) === JSON.stringify(right.headers);

  const validPost = fc
    .record({
      title: fc.string({ minLength: 1, maxLength: 30 }).filter((title) => title.trim().length > 0),
      content: fc.string({ maxLength: 200 }),
      categories: fc.array(
        fc.string({ minLength: 1, maxLength: 10 }).filter((name) => name.trim().length > 0),
        { maxLength: 3 }
      ),
    })
    .map((post) =>
      Buffer.from(JSON.stringify({ ...post, status: 'draft', source_id: 'fuzz-must-not-exist' }))
    );

  test('any change to a signed request (headers or body bytes) gets 401', async () => {
    await check(
      'fuzz: mutated signed requests',
      fc.tuple(validPost, fc.array(mutation, { minLength: 1, maxLength: 3 })),
      async ([body, mutations]) => {
        const original = signed('POST', '/posts', body);
        let request = original;
        const applied: string[] = [];
        for (const { describe: label, apply } of mutations) {
          const changed = apply(request);
          if (changed) {
            request = changed;
            applied.push(label);
          }
        }
        // Two changes can cancel out (a shift and its opposite); such a request is simply valid.
        fc.pre(!sameRequest(request, original));
        return { answer: await deliver(request), context: applied.join(', ') };
      },
      (answer, context) => {
        const parsed = parse(answer.text) as { error?: unknown } | undefined;
        const seen = { context, answer: answer.text.slice(0, 200) };
        expect({ ...seen, status: answer.status, error: typeof parsed?.error }).toEqual({
          ...seen,
          status: 401,
          error: 'string',
        });
      }
    );
    const post = serviceOf(site, 'mapping').resource('post');
    const stored = await documentsOf(site.strapi, post.uid).findMany({
      filters: { [post.fields.source_id.attribute]: 'fuzz-must-not-exist' },
    });
    expect(stored).toEqual([]);
  });
});
