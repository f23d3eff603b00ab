import { startSiteWithImages } from '../helpers/site-with-images';
import type { ImageServer } from '../helpers/image-server';
import type { Site } from '../helpers/site';
import { documentsOf, latestActivityNotes, queryOf, UIDS } from '../helpers/inspect';
import { serviceOf } from '../helpers/site';

/**
 * The example site with PUBLISH_BRIDGE_CONTENT_TYPES=template: posts go into the Story type,
 * shaped like the Article of Strapi's own example blog, whose body is the `blocks` dynamic zone
 * of shared.rich-text, shared.media, shared.quote and shared.slider.
 */
const STORY = 'api::story.story';
/** Products go into the Item, whose description is the same `blocks` zone. */
const ITEM = 'api::item.item';
const FORMAT = 'plugin::publish-bridge.richtextFormat';

let site: Site;
let images: ImageServer;
let apiToken: string;

type Component = { __component: string; id: number; [attribute: string]: any };

const stories = () => documentsOf(site.strapi, STORY);
const POPULATE = {
  blocks: {
    on: {
      'shared.media': { populate: ['file'] },
      'shared.slider': { populate: ['files'] },
      'shared.rich-text': true,
      'shared.quote': true,
    },
  },
};
const zoneOf =
  (uid: string) =>
  async (documentId: string, status: 'draft' | 'published' = 'draft'): Promise<Component[]> =>
    (await documentsOf(site.strapi, uid).findOne({ documentId, status, populate: POPULATE })).blocks;
const storedBlocks = zoneOf(STORY);
const storedItemBlocks = zoneOf(ITEM);
const kinds = (blocks: Component[]) => blocks.map((block) => block.__component);

/** The zone as the Content Manager saves it after an editor added a slider at `index`. */
const withSliderAt = (blocks: Component[], index: number, fileId: number) => [
  ...blocks.slice(0, index).map(({ __component, id }) => ({ __component, id })),
  { __component: 'shared.slider', files: [fileId] },
  ...blocks.slice(index).map(({ __component, id }) => ({ __component, id })),
];

function postHtml() {
  return [
    '<h2>Brewing</h2><p>Grind <strong>fresh</strong>.</p>',
    `<figure><img src="${images.url('/images/kettle.png')}" alt="A kettle"><figcaption>The kettle</figcaption></figure>`,
    '<p>Pour slowly.</p><ul><li>Water</li><li>Beans</li></ul>',
    '<blockquote><p>Coffee is a hug in a mug.</p><cite>Anon</cite></blockquote>',
    '<table><tr><td>Ratio</td><td>1:16</td></tr></table>',
    `<p><img src="${images.url('/missing.png')}" alt="Gone"></p>`,
  ].join('\n');
}

async function publish(title: string, content = postHtml()) {
  const reply = await site.send('POST', '/posts', {
    title,
    content,
    excerpt: 'A short brew guide.',
    author: 'Ada Brewer',
    featured_image: images.url('/images/cover.png'),
    status: 'publish',
  });
  expect(reply).toMatchObject({ status: 200 });
  return reply.body.id as string;
}

let stopSite: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({
    site,
    images,
    stop: stopSite,
  } = await startSiteWithImages({ PUBLISH_BRIDGE_CONTENT_TYPES: 'template' }));
  const token = await site.strapi.service('admin::api-token').create({
    name: 'dynamic-zone-test',
    type: 'read-only',
    kind: 'content-api',
    lifespan: null,
  });
  apiToken = token.accessKey;
});

afterAll(() => stopSite?.());

// The tests of how content splits into components read each section's HTML as sent, so they say
// richtextFormat "html"; the Markdown tests set their own.
beforeEach(() => {
  site.strapi.config.set(FORMAT, 'html');
});

test('content becomes rich-text, media and quote components in document order', async () => {
  const documentId = await publish('Brew guide');
  const blocks = await storedBlocks(documentId, 'published');

  expect(kinds(blocks)).toEqual([
    'shared.rich-text',
    'shared.media',
    'shared.rich-text',
    'shared.quote',
    'shared.rich-text',
  ]);
  expect(blocks[0].body).toBe('<h2>Brewing</h2><p>Grind <strong>fresh</strong>.</p>');
  expect(blocks[1].file).toMatchObject({
    alternativeText: 'A kettle',
    caption: 'The kettle',
    mime: 'image/png',
  });
  expect(blocks[2].body).toBe('<p>Pour slowly.</p><ul><li>Water</li><li>Beans</li></ul>');
  expect(blocks[3]).toMatchObject({ body: 'Coffee is a hug in a mug.', title: 'Anon' });
  // The table, and the image that could not be downloaded, stay as HTML: nothing is lost.
  expect(blocks[4].body).toBe(
    `<table><tr><td>Ratio</td><td>1:16</td></tr></table>\n<p><img src="${images.url('/missing.png')}" alt="Gone"></p>`
  );
  await serviceOf(site, 'activity-writer').flush();
  const [entry] = await queryOf(site.strapi, UIDS.activityEntry).findMany({
    where: { entityId: documentId },
  });
  expect(entry.notes).toEqual([
    expect.stringMatching(
      /^content: the image .*\/missing\.png was not imported \(.*404\); it stays as HTML in the text\.$/
    ),
  ]);
});

