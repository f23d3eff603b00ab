import type { Core } from '@strapi/strapi';
import { createHash } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PluginConfig } from '../config';
import { PLUGIN_ID } from '../constants';
import { parseAllowList, type AllowList } from '../network/address-guard';
import {
  AddressRefused,
  HostUnresolved,
  pinnedLookup,
  resolveCheckedAddresses,
} from '../network/checked-connection';
import { displayUrl, withoutCredentials } from '../utils/display-url';
import { countJpegScans, MAX_JPEG_SCANS } from '../utils/jpeg-scans';
import { toSlug } from '../utils/slug';
import { createWeightedSemaphore, WaitAborted } from '../utils/weighted-semaphore';
import { ReplayDetected } from './receipts';
import type { Transaction } from './transactions';
import type { MediaResult, UploadedFile } from './types';
import { getService, pluginConfig } from '../plugin';
import { joinTableOf } from '../database/tables';
import { rowsOf } from '../database/schemas';

export type ImportOptions = { alt?: string; caption?: string };
/** The pixels the images of one request may still add up to (media.maxPixelsPerRequest). */
export type PixelBudget = { remaining: number };

const RESOURCE = 'media';
const FILE_UID = 'plugin::upload.file';
const MAX_REDIRECTS = 3;
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Enough of the start of a file for every signature below, including an AVIF `ftyp` box. */
const HEAD_BYTES = 64;

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const ascii = (head: Buffer, start: number, end: number) => head.toString('latin1', start, end);

/** An ISO-BMFF `ftyp` box whose major or compatible brands name AVIF. */
function isAvif(head: Buffer): boolean {
  if (head.length < 12 || ascii(head, 4, 8) !== 'ftyp') return false;
  const boxEnd = Math.min(head.readUInt32BE(0), head.length);
  const brandOffsets = [8];
  for (let offset = 16; offset + 4 <= boxEnd; offset += 4) brandOffsets.push(offset);
  return brandOffsets.some((offset) => ['avif', 'avis'].includes(ascii(head, offset, offset + 4)));
}

/** The image types accepted, each with the bytes its files start with. SVG is left out: it can carry scripts. */
const IMAGE_TYPES: Record<string, { label: string; ext: string; matches(head: Buffer): boolean }> = {
  'image/png': { label: 'PNG', ext: '.png', matches: (head) => head.subarray(0, 8).equals(PNG_SIGNATURE) },
  'image/jpeg': {
    label: 'JPEG',
    ext: '.jpg',
    matches: (head) => head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff,
  },
  'image/gif': {
    label: 'GIF',
    ext: '.gif',
    matches: (head) => ['GIF87a', 'GIF89a'].includes(ascii(head, 0, 6)),
  },
  'image/webp': {
    label: 'WebP',
    ext: '.webp',
    matches: (head) => ascii(head, 0, 4) === 'RIFF' && ascii(head, 8, 12) === 'WEBP',
  },
  'image/avif': { label: 'AVIF', ext: '.avif', matches: isAvif },
};
const ACCEPT_HEADER = Object.keys(IMAGE_TYPES).join(', ');
const ACCEPTED_LABELS = Object.values(IMAGE_TYPES)
  .map(({ label }) => label)
  .join(', ');

const megapixels = (pixels: number) => +(pixels / 1_000_000).toFixed(1);

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

/** A download the service declines; the message is the reason the caller gets. */
class ImportRefused extends Error {}

