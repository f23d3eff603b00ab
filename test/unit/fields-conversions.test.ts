import * as blocks from '../../server/src/mapping/html-to-blocks';
import fields from '../../server/src/services/publishing/fields';
import type { Resource } from '../../server/src/resources';

jest.mock('../../server/src/mapping/html-to-blocks', () => {
  const actual = jest.requireActual('../../server/src/mapping/html-to-blocks');
  return { ...actual, htmlToBlocks: jest.fn(actual.htmlToBlocks) };
});
const htmlToBlocks = blocks.htmlToBlocks as jest.MockedFunction<typeof blocks.htmlToBlocks>;

/**
 * How often one request converts an HTML field. Only the plugin config and the media service's
 * budget are read on this path, so a site stand-in that answers them is enough.
 */
const config = {
  richtextFormat: 'blocks',
  content: { maxBlocks: 2_000, markdownTimeoutMs: 5_000, allowedEmbedHosts: [] },
  media: { maxInlineImages: 20, concurrentDownloads: 4, importInlineImages: true },
};
const mediaService = { requestBudget: () => ({ remaining: Infinity }) };
const site = {
  config: { get: () => config },
  plugin: () => ({ service: () => mediaService }),
} as never;

const post: Resource = {
  kind: 'post',
  uid: 'api::post.post',
  draftAndPublish: true,
  nameField: 'title',
  unmapped: [],
  registry: 'post',
  label: 'post',
  fields: { content: { adapter: 'blocks', attribute: 'content', limits: {} } },
} as unknown as Resource;

describe('an HTML field of one request', () => {
  it('is converted once, for its images and for the value written, however many steps read it', async () => {
    const service = fields({ strapi: site });
    const input = { content: `<h2>Title</h2>${'<p>A paragraph of <em>text</em>.</p>'.repeat(50)}` };
    htmlToBlocks.mockClear();

    const media = await service.importMedia(post, input);
    const { data } = await service.toData({ trx: null } as never, post, input, media);

    expect(data.content).toHaveLength(51);
    expect(htmlToBlocks).toHaveBeenCalledTimes(1);
  });
});
