import fields from '../../server/src/services/publishing/fields';
import type { MediaMap } from '../../server/src/services/types';
import type { Resource } from '../../server/src/resources';

/**
 * How a media attribute is written from imported images. Only the plugin config is read on
 * this path, so a site stand-in that answers it is enough.
 */
const site = {
  config: { get: () => ({ media: { maxInlineImages: 20 }, content: { allowedEmbedHosts: [] } }) },
} as never;

const product: Resource = {
  kind: 'product',
  uid: 'api::product.product',
  draftAndPublish: true,
  nameField: 'name',
  unmapped: [],
  registry: 'product',
  label: 'product',
  fields: {
    images: { adapter: 'media', attribute: 'gallery', multiple: true, limits: {} },
    featured_image: { adapter: 'media', attribute: 'cover', multiple: false, limits: {} },
  },
};

const file = (id: number) => ({ ok: true as const, reused: false, file: { id, url: `/uploads/${id}.png` } });
const failed = { ok: false as const, reason: 'the server answered HTTP 404' };
const media: MediaMap = new Map<string, any>([
  ['https://cdn.example.com/a.png', file(1)],
  ['https://cdn.example.com/b.png', file(2)],
  ['https://user:secret@cdn.example.com/gone.png?token=t0ken', failed],
]);
const gallery = (...names: string[]) => names.map((name) => ({ url: `https://cdn.example.com/${name}` }));
const toData = (input: Record<string, unknown>) =>
  fields({ strapi: site }).toData({ trx: null } as never, product, input, media);

describe('a media attribute', () => {
  it('gets every imported image of a gallery, in order', async () => {
    expect(await toData({ images: gallery('b.png', 'a.png') })).toEqual({
      data: { gallery: [2, 1] },
      notes: [],
      attributesOf: { images: ['gallery'] },
    });
  });

  it('is emptied by an empty gallery, which the publisher sent on purpose', async () => {
    expect(await toData({ images: [] })).toEqual({
      data: { gallery: [] },
      notes: [],
      attributesOf: { images: ['gallery'] },
    });
  });

  it('is left as it was when one image of the gallery failed, with a note for the image and the gallery', async () => {
    const images = [...gallery('a.png'), { url: 'https://user:secret@cdn.example.com/gone.png?token=t0ken' }];
    expect(await toData({ images })).toEqual({
      data: {},
      notes: [
        'images: the image https://cdn.example.com/gone.png?token=… was not imported (the server answered HTTP 404).',
        'images: kept as it was, since not every image was imported; the rest was saved.',
      ],
      // Nothing was written, so the field's fingerprint stays what it was.
      attributesOf: { images: [] },
    });
  });

  it('is left as it was when a single image failed, and cleared by an empty URL', async () => {
    const { data } = await toData({ featured_image: 'https://cdn.example.com/never-imported.png' });
    expect(data).toEqual({});
    expect(await toData({ featured_image: '' })).toEqual({
      data: { cover: null },
      notes: [],
      attributesOf: { featured_image: ['cover'] },
    });
    expect((await toData({ featured_image: 'https://cdn.example.com/a.png' })).data).toEqual({ cover: 1 });
  });
});
