import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import zlib from 'node:zlib';
import sharp from 'sharp';

/**
 * A stand-in for a publisher's image host, on loopback: real PNG and JPEG bytes, and the ways a
 * download goes wrong (404, HTML, SVG, a lying content type, oversized and endless bodies,
 * redirects).
 */

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(zlib.crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A PNG of `width` × `height` with the given bit depth and colour type, from its raw filtered rows. */
function assemblePng(width: number, height: number, bitDepth: number, colourType: number, rows: Buffer) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.writeUInt8(bitDepth, 8);
  header.writeUInt8(colourType, 9);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(rows)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A valid truecolour PNG of the given size, each pixel a different shade, built byte by byte. */
export function makePng(width: number, height: number): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y += 1) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0, then RGB triples
    for (let x = 0; x < width; x += 1) row.set([(x * 70) % 256, (y * 90) % 256, 160], 1 + x * 3);
    rows.push(row);
  }
  return assemblePng(width, height, 8, 2, Buffer.concat(rows)); // 8 bits, colour type 2: RGB
}

/**
 * A valid white PNG whose pixels are cheap to store but not to decode: one bit per pixel, so
 * 16,000 × 16,000 pixels deflate to a few tens of KB while a decoder expands them to 256 million.
 */
export function makeBlankPng(width: number, height: number): Buffer {
  // Filter byte 0, then every bit set (white).
  const row = Buffer.alloc(1 + Math.ceil(width / 8), 0xff);
  row[0] = 0;
  return assemblePng(width, height, 1, 0, Buffer.concat(Array<Buffer>(height).fill(row))); // 1 bit, greyscale
}

export const HUGE_PNG_SIZE = { width: 16_000, height: 16_000 };

/** A white PNG of one megapixel, a few KB: images under the per-image limit that add up. */
export const MEGAPIXEL_PNG_SIZE = { width: 1_000, height: 1_000 };

/** Animated GIF and WebP images: frames of this size, each a different colour so none is merged. */
export const ANIMATION_SIZE = { width: 500, height: 500, frames: 6 };

async function makeAnimation(format: 'gif' | 'webp'): Promise<Buffer> {
  const { width, height, frames } = ANIMATION_SIZE;
  const pictures = await Promise.all(
    Array.from({ length: frames }, (_, index) =>
      sharp({ create: { width, height, channels: 3, background: { r: index * 40, g: 100, b: 200 } } })
        .png()
        .toBuffer()
    )
  );
  return sharp(pictures, { join: { animated: true } })
    [format]()
    .toBuffer();
}

export const PNG_SIZE = { width: 5, height: 3 };
export const PNG_BYTES = makePng(PNG_SIZE.width, PNG_SIZE.height);
export const JPEG_SIZE = { width: 8, height: 6 };

/** A real baseline JPEG, encoded by sharp (the image library Strapi's upload plugin itself uses). */
async function makeJpeg(): Promise<Buffer> {
  return sharp(makePng(JPEG_SIZE.width, JPEG_SIZE.height)).jpeg({ quality: 90 }).toBuffer();
}

/** One JPEG segment: the marker 0xFF `code`, the length (counting itself), then `payload`. */
export function jpegSegment(code: number, payload: number[] | Buffer): Buffer {
  const length = Buffer.alloc(2);
  length.writeUInt16BE(payload.length + 2);
  return Buffer.concat([Buffer.from([0xff, code]), length, Buffer.from(payload)]);
}

/**
 * A valid progressive greyscale JPEG of 8 × 8 pixels in 64 × (shifts + 1) scans: each of the 64
 * coefficients is sent first shifted right by `shifts` bits, then refined one bit per scan, every
 * scan a single Huffman code. Decoders read every scan in turn; this is the cheap file whose
 * decode costs pixels × scans, which sharp cannot write.
 */
