#!/usr/bin/env node
/**
 * `npm run test:template`: the packed plugin on Strapi's own example blog, as a user installs it.
 *
 *   node scripts/template-site.js                    the newest Strapi 5 release, admin panel built
 *   node scripts/template-site.js --strapi 5.13.0    another Strapi 5 release, with that release's template
 *   --no-admin-build                                 skip `strapi build`'s admin bundle (server code only)
 *   --keep                                           leave the project in place, to inspect it
 *
 * Makes a TypeScript project with `create-strapi-app@<release> --example --typescript` (the
 * template files as shipped), pins every @strapi package to that release, installs
 * the `npm pack` tarball of this repository, follows the README's "Strapi's example blog" steps
 * with the README's own code blocks (the Article's added attributes, the `import type` line and
 * the `'publish-bridge'` key added to the shipped config/plugins.ts), builds, starts it with
 * `strapi start`, and sends the publisher's signed requests: handshake, a post that fills every
 * mapped field (headings, lists, a quote, an inline image, a table, a cover, date, tags, seo,
 * reading time, source id), an update, a republish, the page list and a delete, reading each
 * result back through Strapi's own REST API.
 * Needs the npm registry and dist/ (npm run build). The last line is "N passed, N failed".
 */
'use strict';

const { spawn, spawnSync } = require('node:child_process');
const { createHmac, randomBytes } = require('node:crypto');
const fs = require('node:fs');
const http = require('node:http');
const os = require('node:os');
const path = require('node:path');
const { onFreePort, waitForHealth } = require('./lib/example-site');
const { readmeBlock } = require('./lib/readme-blocks');

const ROOT = path.resolve(__dirname, '..');
const PREFIX = '/api/publish-bridge';
const KEY = `pb_template_${randomBytes(16).toString('hex')}`;
const BOOT_TIMEOUT_MS = 240_000;
/**
 * A contract or REST reply, the body parsed when it is JSON; `any`: each check reads the fields
 * of the endpoint it called and asserts them.
 * @typedef {{ status: number; body: any }} Reply
 */
/** @typedef {{ __component: string; body?: string; file?: { alternativeText?: string | null } }} Block */
/**
 * @typedef {{
 *   title: string;
 *   slug: string;
 *   description: string;
 *   cover?: { mime: string };
 *   category?: { name: string };
 *   author?: { name: string };
 *   blocks: Block[];
 *   publishedDate?: string;
 *   tags?: string[];
 *   seo?: { metaTitle?: string; metaDescription?: string };
 *   readingTime?: string;
 *   sourceId?: string;
 * }} Article
 */

const progress = (/** @type {string} */ message) => process.stderr.write(`[template] ${message}\n`);

/** @param {string[]} argv */
function parseArguments(argv) {
  /** @type {{ strapi: string | undefined; adminBuild: boolean; keep: boolean }} */
  const options = { strapi: undefined, adminBuild: true, keep: false };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s);
    if (flag === '--strapi') options.strapi = inline ?? argv[(i += 1)];
    else if (flag === '--no-admin-build') options.adminBuild = false;
    else if (flag === '--keep') options.keep = true;
    else
      throw new Error(
        `Unknown option ${argv[i]} (see the comment at the top of ${path.basename(__filename)}).`
      );
  }
  if (options.strapi !== undefined && !/^5\.\d+\.\d+$/.test(options.strapi))
    throw new Error(`--strapi takes a Strapi 5 release such as 5.13.0.`);
  return options;
}

/**
 * Runs a command to completion and answers its output; throws with the output when it fails.
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string; env?: NodeJS.ProcessEnv; quiet?: boolean }} [options]
 */
