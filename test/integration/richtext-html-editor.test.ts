import { useSite } from '../helpers/site';
import { documentsOf, UIDS } from '../helpers/inspect';

/**
 * A site with a plugin that makes every richtext attribute an HTML editor (the example's
 * stand-in for strapi-plugin-rich-text, registered under its name, richtext-editor): the post's
 * content, a richtext attribute, gets HTML as sent, as that editor reads it, unless
 * richtextFormat says otherwise.
 */
const FORMAT = 'plugin::publish-bridge.richtextFormat';
const HTML = '<h2>Cupping</h2><p>Slurp <strong>loudly</strong>.</p>';

const site = useSite({ PUBLISH_BRIDGE_HTML_RICHTEXT_EDITOR: 'true' });
afterEach(() => {
  site.strapi.config.set(FORMAT, undefined);
});

async function storedContent(title: string) {
  const reply = await site.send('POST', '/posts', { title, content: HTML, status: 'publish' });
  expect(reply.status).toBe(200);
  const post = await documentsOf(site.strapi, UIDS.post).findOne({
    documentId: reply.body.id,
  });
  return post.content as string;
}

test('the stand-in is installed under the name the plugin knows', () => {
  expect(Object.keys(site.strapi.plugins)).toContain('richtext-editor');
});

test('by default the HTML is stored as sent, for the HTML editor', async () => {
  expect(await storedContent('Cupping for an HTML editor')).toBe(HTML);
});

test('with richtextFormat "markdown" it is stored as Markdown all the same', async () => {
  site.strapi.config.set(FORMAT, 'markdown');
  expect(await storedContent('Cupping as Markdown anyway')).toBe('## Cupping\n\nSlurp **loudly**.');
});
