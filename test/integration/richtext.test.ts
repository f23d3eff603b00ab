import { startSite, type Site } from '../helpers/site';

/** The plugin's post keeps `content` in a `richtext` attribute, Strapi's Markdown editor. */
let site: Site;
const FORMAT = 'plugin::publish-bridge.richtextFormat';
const HTML = '<h2>Cupping</h2><p>Slurp <strong>loudly</strong>.</p><table><tr><td>Score</td></tr></table>';

beforeAll(async () => {
  site = await startSite();
});
afterAll(async () => {
  await site?.stop();
});
afterEach(() => {
  site.strapi.config.set(FORMAT, 'html');
});

async function storedContent(title: string) {
  const reply = await site.send('POST', '/posts', { title, content: HTML, status: 'publish' });
  expect(reply.status).toBe(200);
  const post = await (site.strapi.documents('plugin::publish-bridge.post' as never) as any).findOne({
    documentId: reply.body.id,
  });
  return post.content as string;
}

test('by default the HTML is stored as sent', async () => {
  expect(await storedContent('Cupping as HTML')).toBe(HTML);
});

test('with richtextFormat "markdown" it is stored as Markdown, tables kept as HTML', async () => {
  site.strapi.config.set(FORMAT, 'markdown');
  expect(await storedContent('Cupping as Markdown')).toBe(
    '## Cupping\n\nSlurp **loudly**.\n\n<table><tbody><tr><td>Score</td></tr></tbody></table>'
  );
});