test("the zone's images count toward media.maxInlineImages: past it they stay HTML, with a note", async () => {
  const limitKey = 'plugin::publish-bridge.media.maxInlineImages';
  const limit = site.strapi.config.get(limitKey);
  site.strapi.config.set(limitKey, 1);
  let documentId: string;
  try {
    documentId = await publish(
      'Two figures, room for one',
      [
        `<figure><img src="${images.url('/images/first.png')}" alt="First"></figure>`,
        '<p>Between.</p>',
        `<figure><img src="${images.url('/images/second.png')}" alt="Second"></figure>`,
      ].join('')
    );
  } finally {
    site.strapi.config.set(limitKey, limit);
  }
  const blocks = await storedBlocks(documentId, 'published');
  expect(kinds(blocks)).toEqual(['shared.media', 'shared.rich-text']);
  expect(blocks[0].file).toMatchObject({ alternativeText: 'First' });
  expect(blocks[1].body).toBe(
    `<p>Between.</p><figure><img src="${images.url('/images/second.png')}" alt="Second"></figure>`
  );
  await serviceOf(site, 'activity-writer').flush();
  const [entry] = await queryOf(site.strapi, UIDS.activityEntry).findMany({
    where: { entityId: documentId },
  });
  expect(entry.notes).toEqual([
    `content: the image ${images.url('/images/second.png')} was not imported (over media.maxInlineImages); it stays as HTML in the text.`,
  ]);
});

test("Strapi's REST API returns the zone in order, media with its file id and alt text, and the other fields", async () => {
  const documentId = await publish('Brew guide for the REST API');
  const query = [
    'populate[blocks][on][shared.media][populate]=file',
    'populate[blocks][on][shared.rich-text]=true',
    'populate[blocks][on][shared.quote]=true',
    'populate[cover]=true',
    'populate[author]=true',
  ].join('&');
  const response = await fetch(`${site.baseUrl}/api/stories/${documentId}?${query}`, {
    headers: { Authorization: `Bearer ${apiToken}` },
  });
  expect(response.status).toBe(200);
  const { data } = (await response.json()) as { data: Record<string, any> & { blocks: Component[] } };
  const stored = await storedBlocks(documentId, 'published');

  expect(data).toMatchObject({
    title: 'Brew guide for the REST API',
    slug: 'brew-guide-for-the-rest-api',
    description: 'A short brew guide.',
    cover: { mime: 'image/png' },
    author: { name: 'Ada Brewer' },
  });
  expect(kinds(data.blocks)).toEqual([
    'shared.rich-text',
    'shared.media',
    'shared.rich-text',
    'shared.quote',
    'shared.rich-text',
  ]);
  expect(data.blocks[0].body).toBe('<h2>Brewing</h2><p>Grind <strong>fresh</strong>.</p>');
  expect(data.blocks[1].file).toMatchObject({ id: stored[1].file.id, alternativeText: 'A kettle' });
  expect(data.blocks[3]).toMatchObject({ body: 'Coffee is a hug in a mug.', title: 'Anon' });
});

test("by default the text components hold Markdown, which Strapi's editor of their richtext body edits", async () => {
  site.strapi.config.set(FORMAT, undefined);
  const documentId = await publish(
    'Brew guide in Markdown',
    '<h2>Brewing</h2><p>Grind <strong>fresh</strong>.</p>'
  );
  expect(await storedBlocks(documentId)).toMatchObject([
    { __component: 'shared.rich-text', body: '## Brewing\n\nGrind **fresh**.' },
  ]);
});