export function makeManyScanJpeg(shifts: number): Buffer {
  const side = 8;
  // One symbol (0: a zero DC difference, or the end of the block's band) coded as the bit 0.
  const oneSymbolTable = (tableClass: number) => [tableClass << 4, 1, ...Array(15).fill(0), 0x00];
  const scan = (coefficient: number, high: number, low: number) =>
    Buffer.concat([
      jpegSegment(0xda, [1, 1, 0x00, coefficient, coefficient, (high << 4) | low]),
      Buffer.from([0x7f]), // the code 0, padded with 1 bits
    ]);
  const scans: Buffer[] = [];
  for (let coefficient = 0; coefficient < 64; coefficient += 1) {
    scans.push(scan(coefficient, 0, shifts));
    for (let low = shifts - 1; low >= 0; low -= 1) scans.push(scan(coefficient, low + 1, low));
  }
  return Buffer.concat([
    Buffer.from([0xff, 0xd8]),
    jpegSegment(0xdb, [0, ...Array(64).fill(1)]), // quantisation table 0, all ones
    jpegSegment(0xc2, [8, 0, side, 0, side, 1, 1, 0x11, 0]), // progressive, one component
    jpegSegment(0xc4, [...oneSymbolTable(0), ...oneSymbolTable(1)]),
    ...scans,
    Buffer.from([0xff, 0xd9]),
  ]);
}

/** A JPEG of more scans than media import accepts (MAX_JPEG_SCANS). */
export const MANY_SCANS_JPEG = { width: 8, height: 8, scans: 128, bytes: makeManyScanJpeg(1) };

/** A PNG whose header says 5 × 3 and whose pixel data is not zlib: its size reads, its pixels do not. */
const BROKEN_PIXELS_PNG = Buffer.concat([
  PNG_BYTES.subarray(0, 33), // the signature and the IHDR chunk
  pngChunk('IDAT', Buffer.alloc(40, 0x41)),
  pngChunk('IEND', Buffer.alloc(0)),
]);

/** A 64 × 48 AVIF as sharp writes it. */
async function makeAvif(): Promise<Buffer> {
  return sharp(makePng(64, 48)).avif().toBuffer();
}

/** `avif` with its coded picture (the `mdat` box's payload) overwritten: its size reads, its pixels do not. */
const withBrokenPixels = (avif: Buffer) => Buffer.from(avif).fill(0x55, avif.indexOf('mdat') + 4);

export type ImageServer = {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  url(pathAndQuery: string): string;
  /** How many requests reached `path` (query string ignored). */
  hits(path: string): number;
  /** The most requests under /delayed/ that were being answered at the same time. */
  mostAtOnce(): number;
  stop(): Promise<void>;
};

