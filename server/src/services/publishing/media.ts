import type { Core } from '@strapi/strapi';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { FILE_UID, PLUGIN_ID } from '../../constants';
import {
  ImportRefused,
  parseImageUrl,
  withDownloadedImage,
  type DownloadedImage,
} from '../../network/image-download';
import { displayUrl } from '../../utils/display-url';
import { countJpegScans, MAX_JPEG_SCANS } from '../../utils/jpeg-scans';
import { toSlug } from '../../utils/slug';
import { createWeightedSemaphore, WaitAborted } from '../../utils/weighted-semaphore';
import { ReplayDetected } from '../delivery/receipts';
import type { Transaction } from '../delivery/transactions';
import type { MediaResult, UploadedFile } from '../types';
import { getService, pluginConfig } from '../../plugin';
import { fileLinks } from '../../database/file-links';
import { rowsOf } from '../../database/schemas';

export type ImportOptions = { alt?: string; caption?: string };
/** The pixels the images of one request may still add up to (media.maxPixelsPerRequest). */
export type PixelBudget = { remaining: number };

const RESOURCE = 'media';

const megapixels = (pixels: number) => +(pixels / 1_000_000).toFixed(1);

/**
 * The types Strapi's upload decodes whole itself before it stores anything (those its sharp
 * metadata names a format it processes, 5.13 to 5.54), refusing a picture it cannot read with
 * UNREADABLE_BY_UPLOAD. Sharp names AVIF "heif", which the upload stores unread.
 */
const DECODED_BY_UPLOAD = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
const UNREADABLE_BY_UPLOAD = 'File is not a valid image';

/**
 * The sharp Strapi's upload plugin decodes with, found the way Node finds it from the site through
 * Strapi and its upload plugin: this plugin ships no image library of its own, and the frames
 * counted are those that decoder will decode. A require rooted at the site, so it works from the
 * ESM build as well, and under package managers that do not hoist.
 */
function uploadPluginSharp(siteRoot: string) {
  const fromSite = createRequire(path.join(siteRoot, 'package.json'));
  const fromStrapi = createRequire(fromSite.resolve('@strapi/strapi/package.json'));
  const fromUpload = createRequire(fromStrapi.resolve('@strapi/upload/package.json'));
  return fromUpload('sharp') as typeof import('sharp').default;
}

/** A URL path decoded for a file name; a malformed escape is kept as written. */
function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/**
 * Imports images from publishers' URLs into the Media Library: one file per source URL, so a
 * republished post reuses the file it got the first time.
 */