const formatBytes = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${+(bytes / (1024 * 1024)).toFixed(1)} MB` : `${+(bytes / 1024).toFixed(1)} KB`;

/** Counts the bytes passing through, stops past the limit, and keeps the first bytes for the signature check. */
class SizeLimit extends Transform {
  size = 0;
  head = Buffer.alloc(0);

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      callback(
        new ImportRefused(`the image is larger than the ${formatBytes(this.maxBytes)} limit (media.maxBytes)`)
      );
      return;
    }
    if (this.head.length < HEAD_BYTES) {
      this.head = Buffer.concat([this.head, chunk.subarray(0, HEAD_BYTES - this.head.length)]);
    }
    callback(null, chunk);
  }
}

function parseImageUrl(raw: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    throw new ImportRefused(`"${withoutCredentials(raw).slice(0, 200)}" is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ImportRefused(`only http and https URLs are imported, not ${url.protocol}`);
  }
  return url;
}

/** A URL path decoded for a file name; a malformed escape is kept as written. */
function decodePath(pathname: string): string {
  try {
    return decodeURIComponent(pathname);
  } catch {
    return pathname;
  }
}

/** The checked addresses of `url`'s host, refusals phrased for the media settings. */
async function resolveForImport(url: URL, allowList: AllowList, signal: AbortSignal) {
  try {
    return await resolveCheckedAddresses(url, allowList, signal);
  } catch (error) {
    if (error instanceof HostUnresolved) throw new ImportRefused(error.message);
    if (error instanceof AddressRefused) {
      throw new ImportRefused(
        `${error.message}; list the host in media.allowedHosts of the plugin config to allow it`
      );
    }
    throw error;
  }
}

function request(url: URL, addresses: LookupAddress[], signal: AbortSignal): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    client
      // A fresh agent: a pooled socket could have been opened to an address checked under another config.
      .get(
        url,
        { agent: false, lookup: pinnedLookup(addresses), signal, headers: { accept: ACCEPT_HEADER } },
        resolve
      )
      .on('error', reject);
  });
}

/** The response that carries the image, after at most MAX_REDIRECTS redirects, each hop checked. */
async function fetchImageResponse(start: URL, allowList: AllowList, signal: AbortSignal) {
  let url = start;
  for (let redirects = 0; ; redirects += 1) {
    const addresses = await resolveForImport(url, allowList, signal);
    let response: IncomingMessage;
    try {
      response = await request(url, addresses, signal);
    } catch (error) {
      if (signal.aborted) throw error;
      const { code, message } = error as NodeJS.ErrnoException;
      throw new ImportRefused(`the download from ${url.host} failed (${code ?? message})`);
    }
    const status = response.statusCode ?? 0;
    if (!REDIRECT_STATUSES.has(status)) return { url, response };
    response.destroy();
    const location = response.headers.location;
    if (!location) throw new ImportRefused(`the server answered HTTP ${status} without a Location header`);
    if (redirects === MAX_REDIRECTS)
      throw new ImportRefused(`the URL redirects more than ${MAX_REDIRECTS} times`);
    url = parseImageUrl(location, url);
  }
}