test('with richtextFormat "markdown" a request\'s text components share one content.markdownTimeoutMs of conversion, and a request behind it still converts', async () => {
  const CONTENT = 'plugin::publish-bridge.content';
  const original = site.strapi.config.get(CONTENT) as Record<string, unknown>;
  site.strapi.config.set(FORMAT, 'markdown');
  // 1.5 s, so the request behind waits up to 3 s: with 1 s, a worker restarted after the slow
  // conversions' time box on a loaded machine (the CI run of 9dd83df, PostgreSQL) left it 2 s,
  // too little, and it was stored as HTML.
  site.strapi.config.set(CONTENT, { ...original, markdownTimeoutMs: 1_500 });
  try {
    // Each text takes Turndown many seconds (quadratic in its run of spaces and no-break spaces:
    // 20,000 pairs took under 1 s on a quiet machine, so 60,000 take several, past the budget);
    // the quotes between them make each a text component of its own.
    const slowText = (index: number) => `<pre><span>x${index}${' \u00a0'.repeat(60_000)}</span>y</pre>`;
    const slow = [0, 1, 2, 3].map((index) => `${slowText(index)}<blockquote>q${index}</blockquote>`).join('');
    const markdown = serviceOf(site, 'markdown');
    const convert = markdown.convert;
    let conversions = 0;
    let slowQueued!: () => void;
    const queued = new Promise<void>((resolve) => (slowQueued = resolve));
    markdown.convert = (...args: Parameters<typeof convert>) => {
      if (++conversions === 4) slowQueued();
      return convert(...args);
    };
    try {
      const slowPost = publish('Slow in every section', slow);
      await queued;
      const fastPost = publish('Behind the slow one', '<h2>Brewing</h2><p>Grind <strong>fresh</strong>.</p>');
      expect(await storedBlocks(await fastPost)).toMatchObject([
        { __component: 'shared.rich-text', body: '## Brewing\n\nGrind **fresh**.' },
      ]);
      const texts = (await storedBlocks(await slowPost)).filter(
        (block) => block.__component === 'shared.rich-text'
      );
      expect(texts.map((block) => block.body)).toEqual(
        [0, 1, 2, 3].map((index) => `<div>\n${slowText(index)}\n</div>`)
      );
    } finally {
      markdown.convert = convert;
    }
  } finally {
    site.strapi.config.set(CONTENT, original);
  }
});

/** The update the slider tests send: two paragraphs around a new image. */
const newContent = () =>
  `<p>New intro.</p><img src="${images.url('/images/second.png')}" alt="Second"><p>New outro.</p>`;

/** Both versions hold newContent's components, the editor's slider (of the one file) still after the image. */
async function expectSliderAmidNewContent(zone: typeof storedBlocks, documentId: string, sliderFile: number) {
  for (const status of ['draft', 'published'] as const) {
    const after = await zone(documentId, status);
    expect(kinds(after)).toEqual(['shared.rich-text', 'shared.media', 'shared.slider', 'shared.rich-text']);
    expect(after[0].body).toBe('<p>New intro.</p>');
    expect(after[1].file).toMatchObject({ alternativeText: 'Second' });
    expect(after[2].files.map((file: { id: number }) => file.id)).toEqual([sliderFile]);
    expect(after[3].body).toBe('<p>New outro.</p>');
  }
}

test('an update replaces the generated components and keeps an editor-added slider in place', async () => {
  const documentId = await publish('Brew guide with a slider');
  const before = await storedBlocks(documentId);
  const kettle = before[1].file.id;
  // An editor adds a slider right after the image.
  await stories().update({
    documentId,
    data: { blocks: withSliderAt(before, 2, kettle) },
    status: 'published',
  });
  const slider = (await storedBlocks(documentId)).find((block) => block.__component === 'shared.slider')!;

  const reply = await site.send('PUT', `/posts/${documentId}`, {
    content: newContent(),
  });
  expect(reply.status).toBe(200);

  await expectSliderAmidNewContent(storedBlocks, documentId, kettle);
  // The draft's slider is the same component, updated in place, not a copy.
  expect((await storedBlocks(documentId))[2].id).toBe(slider.id);
});

test('updates of the zone, its media and the other fields see no editor change where there was none; a slider an editor added is one', async () => {
  const documentId = await publish('Brew guide, fingerprinted');
  const changed = async (body: Record<string, unknown>) => {
    expect((await site.send('PUT', `/posts/${documentId}`, body)).status).toBe(200);
    return ((await latestActivityNotes(site.strapi)) ?? []).find((note) => /changed in Strapi/.test(note));
  };
  const everyField = {
    title: 'Brew guide, fingerprinted again',
    content: newContent(),
    excerpt: 'Another short guide.',
    author: 'Bo Roaster',
    featured_image: images.url('/images/cover.png'),
  };
  expect(await changed(everyField)).toBeUndefined();
  expect(await changed({ ...everyField, content: postHtml() })).toBeUndefined();

  const before = await storedBlocks(documentId);
  await stories().update({ documentId, data: { blocks: withSliderAt(before, 1, before[1].file.id) } });
  expect(await changed({ content: newContent(), title: 'Brew guide, third' })).toMatch(
    /^content: changed in Strapi/
  );
});