export async function startImageServer(): Promise<ImageServer> {
  const jpeg = await makeJpeg();
  const avif = await makeAvif();
  const animations = { gif: await makeAnimation('gif'), webp: await makeAnimation('webp') };
  const megapixelPng = makeBlankPng(MEGAPIXEL_PNG_SIZE.width, MEGAPIXEL_PNG_SIZE.height);
  let hugePng: Buffer | undefined;
  const hits = new Map<string, number>();
  let delayedNow = 0;
  let delayedMost = 0;
  const sockets = new Set<Socket>();

  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://image-server');
    hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
    const send = (
      status: number,
      type: string,
      body: Buffer | string,
      headers: http.OutgoingHttpHeaders = {}
    ) => {
      response.writeHead(status, {
        'content-type': type,
        'content-length': Buffer.byteLength(body),
        ...headers,
      });
      response.end(body);
    };

    // Any path ending in .png (.avif) under /images/ serves the PNG (the AVIF), so tests can make URLs of their own.
    if (url.pathname.startsWith('/images/') && url.pathname.endsWith('.png')) {
      return send(200, 'image/png', PNG_BYTES);
    }
    if (url.pathname.startsWith('/images/') && url.pathname.endsWith('.avif')) {
      return send(200, 'image/avif', avif);
    }
    // Any path ending in .png under /huge-pixels/ serves a small file of 16,000 × 16,000 pixels.
    if (url.pathname.startsWith('/huge-pixels/') && url.pathname.endsWith('.png')) {
      hugePng ??= makeBlankPng(HUGE_PNG_SIZE.width, HUGE_PNG_SIZE.height);
      return send(200, 'image/png', hugePng);
    }
    // Any path under /megapixel/ ending in .png serves a white PNG of MEGAPIXEL_PNG_SIZE.
    if (url.pathname.startsWith('/megapixel/') && url.pathname.endsWith('.png')) {
      return send(200, 'image/png', megapixelPng);
    }
    // Any path under /animated/ ending in .gif or .webp serves an animation of ANIMATION_SIZE.
    const animation = /^\/animated\/.+\.(gif|webp)$/.exec(url.pathname)?.[1] as 'gif' | 'webp' | undefined;
    if (animation) return send(200, `image/${animation}`, animations[animation]);
    // Any path under /many-scans/ ending in .jpg serves MANY_SCANS_JPEG.
    if (url.pathname.startsWith('/many-scans/') && url.pathname.endsWith('.jpg')) {
      return send(200, 'image/jpeg', MANY_SCANS_JPEG.bytes);
    }
    // Any path ending in .png under /delayed/ serves the PNG after `?ms=` (default 200) milliseconds.
    if (url.pathname.startsWith('/delayed/') && url.pathname.endsWith('.png')) {
      delayedNow += 1;
      delayedMost = Math.max(delayedMost, delayedNow);
      return void setTimeout(
        () => {
          delayedNow -= 1;
          send(200, 'image/png', PNG_BYTES);
        },
        Number(url.searchParams.get('ms') ?? 200)
      );
    }
    switch (url.pathname) {
      case '/photo.jpg':
        return send(200, 'image/jpeg; charset=binary', jpeg);
      case '/missing.png':
        return send(404, 'text/plain', 'Not Found');
      case '/page.html':
        return send(200, 'text/html; charset=utf-8', '<!doctype html><title>Not an image</title>');
      case '/logo.svg':
        return send(
          200,
          'image/svg+xml',
          '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
        );
      case '/disguised.jpg':
        // PNG bytes under a JPEG label: the content type lies.
        return send(200, 'image/jpeg', PNG_BYTES);
      case '/corrupt.png':
        // The PNG signature followed by garbage: passes the signature check, not the image decoder.
        return send(200, 'image/png', Buffer.concat([PNG_BYTES.subarray(0, 8), Buffer.alloc(200, 0x41)]));
      case '/broken-pixels.png':
        return send(200, 'image/png', BROKEN_PIXELS_PNG);
      case '/broken-pixels.avif':
        return send(200, 'image/avif', withBrokenPixels(avif));
      case '/huge-declared.png':
      case '/huge-streamed.png': {
        const total = Number(url.searchParams.get('bytes'));
        const declared = url.pathname === '/huge-declared.png';
        response.writeHead(200, {
          'content-type': 'image/png',
          ...(declared ? { 'content-length': total } : {}),
        });
        response.write(PNG_BYTES.subarray(0, 8));
        let left = total - 8;
        const chunk = Buffer.alloc(64 * 1024);
        const pump = () => {
          while (left > 0 && !response.destroyed) {
            const piece = chunk.subarray(0, Math.min(chunk.length, left));
            left -= piece.length;
            if (!response.write(piece)) return void response.once('drain', pump);
          }
          response.end();
        };
        response.on('error', () => undefined);
        return pump();
      }
      case '/slow.png':
        // Starts an image and never finishes it.
        response.writeHead(200, { 'content-type': 'image/png', 'content-length': PNG_BYTES.length });
        return void response.write(PNG_BYTES.subarray(0, 8));
      case '/redirect':
        return send(302, 'text/plain', 'Found', { location: url.searchParams.get('to') ?? '/' });
      case '/redirect-without-location':
        return send(302, 'text/plain', 'Found');
      default: {
        // /hops/N redirects N times (relative Locations) before landing on the PNG.
        const hops = /^\/hops\/(\d+)$/.exec(url.pathname);
        if (hops) {
          const left = Number(hops[1]);
          const location = left > 0 ? `/hops/${left - 1}` : '/images/after-hops.png';
          return send(301, 'text/plain', 'Moved', { location });
        }
        return send(404, 'text/plain', 'Not Found');
      }
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    url: (pathAndQuery) => `${origin}${pathAndQuery}`,
    hits: (path) => hits.get(path) ?? 0,
    mostAtOnce: () => delayedMost,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve()))
      );
    },
  };
}
