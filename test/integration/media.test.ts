import { startSiteWithImages } from '../helpers/site-with-images';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { EXAMPLE_DIR, serviceOf, type Site } from '../helpers/site';
import { JPEG_SIZE, PNG_SIZE, type ImageServer } from '../helpers/image-server';
import { queryOf } from '../helpers/inspect';

const FILE_UID = 'plugin::upload.file';
const CONFIG = 'plugin::publish-bridge.media';
const TEN_MEGABYTES = 10 * 1024 * 1024;

/**
 * The media service against a local image host, in the example site booted with
 * PUBLISH_BRIDGE_MEDIA_ALLOWED_HOSTS=127.0.0.1 (the image host's address is loopback).
 */
describe('importing images into the Media Library', () => {
  let site: Site;
  let images: ImageServer;
  let stopSite: (() => Promise<void>) | undefined;
  let tmpdir: string;
  const originalTmpdir = process.env.TMPDIR;

  const media = () => serviceOf(site, 'media');
  const files = () => queryOf(site.strapi, FILE_UID);
  const fileCount = () => files().count();
  const storedBytes = (url: string) => fs.readFile(path.join(EXAMPLE_DIR, 'public', url));

  /** Runs `work` with some media config changed, then puts the booted config back. */
  async function withMediaConfig<T>(changes: Record<string, unknown>, work: () => Promise<T>): Promise<T> {
    const original = { ...(site.strapi.config.get(CONFIG) as Record<string, unknown>) };
    site.strapi.config.set(CONFIG, { ...original, ...changes });
    try {
      return await work();
    } finally {
      site.strapi.config.set(CONFIG, original);
    }
  }

  beforeAll(async () => {
    ({ site, images, stop: stopSite } = await startSiteWithImages());
    // Downloads and the upload plugin's working copies go to os.tmpdir(): a folder of this test's own.
    tmpdir = await fs.mkdtemp(path.join(os.tmpdir(), 'media-test-'));
    process.env.TMPDIR = tmpdir;
  });

  afterAll(async () => {
    process.env.TMPDIR = originalTmpdir;
    await stopSite?.();
    if (tmpdir) await fs.rm(tmpdir, { recursive: true, force: true });
  });

  it('reads the allow-list from the example environment and defaults the limits', () => {
    expect(site.strapi.config.get(CONFIG)).toEqual({
      allowedHosts: ['127.0.0.1'],
      timeoutMs: 10_000,
      maxBytes: TEN_MEGABYTES,
      importInlineImages: true,
      maxInlineImages: 20,
      concurrentDownloads: 10,
      maxPixels: 40_000_000,
      maxPixelsPerRequest: 160_000_000,
      maxPixelsDecodingAtOnce: 80_000_000,
    });
  });

  it.each([
    ['a PNG once (the upload checks it)', '/images/decoded-once.png'],
    ['an AVIF once (the upload stores it unread: the plugin checks it)', '/images/decoded-once.avif'],
  ])('decodes %s', async (_label, pathAndQuery) => {
    const imaging = site.strapi.plugin('upload').service('image-manipulation');
    const decodes = jest.spyOn(imaging, 'isFaultyImage');
    try {
      const result = await media().importImage(images.url(pathAndQuery));
      expect(result).toMatchObject({ ok: true, reused: false });
      expect(decodes).toHaveBeenCalledTimes(1);
    } finally {
      decodes.mockRestore();
    }
  });

  it('imports a PNG into the Media Library with its alt text, caption and real dimensions', async () => {
    const before = await fileCount();
    const result = await media().importImage(images.url('/images/Summer%20Cover.png'), {
      alt: 'A beach at dawn',
      caption: 'Photo: the publisher',
    });

    expect(result).toMatchObject({ ok: true, reused: false });
    assert(result.ok);
    const stored = await files().findOne({ where: { id: result.file.id } });
    expect(stored).toMatchObject({
      id: result.file.id,
      documentId: result.file.documentId,
      name: 'summer-cover.png',
      ext: '.png',
      mime: 'image/png',
      alternativeText: 'A beach at dawn',
      caption: 'Photo: the publisher',
      width: PNG_SIZE.width,
      height: PNG_SIZE.height,
      provider: 'local',
    });
    expect(await fileCount()).toBe(before + 1);
    const bytes = await storedBytes(stored.url);
    expect(bytes.subarray(1, 4).toString('latin1')).toBe('PNG');
  });

  it('imports a JPEG with its dimensions', async () => {
    const result = await media().importImage(images.url('/photo.jpg'), { alt: 'A photo' });

    expect(result).toMatchObject({ ok: true, reused: false });
    assert(result.ok);
    expect(result.file).toMatchObject({
      mime: 'image/jpeg',
      ext: '.jpg',
      width: JPEG_SIZE.width,
      height: JPEG_SIZE.height,
      alternativeText: 'A photo',
    });
    const bytes = await storedBytes(result.file.url);
    expect([...bytes.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });

  it('reuses the file for a second import of the same URL, without downloading it again', async () => {
    const url = images.url('/images/reused.png');
    const first = await media().importImage(url, { alt: 'First' });
    const countAfterFirst = await fileCount();

    const second = await media().importImage(url, { alt: 'First' });

    expect(first).toMatchObject({ ok: true, reused: false });
    expect(second).toMatchObject({ ok: true, reused: true });
    assert(first.ok && second.ok);
    expect(second.file.id).toBe(first.file.id);
    expect(second.file.url).toBe(first.file.url);
    expect(await fileCount()).toBe(countAfterFirst);
    expect(images.hits('/images/reused.png')).toBe(1);
  });

  it('imports again when the earlier file was deleted from the Media Library', async () => {
    const url = images.url('/images/deleted-later.png');
    const first = await media().importImage(url, {});
    assert(first.ok);
    await site.strapi.plugin('upload').service('upload').remove(first.file);

    const again = await media().importImage(url, {});
    const thirdTime = await media().importImage(url, {});

    expect(again).toMatchObject({ ok: true, reused: false });
    assert(again.ok);
    expect(again.file.id).not.toBe(first.file.id);
    expect(await files().findOne({ where: { id: again.file.id } })).not.toBeNull();
    expect(thirdTime).toMatchObject({ ok: true, reused: true });
    assert(thirdTime.ok);
    expect(thirdTime.file.id).toBe(again.file.id);
  });

  it('ends with one file when several imports of the same URL run at once', async () => {
    const url = images.url('/images/raced.png');
    const before = await fileCount();

    const results = await Promise.all([1, 2, 3, 4].map(() => media().importImage(url, { alt: 'Raced' })));

    expect(results.every((result) => result.ok)).toBe(true);
    assert(results.every((result) => result.ok));
    expect(new Set(results.map((result) => result.file.id)).size).toBe(1);
    expect(results.filter((result) => !result.reused)).toHaveLength(1);
    expect(await fileCount()).toBe(before + 1);
    const [kept] = await files().findMany({ where: { id: results[0].file.id } });
    await expect(storedBytes(kept.url)).resolves.toBeInstanceOf(Buffer);
  });

  it('follows up to 3 redirects and keys the file by the URL it was asked for', async () => {
    const result = await media().importImage(images.url('/hops/2'), {});

    expect(result).toMatchObject({
      ok: true,
      reused: false,
      file: { name: 'after-hops.png', width: PNG_SIZE.width },
    });
    expect(images.hits('/hops/0')).toBe(1);
    assert(result.ok);
    const again = await media().importImage(images.url('/hops/2'), {});
    expect(again).toMatchObject({ ok: true, reused: true, file: { id: result.file.id } });
  });

  it.each<[string, string, RegExp]>([
    ['a 404', '/missing.png', /^the server answered HTTP 404$/],
    [
      'an HTML page',
      '/page.html',
      /the server sent "text\/html", not an image \(accepted: PNG, JPEG, GIF, WebP, AVIF\)/,
    ],
    ['an SVG, which can carry scripts', '/logo.svg', /SVG images are not imported: they can carry scripts/],
    [
      'PNG bytes labelled as JPEG',
      '/disguised.jpg',
      /called the content image\/jpeg, but it is not a JPEG image/,
    ],
    [
      'a declared length over the limit',
      `/huge-declared.png?bytes=${TEN_MEGABYTES + 1}`,
      /announced 10485761 bytes, over the 10 MB limit \(media\.maxBytes\)/,
    ],
    [
      'an undeclared body over the limit',
      `/huge-streamed.png?bytes=${TEN_MEGABYTES + 1}`,
      /larger than the 10 MB limit \(media\.maxBytes\)/,
    ],
    [
      'a redirect to a link-local address',
      '/redirect?to=http://169.254.169.254/latest/meta-data/',
      /169\.254\.169\.254 is a link-local address; list the host in media\.allowedHosts/,
    ],
    [
      'a redirect to a private address',
      '/redirect?to=http://10.0.0.1/cover.png',
      /10\.0\.0\.1 is a private address/,
    ],
    [
      'a redirect to another scheme',
      '/redirect?to=file:///etc/passwd',
      /only http and https URLs are imported, not file:/,
    ],
    ['a redirect without a Location', '/redirect-without-location', /HTTP 302 without a Location header/],
    ['more than 3 redirects', '/hops/3', /redirects more than 3 times/],
    ['an image the decoder rejects', '/corrupt.png', /^the file is not a readable PNG image$/],
    ['a PNG whose pixels do not decode', '/broken-pixels.png', /^the file is not a readable PNG image$/],
    ['an AVIF whose pixels do not decode', '/broken-pixels.avif', /^the file is not a readable AVIF image$/],
  ])('refuses %s with a clear reason and stores nothing', async (_label, pathAndQuery, reason) => {
    const before = await fileCount();

    const result = await media().importImage(images.url(pathAndQuery), { alt: 'x' });

    expect(result.ok).toBe(false);
    assert(!result.ok);
    expect(result.reason).toMatch(reason);
    expect(await fileCount()).toBe(before);
  });

  it.each([
    ['ftp://127.0.0.1/cover.png', /only http and https URLs are imported, not ftp:/],
    ['file:///etc/passwd', /only http and https URLs are imported, not file:/],
    ['data:image/png;base64,iVBORw0KGgo=', /only http and https URLs are imported, not data:/],
    ['not a url', /"not a url" is not a valid URL/],
    ['https://user:secret@bad host/x.png', /^"https:\/\/bad host\/x\.png" is not a valid URL$/],
  ])('refuses %s before any download', async (url, reason) => {
    const result = await media().importImage(url, {});
    expect(result).toEqual({ ok: false, reason: expect.stringMatching(reason) });
  });

  it('gives up on a download that takes longer than media.timeoutMs', async () => {
    const before = await fileCount();

    const result = await withMediaConfig({ timeoutMs: 800 }, () =>
      media().importImage(images.url('/slow.png'), {})
    );

    expect(result).toEqual({ ok: false, reason: 'the download took longer than 800 ms (media.timeoutMs)' });
    expect(await fileCount()).toBe(before);
  });

  it('honours a smaller media.maxBytes', async () => {
    const result = await withMediaConfig({ maxBytes: 2048 }, () =>
      media().importImage(images.url('/huge-streamed.png?bytes=4096'), {})
    );
    expect(result).toEqual({
      ok: false,
      reason: 'the image is larger than the 2 KB limit (media.maxBytes)',
    });
  });

  it('refuses a loopback URL whose host is not allow-listed, without connecting to it', async () => {
    const port = new URL(images.origin).port;

    const [byAddress, byName, byMappedAddress] = await withMediaConfig({ allowedHosts: [] }, () =>
      Promise.all([
        media().importImage(images.url('/images/not-allowed.png'), {}),
        media().importImage(`http://localhost:${port}/images/not-allowed-by-name.png`, {}),
        media().importImage(`http://[::ffff:127.0.0.1]:${port}/images/not-allowed-mapped.png`, {}),
      ])
    );

    expect(byAddress).toEqual({
      ok: false,
      reason:
        '127.0.0.1 is a loopback address; list the host in media.allowedHosts of the plugin config to allow it',
    });
    assert(!byName.ok && !byMappedAddress.ok);
    expect(byName.reason).toMatch(
      /^localhost resolves to (127\.0\.0\.1|::1), which is a loopback address; list the host in media\.allowedHosts/
    );
    expect(byMappedAddress.reason).toMatch(/^::ffff:7f00:1 is a loopback address/);
    expect(images.hits('/images/not-allowed.png')).toBe(0);
    expect(images.hits('/images/not-allowed-by-name.png')).toBe(0);
    expect(images.hits('/images/not-allowed-mapped.png')).toBe(0);
  });

  it('imports from a private host that is allow-listed by name', async () => {
    const port = new URL(images.origin).port;

    const result = await withMediaConfig({ allowedHosts: ['localhost'] }, () =>
      media().importImage(`http://localhost:${port}/images/allowed-by-name.png`, {})
    );

    expect(result).toMatchObject({ ok: true, reused: false, file: { name: 'allowed-by-name.png' } });
    expect(images.hits('/images/allowed-by-name.png')).toBe(1);
  });

  it('logs a refused import at warn level with the URL, without query values, and the reason', async () => {
    const warn = jest.spyOn(site.strapi.log, 'warn');
    try {
      await media().importImage(images.url('/missing.png?from=log-test'), {});
      expect(warn).toHaveBeenCalledWith(
        `[publish-bridge] image ${images.url('/missing.png?from=…')} was not imported: the server answered HTTP 404`
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('leaves no temporary files behind', async () => {
    expect(await fs.readdir(tmpdir)).toEqual([]);
  });
});
