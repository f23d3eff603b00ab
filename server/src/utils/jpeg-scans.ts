/**
 * The scans a JPEG imported into the Media Library may have. A progressive JPEG's decode costs
 * about pixels × scans: one of 40 megapixels in 885 scans took 8 s of CPU although its file was
 * 190 KB. Encoders write few: libjpeg's progressive default is 10 scans for colour and 6 for grey,
 * Photoshop's 3 to 5, mozjpeg's optimised ones a few more, a baseline JPEG 1 per component at
 * most. libjpeg-turbo offers the same guard (djpeg -maxscans, TurboJPEG's scan limit); 100 keeps
 * every photo an encoder writes and bounds a crafted one to about a tenth of that cost.
 */
export const MAX_JPEG_SCANS = 100;

/**
 * How many scans (SOS segments) a JPEG decoder reads from `bytes`, found the way libjpeg reads
 * markers: segments are skipped by their length, so bytes inside an APP segment (an EXIF
 * thumbnail) or a comment are not counted; after an SOS header the entropy-coded data runs to the
 * next marker, where 0xFF00 is a stuffed byte and RST0–7 carry no length; bytes that are not a
 * marker where one is due are skipped to the next one, as the decoder resynchronises; counting
 * stops at EOI, as the decoder does (a camera's MPO appends further pictures after it). A
 * truncated file counts the scans up to where it ends. Where the structure is doubtful the count
 * errs high: a refused image is noted, an uncounted scan costs a full decode.
 */
export function countJpegScans(bytes: Uint8Array): number {
  if (bytes[0] !== 0xff || bytes[1] !== MARKER.SOI) return 0;
  let scans = 0;
  let position = 2;
  for (;;) {
    const marker = nextMarker(bytes, position);
    if (!marker || marker.code === MARKER.EOI) return scans;
    position = marker.end;
    if (!hasLength(marker.code)) continue;
    if (position + 2 > bytes.length) return scans;
    const length = (bytes[position] << 8) | bytes[position + 1];
    if (marker.code === MARKER.SOS) scans += 1;
    // A length below 2 counts its own two bytes only: libjpeg skips nothing of such a comment or
    // APP segment and reads on (a counter that stopped there saw none of the 883 scans after it).
    position += Math.max(length, 2);
  }
}

const MARKER = { SOI: 0xd8, EOI: 0xd9, SOS: 0xda, TEM: 0x01 } as const;
const isRestart = (code: number) => code >= 0xd0 && code <= 0xd7;
const hasLength = (code: number) => code !== MARKER.SOI && code !== MARKER.TEM && !isRestart(code);

/**
 * The first marker at or after `from`: 0xFF, any 0xFF fill bytes, then a code other than 0x00 (a
 * stuffed 0xFF in entropy-coded data). `end` is where the marker's segment (its length) begins.
 */
function nextMarker(bytes: Uint8Array, from: number): { code: number; end: number } | null {
  let position = bytes.indexOf(0xff, from);
  while (position !== -1) {
    while (bytes[position + 1] === 0xff) position += 1;
    if (position + 1 >= bytes.length) return null;
    const code = bytes[position + 1];
    if (code !== 0x00) return { code, end: position + 2 };
    position = bytes.indexOf(0xff, position + 2);
  }
  return null;
}
