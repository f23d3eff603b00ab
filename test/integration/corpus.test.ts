import { startSiteWithImages } from '../helpers/site-with-images';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ImageServer } from '../helpers/image-server';
import type { Site } from '../helpers/site';
import { visibleTextOfBlocks, visibleTextOfHtml } from '../helpers/visible-text';
import { documentsOf } from '../helpers/inspect';

/**
 * The HTML corpus (test/fixtures/html), published through a real site into the example's
 * Article, whose `content` is a Blocks attribute: Strapi's own validator checks the blocks on
 * their way in, and the document read back keeps every visible word of the source, in order.
 * The frozen `*.blocks.json` pin the converter's output; this holds it to the source instead.
 */
const ARTICLE = 'api::article.article';
const FIXTURES = path.resolve(__dirname, '..', 'fixtures', 'html');
const NAMES = readdirSync(FIXTURES)
  .filter((file) => file.endsWith('.html'))
  .map((file) => file.slice(0, -'.html'.length));

let site: Site;
let images: ImageServer;
const articles = () => documentsOf(site.strapi, ARTICLE);

let stopSite: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ site, images, stop: stopSite } = await startSiteWithImages({ PUBLISH_BRIDGE_CONTENT_TYPES: 'site' }));
});
afterAll(() => stopSite?.());

test("Strapi's Blocks validator is on the way in: the Article refuses a link it does not allow, and takes the same with https", async () => {
  const content = (url: string) => [
    { type: 'paragraph', children: [{ type: 'link', url, children: [{ type: 'text', text: 'x' }] }] },
  ];
  await expect(
    articles().create({ data: { title: 'Refused', content: content('javascript:alert(1)') } })
  ).rejects.toThrow(/link|url|protocol/i);
  const accepted = await articles().create({
    data: { title: 'Accepted', content: content('https://example.com') },
  });
  expect(accepted.content[0].children[0].url).toBe('https://example.com');
});

/** A corpus document whose images, on a CDN there, come from the test's own image server. */
const documentNamed = (name: string) =>
  readFileSync(path.join(FIXTURES, `${name}.html`), 'utf8').replace(
    /https:\/\/cdn\.example\.com\/([^"]+)\.(png|jpg|webp)/g,
    (_, file: string) => images.url(`/images/${file.replace(/\//g, '-')}.png`)
  );

test.each(NAMES)(
  '%s is published, its images imported, and read back with every visible word in order',
  async (name) => {
    const html = documentNamed(name);
    const reply = await site.send('POST', '/posts', { title: name, content: html, status: 'publish' });
    expect(reply.status).toBe(200);
    const article = await articles().findOne({ documentId: reply.body.id, status: 'published' });
    const imageBlocks = article.content.filter((block: { type: string }) => block.type === 'image');
    expect(imageBlocks.length).toBe((html.match(/\/images\//g) ?? []).length);
    for (const block of imageBlocks) expect(block.image.url).toMatch(/^\/uploads\//);
    expect(visibleTextOfBlocks(article.content, html)).toBe(visibleTextOfHtml(html));
  }
);
