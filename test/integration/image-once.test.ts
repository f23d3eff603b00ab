import { startSiteWithImages } from '../helpers/site-with-images';
import type { Site } from '../helpers/site';

/** Issue 40: one request downloads each distinct image at most once, however its URL is spelt. */
let site: Site;
let images: Awaited<ReturnType<typeof startSiteWithImages>>['images'];
let stopSite: () => Promise<void>;
beforeAll(async () => {
  ({ site, images, stop: stopSite } = await startSiteWithImages({ PUBLISH_BRIDGE_CONTENT_TYPES: 'site' }));
});
afterAll(() => stopSite?.());

it('downloads an image once when the cover and the body spell its URL differently', async () => {
  const url = images.url('/images/spelt-twice.png');
  const respelt = url.replace('/images/', '/images/./').replace('http://', 'HTTP://');
  const reply = await site.send('POST', '/posts', {
    title: 'One image, two spellings',
    content: `<p>Intro</p><img src="${respelt}" alt="Inline">`,
    status: 'publish',
    featured_image: url,
  });
  expect(reply.status).toBe(200);
  expect(images.hits('/images/spelt-twice.png')).toBe(1);
});