test('an update without content leaves the zone alone', async () => {
  const documentId = await publish('Brew guide, status only');
  const before = await storedBlocks(documentId);

  expect((await site.send('PUT', `/posts/${documentId}`, { status: 'draft' })).status).toBe(200);
  expect((await site.send('PUT', `/posts/${documentId}`, { title: 'Brew guide, renamed' })).status).toBe(200);

  expect(await stories().findOne({ documentId, status: 'published' })).toBeNull();
  expect(await storedBlocks(documentId)).toEqual(before);
});

describe('products whose description is the zone', () => {
  const items = () => documentsOf(site.strapi, ITEM);
  let run = 0;

  /** An editor adds a slider at `index` of the draft's zone and publishes. */
  const publishSliderAt = (documentId: string, blocks: Component[], index: number, fileId: number) =>
    items().update({
      documentId,
      data: { blocks: withSliderAt(blocks, index, fileId) },
      status: 'published',
    });

  /** A published product whose description the platform sent: rich-text, media, rich-text. */
  async function describedProduct() {
    run += 1;
    const item = await items().create({ data: { name: `Kettle ${run}`, price: 20 }, status: 'published' });
    const reply = await site.send('PUT', `/products/${item.documentId}`, {
      description: `<p>A kettle.</p><img src="${images.url('/images/kettle.png')}" alt="Kettle"><p>Pours well.</p>`,
    });
    expect(reply.status).toBe(200);
    expect(kinds(await storedItemBlocks(item.documentId, 'published'))).toEqual([
      'shared.rich-text',
      'shared.media',
      'shared.rich-text',
    ]);
    // The draft's, which the Content Manager edits.
    return { documentId: item.documentId as string, blocks: await storedItemBlocks(item.documentId) };
  }

  test('a PUT with a description replaces the generated components and keeps an editor-added slider in place', async () => {
    const { documentId, blocks } = await describedProduct();
    const kettle = blocks[1].file.id;
    await publishSliderAt(documentId, blocks, 2, kettle);

    const reply = await site.send('PUT', `/products/${documentId}`, {
      description: newContent(),
    });
    expect(reply.status).toBe(200);

    await expectSliderAmidNewContent(storedItemBlocks, documentId, kettle);
  });

  test('a PUT without a description leaves the zone alone', async () => {
    const { documentId, blocks } = await describedProduct();
    await publishSliderAt(documentId, blocks, 1, blocks[1].file.id);
    const before = await storedItemBlocks(documentId);

    const reply = await site.send('PUT', `/products/${documentId}`, { name: 'Kettle, renamed' });
    expect(reply.status).toBe(200);

    expect(await items().findOne({ documentId, status: 'published' })).toMatchObject({
      name: 'Kettle, renamed',
    });
    expect(await storedItemBlocks(documentId)).toEqual(before);
    // Publishing copies the draft's components, so the published ones have ids of their own.
    expect(kinds(await storedItemBlocks(documentId, 'published'))).toEqual(kinds(before));
  });

  test("with an editor's unpublished changes the published zone keeps its own slider, the draft the editor's", async () => {
    const { documentId, blocks } = await describedProduct();
    const kettle = blocks[1].file.id;
    await publishSliderAt(documentId, blocks, 2, kettle);
    // The editor then adds a second slider at the top and saves without publishing ("Modified").
    await items().update({
      documentId,
      data: { blocks: withSliderAt(await storedItemBlocks(documentId), 0, kettle) },
    });

    const reply = await site.send('PUT', `/products/${documentId}`, { description: '<p>New copy.</p>' });
    expect(reply.status).toBe(200);

    const publishedAfter = await storedItemBlocks(documentId, 'published');
    expect(kinds(publishedAfter)).toEqual(['shared.rich-text', 'shared.slider']);
    expect(publishedAfter[0].body).toBe('<p>New copy.</p>');
    expect(publishedAfter[1].files.map((file: { id: number }) => file.id)).toEqual([kettle]);
    const draftAfter = await storedItemBlocks(documentId);
    expect(kinds(draftAfter)).toEqual(['shared.slider', 'shared.rich-text', 'shared.slider']);
    expect(draftAfter[1].body).toBe('<p>New copy.</p>');
  });
});
