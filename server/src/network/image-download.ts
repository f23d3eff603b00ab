import type { LookupAddress } from 'node:dns';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { withoutCredentials } from '../utils/display-url';
import { parseAllowList, type AllowList } from './address-guard';
import { AddressRefused, HostUnresolved, pinnedLookup, resolveCheckedAddresses } from './checked-connection';

/**
 * Downloads a publisher's image into a temporary file: every hop's addresses checked and pinned,
 * the size bounded while it streams, and the first bytes matched against the type the server
 * declared. No Strapi here: what the Media Library does with the file is `services/publishing/media.ts`'s.
 */

/** The media settings a download obeys (the plugin config's `media`). */
export type DownloadLimits = { allowedHosts: readonly string[]; maxBytes: number; timeoutMs: number };

/** A downloaded image, in a temporary file that lasts while the caller's work runs. */
export type DownloadedImage = {
  /** The URL the image came from, after redirects. */
  url: URL;
  filepath: string;
  mime: string;
  ext: string;
  /** The type's name in messages: PNG, JPEG, ... */
  label: string;
  size: number;
};

/** An import the plugin declines; the message is the reason the caller gets. */
export class ImportRefused extends Error {}

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

/**
 * The image types accepted, each with the bytes its files start with. SVG is left out: it can
 * carry scripts. Not `file-type` (which Strapi's upload uses): its versions since 17 are ESM only,
 * which the CommonJS bundle cannot load under Jest (or on Node before 20.19) without an
 * experimental flag, and it would call an AVIF with a `mif1` major brand HEIF.
 */
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

/** `raw` (relative to `base`, for a redirect) as a URL the import may fetch: http or https only. */
export function parseImageUrl(raw: string, base?: URL): URL {
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
async function download(
  url: URL,
  destination: string,
  limits: DownloadLimits,
  signal: AbortSignal
): Promise<DownloadedImage> {
  const allowList = parseAllowList(limits.allowedHosts);
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
    if (declaredLength > limits.maxBytes) {
      throw new ImportRefused(
        `the server announced ${declaredLength} bytes, over the ${formatBytes(limits.maxBytes)} limit (media.maxBytes)`
      );
    }
    const limit = new SizeLimit(limits.maxBytes);
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
    return { url: finalUrl, filepath: destination, mime, ext: type.ext, label: type.label, size: limit.size };
  } finally {
    response.destroy();
  }
}

/**
 * Downloads the image at `url` within `limits` (media.timeoutMs for the download alone) and runs
 * `use` on it; the temporary file is removed when `use` settles, whatever the outcome.
 */
export async function withDownloadedImage<T>(
  url: URL,
  limits: DownloadLimits,
  use: (image: DownloadedImage) => Promise<T>
): Promise<T> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  const directory = await mkdtemp(path.join(os.tmpdir(), 'publish-bridge-media-'));
  try {
    const image = await download(url, path.join(directory, 'download'), limits, signal).catch((error) => {
      throw signal.aborted
        ? new ImportRefused(`the download took longer than ${limits.timeoutMs} ms (media.timeoutMs)`)
        : error;
    });
    return await use(image);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