function run(command, args, { cwd, env = process.env, quiet = true } = {}) {
  const result = spawnSync(command, args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: quiet ? 'pipe' : 'inherit',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} failed (exit ${result.status}):\n${result.stdout ?? ''}\n${result.stderr ?? ''}`
    );
  }
  return result.stdout;
}

/**
 * Whether `pinned` (`name@version`) is on the registry: `npm view` fails with E404 for a version
 * that is not, and prints nothing for one a range does not match.
 * @param {string} pinned
 */
function published(pinned) {
  try {
    return run('npm', ['view', pinned, 'version']).trim() !== '';
  } catch {
    return false;
  }
}

/**
 * The @strapi packages a Strapi release pins that are not on the registry: a release published
 * in part (create-strapi-app@5.55.0 was listed while @strapi/database@5.55.0 was not) does not
 * install.
 * @param {string} release
 */
function missingPackagesOf(release) {
  if (!published(`@strapi/strapi@${release}`)) return [`@strapi/strapi@${release}`];
  const listed = run('npm', ['view', `@strapi/strapi@${release}`, 'dependencies', '--json']);
  /** @type {Record<string, string>} */
  const dependencies = JSON.parse(listed);
  return Object.entries(dependencies)
    .filter(([name]) => name.startsWith('@strapi/'))
    .map(([name, pinned]) => `${name}@${pinned}`)
    .filter((pinned) => !published(pinned));
}

/**
 * The newest Strapi 5 release on the registry that installs, asked at run time so that CI
 * follows Strapi's releases without a pinned number going stale. `npm view …@5 version` lists
 * every matching release unsorted (pre-releases are not in the range), so they are sorted here.
 */
function newestStrapi5() {
  const listed = JSON.parse(run('npm', ['view', 'create-strapi-app@5', 'version', '--json']));
  /** @type {string[]} */
  const releases = (Array.isArray(listed) ? listed : [listed]).filter((version) =>
    /^5\.\d+\.\d+$/.test(version)
  );
  const parts = (/** @type {string} */ version) => version.split('.').map(Number);
  releases.sort((a, b) => parts(b)[1] - parts(a)[1] || parts(b)[2] - parts(a)[2]);
  for (const release of releases.slice(0, 5)) {
    const missing = missingPackagesOf(release);
    if (missing.length === 0) return release;
    progress(
      `Strapi ${release} does not install yet (not on the registry: ${missing.join(', ')}); trying the release before it`
    );
  }
  throw new Error('None of the five newest Strapi 5 releases on the registry installs.');
}

/**
 * The shipped template, made the way a user makes it, with every @strapi package pinned to `release`.
 * @param {string} workDir
 * @param {string} release
 * @param {string} tarball
 */
function createProject(workDir, release, tarball) {
  progress(`create-strapi-app@${release} --example --typescript (no install yet)...`);
  const cli = `create-strapi-app@${release}`;
  const env = { ...process.env, STRAPI_TELEMETRY_DISABLED: 'true' };
  // Releases before 5.40 have no --non-interactive; every question is answered by a flag anyway.
  const help = run('npx', ['--yes', cli, '--help'], { cwd: workDir, env });
  run(
    'npx',
    [
      '--yes',
      cli,
      'site',
      '--example',
      '--typescript',
      '--use-npm',
      '--no-install',
      '--skip-cloud',
      '--no-run',
      '--no-git-init',
      '--skip-db',
      ...(help.includes('--non-interactive') ? ['--non-interactive'] : []),
    ],
    { cwd: workDir, env }
  );
  const projectDir = path.join(workDir, 'site');
  const manifestFile = path.join(projectDir, 'package.json');
  const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  for (const field of ['dependencies', 'devDependencies']) {
    for (const name of Object.keys(manifest[field] ?? {})) {
      if (name.startsWith('@strapi/')) manifest[field][name] = release;
    }
  }
  manifest.dependencies['strapi-plugin-publish-bridge'] = `file:${tarball}`;
  // The template's better-sqlite3 12 aborts Node 24 as a process exits (its Statement destructor
  // runs after Node's environment is gone); 13 is built on Node-API. A site on Node 24 needs the
  // same (README, Compatibility).
  if (Number(process.versions.node.split('.')[0]) >= 24 && manifest.dependencies['better-sqlite3'])
    manifest.dependencies['better-sqlite3'] = '^13.2.0';
  fs.writeFileSync(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  return projectDir;
}

/** The address the README's `url: env('PUBLIC_URL')` line gives Strapi, as a site's .env would. */
const PUBLIC_URL = 'https://cms.example.com';

/**
 * Adds `lines` at the top of the object a shipped config file's default export returns, keeping
 * what the template put there.
 * @param {string} file
 * @param {string} lines
 * @param {string} [header] put above everything, e.g. an `import type` line
 */
function addToReturnedObject(file, lines, header) {
  const shipped = fs.readFileSync(file, 'utf8');
  // 5.54 ships typed configs (`(…): Core.Config.Plugin => ({`); older templates ship `=> ({`.
  const opening = /=> \(\{\n?/.exec(shipped)?.[0];
  if (!opening)
    throw new Error(`${path.basename(file)} has no "=> ({" to add the README's lines to:\n${shipped}`);
  const added = shipped.replace(opening, `=> ({\n${lines}\n`);
  fs.writeFileSync(file, header === undefined ? added : `${header}\n${added}`);
}

/**
 * The README's steps for this template, taken from the README itself: the five attributes added
 * to the Article's schema, the `import type` line at the top of config/plugins.ts, the
 * `'publish-bridge'` key added to the object the file already returns, and the public URL added
 * to the object config/server.ts returns.
 * @param {string} projectDir
 */
function followReadme(projectDir) {
  const schemaFile = path.join(
    projectDir,
    'src',
    'api',
    'article',
    'content-types',
    'article',
    'schema.json'
  );
  const schema = JSON.parse(fs.readFileSync(schemaFile, 'utf8'));
  Object.assign(schema.attributes, JSON.parse(readmeBlock('example-blog-attributes')));
  fs.writeFileSync(schemaFile, `${JSON.stringify(schema, null, 2)}\n`);

  const mapping = readmeBlock('example-blog-mapping');
  // The test serves its images on this machine; a real site lists nothing here.
  const testOnly = "media: { allowedHosts: ['127.0.0.1'] },";
  const configured = mapping.replace(
    /^(\s*)config: \{\n/m,
    (line, indent) => `${line}${indent}  ${testOnly}\n`
  );
  if (!configured.includes(testOnly))
    throw new Error(`The README's mapping has no "config: {" line:\n${mapping}`);
  addToReturnedObject(
    path.join(projectDir, 'config', 'plugins.ts'),
    configured,
    readmeBlock('plugins-import')
  );
  addToReturnedObject(path.join(projectDir, 'config', 'server.ts'), readmeBlock('public-url'));
}

/**
 * @param {string} projectDir
 * @param {NodeJS.ProcessEnv} env
 */
async function startSite(projectDir, env) {
  return onFreePort((port) => startSiteOn(projectDir, env, port));
}

/**
 * @param {string} projectDir
 * @param {NodeJS.ProcessEnv} env
 * @param {number} port
 */
async function startSiteOn(projectDir, env, port) {
  const child = spawn(
    process.execPath,
    [path.join('node_modules', '@strapi', 'strapi', 'bin', 'strapi.js'), 'start'],
    {
      cwd: projectDir,
      env: { ...env, HOST: '127.0.0.1', PORT: String(port) },
      stdio: ['ignore', 'pipe', 'pipe'],
    }
  );
  let log = '';
  const keep = (/** @type {Buffer} */ chunk) => (log = (log + chunk).slice(-30_000));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  /** @type {number | NodeJS.Signals | null | undefined} */
  let exitCode;
  /** @type {Promise<number | NodeJS.Signals | null>} */
  const exited = new Promise((resolve) =>
    child.on('exit', (code, signal) => resolve((exitCode = code ?? signal)))
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(baseUrl, exited, { timeoutMs: BOOT_TIMEOUT_MS, pid: child.pid });
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`${/** @type {Error} */ (error).message}\n${log}`);
  }
  return {
    baseUrl,
    log: () => log,
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Serves the images a post refers to, as the publisher's CDN would: a real PNG, made by Strapi's own image library. */
async function startImageServer() {
  const png = await require('sharp')({ create: { width: 8, height: 6, channels: 3, background: '#3a6ea5' } })
    .png()
    .toBuffer();
  const server = http.createServer((request, response) => {
    if (!request.url?.endsWith('.png')) return response.writeHead(404).end();
    response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': png.length }).end(png);
  });
  await /** @type {Promise<void>} */ (new Promise((resolve) => server.listen(0, '127.0.0.1', resolve)));
  // Listening on an IP address and port: the address is an AddressInfo, not a pipe's name.
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return { url: `http://127.0.0.1:${port}`, server };
}

/**
 * @param {string} method
 * @param {string} body
 */
function signed(method, body) {
  const timestamp = String(Date.now());
  const signature = createHmac('sha256', KEY).update(`${timestamp}.`).update(body).digest('hex');
  return {
    method,
    headers: {
      ...(body ? { 'Content-Type': 'application/json' } : {}),
      'X-API-Key': KEY,
      'X-Publisher-Timestamp': timestamp,
      'X-Publisher-Signature': signature,
    },
    body: body || undefined,
  };
}

/**
 * @param {string} baseUrl
 * @param {string} method
 * @param {string} route
 * @param {unknown} [payload]
 * @returns {Promise<Reply>}
 */
async function contract(baseUrl, method, route, payload) {
  const body = payload === undefined ? '' : JSON.stringify(payload);
  const response = await fetch(`${baseUrl}${PREFIX}${route}`, signed(method, body));
  const text = await response.text();
  /** @type {unknown} */
  let parsed = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // kept as text
  }
  return { status: response.status, body: parsed };
}

/**
 * Strapi's own REST API, as the site's frontend reads it (a read-only API token).
 * @param {string} baseUrl
 * @param {string} token
 * @param {string} route
 * @returns {Promise<Reply>}
 */
async function rest(baseUrl, token, route) {
  const response = await fetch(`${baseUrl}${route}`, { headers: { Authorization: `Bearer ${token}` } });
  return { status: response.status, body: await response.json() };
}

/**
 * The post the publisher sends: every kind of content the body can hold.
 * @param {string} images
 */
function fullPost(images) {
  const content = [
    '<h2>Why local SEO matters</h2>',
    '<p>Most searches with a place in them end in a <strong>visit</strong> within a day.</p>',
    '<ul><li>Claim the listing</li><li>Collect reviews<ul><li>Answer every one</li></ul></li></ul>',
    '<ol><li>Audit</li><li>Fix</li></ol>',
    '<blockquote><p>Be where your customers look.</p></blockquote>',
    `<p><img src="${images}/inline.png" alt="A map with pins"></p>`,
    '<table><tr><th>Signal</th><th>Weight</th></tr><tr><td>Reviews</td><td>High</td></tr></table>',
    '<h3>Next steps</h3><p>Start with the listing.</p>',
  ].join('');
  return {
    title: 'Local SEO in an afternoon',
    content,
    excerpt:
      'A short, practical walk through the local search signals that move a small business up the map pack.',
    status: 'publish',
    categories: ['Local SEO', 'Guides'],
    author: 'Dana Writer',
    featured_image: `${images}/cover.png`,
    source_id: 'template-post-1',
    // The fields the README's five added attributes hold; a past date, so it is published now.
    date: '2026-01-15 09:30:00',
    tags: ['Maps', 'Reviews'],
    seo: {
      title: 'Local SEO in an afternoon: a checklist',
      description: 'Claim the listing, collect reviews and answer them: the local signals that count.',
      keywords: ['local seo', 'reviews'],
    },
    reading_time: '6 min',
  };
}

/**
 * @param {{ baseUrl: string }} site
 * @param {string} token
 * @param {string} images
 * @param {{ url: string; source: string } | undefined} registered the base URL the settings page shows
 */
async function checks(site, token, images, registered) {
  /** @type {{ name: string; ok: boolean; error?: unknown }[]} */
  const results = [];
  /** @type {(name: string, body: () => Promise<void>) => Promise<void>} */
  const check = async (name, body) => {
    try {
      await body();
      results.push({ name, ok: true });
      progress(`ok   ${name}`);
    } catch (error) {
      results.push({ name, ok: false, error });
      progress(`FAIL ${name}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  /** @type {(condition: unknown, message: string) => asserts condition} */
  const expect = (condition, message) => {
    if (!condition) throw new Error(message);
  };
  const populate =
    'populate[cover]=true&populate[category]=true&populate[author]=true&populate[seo]=true&populate[blocks][populate]=*&status=published';
  /** @type {string | undefined} The post's id, once the publish check has passed. */
  let id;

  await check("the base URL to register is the README's public URL plus the prefix", async () => {
    expect(
      registered?.url === `${PUBLIC_URL}${PREFIX}` && registered.source === 'server.url',
      `base URL: ${JSON.stringify(registered)}`
    );
  });

  await check('the signed handshake answers with the capabilities', async () => {
    const reply = await contract(site.baseUrl, 'POST', '/handshake', {});
    expect(reply.status === 200 && reply.body.ok === true, `handshake: ${JSON.stringify(reply)}`);
  });

  const post = fullPost(images);
  await check('a full post is published into the template Article, mapped as the README says', async () => {
    const reply = await contract(site.baseUrl, 'POST', '/posts', post);
    expect(reply.status === 200 && typeof reply.body.id === 'string', `publish: ${JSON.stringify(reply)}`);
    expect(
      reply.body.url === 'https://www.example.com/articles/local-seo-in-an-afternoon',
      `url: ${reply.body.url}`
    );
    id = reply.body.id;
  });

  await check('the frontend reads it back through /api/articles with every part in order', async () => {
    const { status, body } = await rest(site.baseUrl, token, `/api/articles/${id}?${populate}`);
    expect(status === 200, `GET /api/articles/${id}: ${status} ${JSON.stringify(body)}`);
    /** @type {Article} */
    const article = body.data;
    expect(article.title === post.title, `title: ${article.title}`);
    expect(article.slug === 'local-seo-in-an-afternoon', `slug: ${article.slug}`);
    expect(article.description.length <= 80, `description is ${article.description.length} characters`);
    expect(
      post.excerpt.startsWith(article.description.replace(/…$/, '').trim()),
      `description: ${article.description}`
    );
    expect(article.cover?.mime === 'image/png', `cover: ${JSON.stringify(article.cover)}`);
    expect(
      article.category?.name === 'Local SEO',
      `category (the first one sent): ${JSON.stringify(article.category)}`
    );
    expect(article.author?.name === 'Dana Writer', `author: ${JSON.stringify(article.author)}`);
    expect(article.publishedDate === '2026-01-15T09:30:00.000Z', `publishedDate: ${article.publishedDate}`);
    expect(JSON.stringify(article.tags) === '["Maps","Reviews"]', `tags: ${JSON.stringify(article.tags)}`);
    expect(
      article.seo?.metaTitle === post.seo.title && article.seo?.metaDescription === post.seo.description,
      `seo: ${JSON.stringify(article.seo)}`
    );
    expect(article.readingTime === post.reading_time, `readingTime: ${article.readingTime}`);
    expect(article.sourceId === post.source_id, `sourceId: ${article.sourceId}`);
    const components = article.blocks.map((block) => block.__component);
    expect(components.includes('shared.media'), `no media component in ${components}`);
    expect(components.includes('shared.quote'), `no quote component in ${components}`);
    const media = article.blocks.find((block) => block.__component === 'shared.media');
    expect(
      media?.file?.alternativeText === 'A map with pins',
      `inline image: ${JSON.stringify(media?.file)}`
    );
    const quote = article.blocks.find((block) => block.__component === 'shared.quote');
    expect(/Be where your customers look/.test(quote?.body ?? ''), `quote: ${JSON.stringify(quote)}`);
    const text = article.blocks
      .filter((block) => block.__component === 'shared.rich-text')
      .map((block) => block.body)
      .join('\n');
    for (const phrase of [
      'Why local SEO matters',
      'Collect reviews',
      'Answer every one',
      'Audit',
      'Reviews',
      'Next steps',
    ]) {
      expect(text.includes(phrase), `"${phrase}" missing from the rich text: ${text}`);
    }
    // The README: text goes into the richtext body as Markdown, which its editor shows; a table
    // has no Markdown every renderer reads, so it stays HTML.
    expect(
      /^## Why local SEO matters$/m.test(text) && !/<\/?(h2|h3|p|ul|ol|li|strong)\b/.test(text),
      `the rich text is not Markdown: ${text}`
    );
    const order = components.filter((c, i) => c !== components[i - 1]);
    expect(
      order.join(',') === 'shared.rich-text,shared.quote,shared.media,shared.rich-text',
      `component order: ${components.join(', ')}`
    );
  });

  await check('an update changes the content and keeps every field it did not send', async () => {
    const reply = await contract(site.baseUrl, 'PUT', `/posts/${id}`, {
      content: '<h2>Rewritten</h2><p>Shorter now.</p>',
      source_id: post.source_id,
    });
    expect(reply.status === 200 && reply.body.id === id, `update: ${JSON.stringify(reply)}`);
    const { body } = await rest(site.baseUrl, token, `/api/articles/${id}?${populate}`);
    /** @type {Article} */
    const article = body.data;
    expect(article.title === post.title, `title changed: ${article.title}`);
    expect(
      article.category?.name === 'Local SEO' && article.cover?.mime === 'image/png',
      'category or cover lost'
    );
    const text = article.blocks.map((block) => block.body ?? '').join('\n');
    expect(text.includes('Rewritten') && !text.includes('Why local SEO matters'), `content: ${text}`);
  });

  await check('publishing the same source_id again updates that article, not a second one', async () => {
    const reply = await contract(site.baseUrl, 'POST', '/posts', post);
    expect(reply.status === 200 && reply.body.id === id, `republish: ${JSON.stringify(reply)}`);
    const { body: republished } = await rest(site.baseUrl, token, `/api/articles/${id}?${populate}`);
    const text = republished.data.blocks.map((/** @type {Block} */ block) => block.body ?? '').join('\n');
    expect(
      text.includes('Why local SEO matters') && !text.includes('Rewritten'),
      `the republish did not replace the updated content: ${text}`
    );
    const { body } = await rest(
      site.baseUrl,
      token,
      `/api/articles?filters[title][$eq]=${encodeURIComponent(post.title)}`
    );
    expect(body.data?.length === 1, `articles titled "${post.title}": ${JSON.stringify(body.data)}`);
  });

  await check('the page list shows the post with its single category, and a walk ends', async () => {
    const reply = await contract(site.baseUrl, 'GET', '/pages?per_page=100');
    expect(reply.status === 200 && Array.isArray(reply.body), `pages: ${JSON.stringify(reply)}`);
    /** @type {{ id: string; type: string; categories: string[] } | undefined} */
    const item = reply.body.find((/** @type {{ id: string }} */ page) => page.id === id);
    expect(item && item.type === 'post', `post not listed: ${JSON.stringify(reply.body)}`);
    expect(
      JSON.stringify(item.categories) === '["Local SEO"]',
      `categories: ${JSON.stringify(item.categories)}`
    );
  });

  await check('a delete removes the article', async () => {
    const reply = await contract(site.baseUrl, 'DELETE', `/posts/${id}`);
    expect(reply.status === 200 && reply.body.deleted === true, `delete: ${JSON.stringify(reply)}`);
    const { status } = await rest(site.baseUrl, token, `/api/articles/${id}`);
    expect(status === 404, `the article still answers ${status}`);
  });

  await check('an unsigned request is refused, in any spelling of the path', async () => {
    const response = await fetch(`${site.baseUrl}${PREFIX.toUpperCase()}/pages`);
    expect(response.status === 401, `unsigned: ${response.status}`);
  });
  return results;
}

/**
 * A read-only API token, created the way an admin would in Settings > API Tokens, and the base
 * URL the settings page tells the admin to register (from the public URL, with no Public URL
 * saved on the page).
 * @param {string} projectDir
 * @param {NodeJS.ProcessEnv} env
 */
function prepareSite(projectDir, env) {
  const script = `
    const { createStrapi } = require('@strapi/strapi');
    (async () => {
      const app = await createStrapi({ appDir: process.cwd(), distDir: require('path').join(process.cwd(), 'dist') }).load();
      const token = await app.service('admin::api-token').create({ name: 'template-test', type: 'read-only', lifespan: null });
      process.stdout.write('\\nPB_TEMPLATE_TOKEN=' + token.accessKey + '\\n');
      const registered = await app.plugin('publish-bridge').service('settings').configuredBaseUrl();
      process.stdout.write('PB_TEMPLATE_BASE_URL=' + JSON.stringify(registered) + '\\n');
      await app.destroy();
      process.exit(0);
    })().catch((error) => { console.error(error); process.exit(1); });
  `;
  const output = run(process.execPath, ['-e', script], { cwd: projectDir, env });
  const token = /^PB_TEMPLATE_TOKEN=(\S+)$/m.exec(output)?.[1];
  if (!token) throw new Error(`No API token was created:\n${output}`);
  const registered = /^PB_TEMPLATE_BASE_URL=(.*)$/m.exec(output)?.[1];
  /** @type {{ url: string; source: string } | undefined} */
  const baseUrl = registered === undefined || registered === 'undefined' ? undefined : JSON.parse(registered);
  return { token, baseUrl };
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  options.strapi ??= newestStrapi5();
  if (!fs.existsSync(path.join(ROOT, 'dist', 'server', 'index.js')))
    throw new Error('Build the plugin first: npm run build');
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), `pb-template-${options.strapi}-`));
  /** @type {Awaited<ReturnType<typeof startSite>> | undefined} */
  let site;
  /** @type {Awaited<ReturnType<typeof startImageServer>> | undefined} */
  let images;
  try {
    progress(`Strapi ${options.strapi} in ${workDir}`);
    const packed = JSON.parse(
      run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', workDir], { cwd: ROOT })
    );
    const tarball = path.join(workDir, packed[0].filename);
    const projectDir = createProject(workDir, options.strapi, tarball);
    followReadme(projectDir);
    progress('npm install (the project, Strapi and the packed plugin)...');
    run('npm', ['install', '--no-audit', '--no-fund'], { cwd: projectDir });
    const env = {
      ...process.env,
      NODE_ENV: 'production',
      APP_KEYS: 'templateKeyOne,templateKeyTwo',
      API_TOKEN_SALT: 'template-api-token-salt',
      ADMIN_JWT_SECRET: 'template-admin-jwt-secret',
      TRANSFER_TOKEN_SALT: 'template-transfer-token-salt',
      JWT_SECRET: 'template-jwt-secret',
      ENCRYPTION_KEY: 'template-encryption-key-0123456789abcdef',
      STRAPI_TELEMETRY_DISABLED: 'true',
      STRAPI_DISABLE_UPDATE_NOTIFICATION: 'true',
      BROWSER: 'false',
      DATABASE_CLIENT: 'sqlite',
      DATABASE_FILENAME: path.join(projectDir, '.tmp', 'data.db'),
      PUBLISH_BRIDGE_API_KEY: KEY,
      PUBLIC_URL,
    };
    progress(options.adminBuild ? 'strapi build (server and admin panel)...' : 'tsc (server only)...');
    if (options.adminBuild)
      run(process.execPath, ['node_modules/@strapi/strapi/bin/strapi.js', 'build'], { cwd: projectDir, env });
    else run(process.execPath, ['node_modules/typescript/bin/tsc', '-p', '.'], { cwd: projectDir, env });
    const { token, baseUrl } = prepareSite(projectDir, env);
    images = await startImageServer();
    progress('strapi start...');
    site = await startSite(projectDir, { ...env, SERVE_ADMIN_PANEL: String(options.adminBuild) });
    const results = await checks(site, token, images.url, baseUrl);
    const failed = results.filter((result) => !result.ok);
    if (failed.length > 0) progress(`server log (last lines):\n${site.log().slice(-4000)}`);
    process.stdout.write(`Strapi ${options.strapi}, example template, packed plugin\n`);
    process.stdout.write(`template: ${results.length - failed.length} passed, ${failed.length} failed\n`);
    process.exitCode = failed.length > 0 ? 1 : 0;
  } finally {
    if (site) await site.stop();
    images?.server.close();
    if (options.keep) progress(`kept ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`\n[template] ${error.stack ?? error}\n`);
  process.stdout.write('template: 0 passed, 1 failed\n');
  process.exitCode = 1;
});