/** Downloads the image at `url` into `destination`, refusing anything that is not a small, genuine image. */
async function download(url: URL, destination: string, media: PluginConfig['media'], signal: AbortSignal) {
  const allowList = parseAllowList(media.allowedHosts);
  const { url: finalUrl, response } = await fetchImageResponse(url, allowList, signal);
  try {
    if (response.statusCode !== 200) {
      throw new ImportRefused(`the server answered HTTP ${response.statusCode}`);
    }
    const mime = (response.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (mime === 'image/svg+xml')
      throw new ImportRefused('SVG images are not imported: they can carry scripts');
    const type = IMAGE_TYPES[mime];
    if (!type) {
      throw new ImportRefused(
        `the server sent ${mime ? `"${mime}"` : 'no content type'}, not an image (accepted: ${ACCEPTED_LABELS})`
      );
    }
    const declaredLength = Number(response.headers['content-length']);
    if (declaredLength > media.maxBytes) {
      throw new ImportRefused(
        `the server announced ${declaredLength} bytes, over the ${formatBytes(media.maxBytes)} limit (media.maxBytes)`
      );
    }
    const limit = new SizeLimit(media.maxBytes);
    try {
      await pipeline(response, limit, createWriteStream(destination), { signal });
    } catch (error) {
      if (error instanceof ImportRefused || signal.aborted) throw error;
      const { code, message } = error as NodeJS.ErrnoException;
      throw new ImportRefused(`the download from ${finalUrl.host} broke off (${code ?? message})`);
    }
    if (!type.matches(limit.head)) {
      throw new ImportRefused(`the server called the content ${mime}, but it is not a ${type.label} image`);
    }
    return { url: finalUrl, mime, ext: type.ext, label: type.label, size: limit.size };
  } finally {
    response.destroy();
  }
}

/**
 * Imports images from publishers' URLs into the Media Library: one file per source URL, so a
 * republished post reuses the file it got the first time.
 */
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

  /** The file the registry holds for `key`; a key whose file was deleted from the Media Library is dropped. */
  async function registeredFile({ trx }: Transaction, key: string): Promise<UploadedFile | null> {
    const target = await identities().lookup(trx, RESOURCE, key);
    if (!target) return null;
    const file = (await files().findOne({ where: { id: Number(target) } })) as UploadedFile | null;
    if (!file) await identities().forgetKey(trx, RESOURCE, key);
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
    const signal = AbortSignal.timeout(media.timeoutMs);
    const directory = await mkdtemp(path.join(os.tmpdir(), 'publish-bridge-media-'));
    try {
      const filepath = path.join(directory, 'download');
      const image = await download(url, filepath, media, signal).catch((error) => {
        throw signal.aborted
          ? new ImportRefused(`the download took longer than ${media.timeoutMs} ms (media.timeoutMs)`)
          : error;
      });
      const pixels = await assertWithinLimits(filepath, image.label, media.maxPixels, budget);
      const name = `${toSlug(path.parse(decodePath(image.url.pathname)).name, 'image')}${image.ext}`;
      // The check and the upload decode the whole picture: both hold its pixels of the process's
      // allowance, which an image waits for as long as its download may take, no longer.
      const upload = async () => {
        await assertReadable(filepath, image.label);
        const [file] = (await uploads().upload({
          data: { fileInfo: { name, alternativeText: options.alt, caption: options.caption } },
          files: { filepath, originalFilename: name, mimetype: image.mime, size: image.size },
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
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }

  /**
   * Takes only a picture of at most `maxPixels` pixels and within what is left of the request's
   * `budget`, and its pixels from that budget: the upload decodes every pixel of every frame of an
   * animated GIF or WebP for each of its thumbnails and formats. A JPEG of more than
   * MAX_JPEG_SCANS scans is refused: each scan decodes the picture again. Answers the pixels.
   */
  async function assertWithinLimits(
    filepath: string,
    label: string,
    maxPixels: number,
    budget: PixelBudget
  ): Promise<number> {
    if (label === IMAGE_TYPES['image/jpeg'].label) {
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
   * The upload plugin stores bytes its decoder cannot read as a plain file without dimensions,
   * so the import asks that decoder first (a full decode) and takes only a picture it can read.
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

  /** Whether an entry links the file through a media attribute (the upload plugin's morph table). */
  async function isLinked({ trx }: Transaction, fileId: number): Promise<boolean> {
    const { name, joinColumn } = joinTableOf(strapi, FILE_UID, 'related');
    const knex = strapi.db.connection as any;
    return Boolean(await knex(name).transacting(trx).first(joinColumn).where(joinColumn, fileId));
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
     * Imports the image at `rawUrl`, or reuses the file an earlier import of the same URL made.
     * Never throws for a bad, unsafe or failed download: it answers `ok: false` with the reason.
     * It throws for an exact replay of a request, which imports nothing.
     * Call it outside any transaction: a download must not hold database locks.
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
        const existing = await transactions().run((transaction: Transaction) =>
          registeredFile(transaction, key)
        );
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
          if (target !== String(file.id) || (await isLinked(transaction, file.id))) return false;
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