// Over 50 lines: a service factory; its methods, each short, share strapi through this closure.
export default ({ strapi }: { strapi: Core.Strapi }) => {
  const transactions = () => getService(strapi, 'transactions');
  const identities = () => getService(strapi, 'identities');
  const uploads = () => strapi.plugin('upload').service('upload');
  const files = () => rowsOf(strapi, FILE_UID);
  const mediaConfig = () => pluginConfig(strapi).media;

  /**
   * The pixels being decoded at once across all requests the site serves (media.maxPixelsDecodingAtOnce):
   * each request's own limit still lets concurrent requests decode many times it together.
   */
  const decoding = createWeightedSemaphore(() => mediaConfig().maxPixelsDecodingAtOnce);

  const keyOf = (url: URL) => `url:${createHash('sha256').update(url.href).digest('hex')}`;

  /**
   * The file the registry holds for `key`. In a transaction, a key whose file was deleted from the
   * Media Library is dropped; without one (`null`), a read that changes nothing.
   */
  async function registeredFile(transaction: Transaction | null, key: string): Promise<UploadedFile | null> {
    const target = await identities().lookup(transaction?.trx ?? null, RESOURCE, key);
    if (!target) return null;
    const file = (await files().findOne({ where: { id: Number(target) } })) as UploadedFile | null;
    if (!file && transaction) await identities().forgetKey(transaction.trx, RESOURCE, key);
    return file;
  }

  /** Records `uploaded` as the file for `key`, or returns the file a concurrent import recorded first. */
  function claim(key: string, uploaded: UploadedFile): Promise<UploadedFile | null> {
    return transactions().run(async (transaction: Transaction) => {
      const winner = await registeredFile(transaction, key);
      if (winner) return winner;
      await identities().claim(transaction.trx, RESOURCE, key, String(uploaded.id));
      return null;
    });
  }

  async function downloadAndUpload(
    url: URL,
    options: ImportOptions,
    budget: PixelBudget
  ): Promise<UploadedFile> {
    const media = mediaConfig();
    return withDownloadedImage(url, media, async (image) => {
      const pixels = await assertWithinLimits(image, media.maxPixels, budget);
      const name = `${toSlug(path.parse(decodePath(image.url.pathname)).name, 'image')}${image.ext}`;
      const { filepath } = image;
      // The upload decodes the whole picture (or, for a type it stores unread, this check does):
      // it holds its pixels of the process's allowance, which an image waits for as long as its
      // download may take, no longer.
      const upload = async () => {
        if (!DECODED_BY_UPLOAD.has(image.mime)) await assertReadable(filepath, image.label);
        const [file] = (await uploads()
          .upload({
            data: { fileInfo: { name, alternativeText: options.alt, caption: options.caption } },
            files: { filepath, originalFilename: name, mimetype: image.mime, size: image.size },
          })
          .catch((error: Error) => {
            throw error?.name === 'ApplicationError' && error.message === UNREADABLE_BY_UPLOAD
              ? new ImportRefused(`the file is not a readable ${image.label} image`)
              : error;
          })) as UploadedFile[];
        return file;
      };
      return await decoding.run(pixels, upload, AbortSignal.timeout(media.timeoutMs)).catch((error) => {
        throw error instanceof WaitAborted
          ? new ImportRefused(
              `the site was decoding other images for longer than ${media.timeoutMs} ms (media.timeoutMs, media.maxPixelsDecodingAtOnce)`
            )
          : error;
      });
    });
  }

  /**
   * Takes only a picture of at most `maxPixels` pixels and within what is left of the request's
   * `budget`, and its pixels from that budget: the upload decodes every pixel of every frame of an
   * animated GIF or WebP for each of its thumbnails and formats. A JPEG of more than
   * MAX_JPEG_SCANS scans is refused: each scan decodes the picture again. Answers the pixels.
   */
  async function assertWithinLimits(
    { filepath, mime, label }: DownloadedImage,
    maxPixels: number,
    budget: PixelBudget
  ): Promise<number> {
    if (mime === 'image/jpeg') {
      const scans = countJpegScans(await readFile(filepath));
      if (scans > MAX_JPEG_SCANS) {
        throw new ImportRefused(
          `the JPEG has ${scans} scans, over the limit of ${MAX_JPEG_SCANS}: each scan decodes the whole picture again`
        );
      }
    }
    // Read from the header (sharp's metadata), before the full decode of isFaultyImage. Without
    // `animated`, width and height are those of one frame; `pages` counts the frames.
    const { width, height, pageHeight, pages } = await uploadPluginSharp(strapi.dirs.app.root)(filepath)
      .metadata()
      .catch(() => ({ width: 0, height: 0, pageHeight: undefined, pages: undefined }));
    const frameHeight = pageHeight ?? height;
    const frames = pages ?? 1;
    const pixels = width * frameHeight * frames;
    const size = `${width} × ${frameHeight} pixels${frames > 1 ? ` in ${frames} frames` : ''} (${megapixels(pixels)} megapixels)`;
    if (pixels > maxPixels) {
      throw new ImportRefused(
        `the image is ${size}, over the ${megapixels(maxPixels)} megapixel limit (media.maxPixels)`
      );
    }
    if (pixels > budget.remaining) {
      throw new ImportRefused(
        `the image is ${size}, more than the ${megapixels(budget.remaining)} megapixels left of the request's limit (media.maxPixelsPerRequest)`
      );
    }
    if (!pixels) throw new ImportRefused(`the file is not a readable ${label} image`);
    // Taken before anything else awaits: the request's other downloads draw on the same budget.
    budget.remaining -= pixels;
    return pixels;
  }

  /**
   * The upload plugin stores bytes of a type it does not decode as a plain file without
   * dimensions, so for those the import asks that decoder first (a full decode) and takes only
   * a picture it can read.
   */
  async function assertReadable(filepath: string, label: string) {
    const imaging = strapi.plugin('upload').service('image-manipulation');
    const file = { filepath, getStream: () => createReadStream(filepath) };
    if (await imaging.isFaultyImage(file)) {
      throw new ImportRefused(`the file is not a readable ${label} image`);
    }
  }

  /** Deletes a file an import uploaded but does not keep. */
  async function discard(file: UploadedFile) {
    try {
      await uploads().remove(file);
    } catch (error) {
      strapi.log.warn(
        `[${PLUGIN_ID}] could not delete unused media file ${file.id}: ${(error as Error).message}`
      );
    }
  }

  function reasonOf(error: unknown): string {
    if (error instanceof ImportRefused) return error.message;
    const { name, message, stack } = error as Error;
    // The upload plugin's own checks (e.g. its upload size limit) arrive as its errors.
    if (name === 'ApplicationError' || name === 'PayloadTooLargeError') {
      return `the Media Library refused the file: ${message}`;
    }
    strapi.log.error(`[${PLUGIN_ID}] image import failed unexpectedly: ${stack ?? error}`);
    return `the import failed: ${message ?? error}`;
  }

  /** A fresh allowance of pixels for the images of one request; reused files cost none of it. */
  const requestBudget = (): PixelBudget => ({ remaining: mediaConfig().maxPixelsPerRequest });

  return {
    requestBudget,

    /**
     * Takes the request's replay receipt, in a transaction of its own, before its images are
     * downloaded: an exact replay throws here (ReplayDetected) and downloads nothing. Each image's
     * own transactions then find the receipt already theirs.
     */
    async claimRequest(): Promise<void> {
      await transactions().run(async () => undefined);
    },

    /**
     * Imports the image at `rawUrl`, or reuses the file an earlier import of the same URL made.
     * Never throws for a bad, unsafe or failed download: it answers `ok: false` with the reason.
     * It throws for an exact replay of a request: call `claimRequest` first, so that a replay
     * imports nothing. Call it outside any transaction: a download must not hold database locks.
     */
    async importImage(
      rawUrl: string,
      options: ImportOptions = {},
      budget: PixelBudget = requestBudget()
    ): Promise<MediaResult> {
      if (strapi.db.inTransaction()) {
        throw new Error('media.importImage must not run inside a database transaction');
      }
      try {
        const url = parseImageUrl(rawUrl);
        const key = keyOf(url);
        // A plain read: claim() reads it again under the registry's lock before anything is kept.
        const existing = await registeredFile(null, key);
        if (existing) return { ok: true, file: existing, reused: true };

        const uploaded = await downloadAndUpload(url, options, budget);
        const winner = await claim(key, uploaded).catch(async (error) => {
          await discard(uploaded);
          throw error;
        });
        if (!winner) return { ok: true, file: uploaded, reused: false };
        await discard(uploaded);
        return { ok: true, file: winner, reused: true };
      } catch (error) {
        // A replay runs nothing, its imports included: the request answers with the first answer.
        if (error instanceof ReplayDetected) throw error;
        const reason = reasonOf(error);
        strapi.log.warn(`[${PLUGIN_ID}] image ${displayUrl(rawUrl)} was not imported: ${reason}`);
        return { ok: false, reason };
      }
    },

    /**
     * Takes back a file `importImage` uploaded (`reused: false`) for a request whose write then
     * failed, so the Media Library keeps no file that nothing refers to. The URL's registry entry
     * goes with it. A file an entry links meanwhile (a concurrent request that reused it) stays.
     */
    async release(rawUrl: string, file: UploadedFile): Promise<void> {
      try {
        const key = keyOf(parseImageUrl(rawUrl));
        const released = await transactions().run(async (transaction: Transaction) => {
          const target = await identities().lookup(transaction.trx, RESOURCE, key);
          if (target !== String(file.id) || (await fileLinks(strapi).isLinked(transaction.trx, file.id)))
            return false;
          await identities().forgetKey(transaction.trx, RESOURCE, key);
          return true;
        });
        if (released) await discard(file);
      } catch (error) {
        strapi.log.warn(
          `[${PLUGIN_ID}] could not take back media file ${file.id} of a failed request: ${(error as Error).message}`
        );
      }
    },
  };
};
