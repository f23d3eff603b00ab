import sharp, { type JpegOptions } from 'sharp';
import { countJpegScans, MAX_JPEG_SCANS } from '../../server/src/utils/jpeg-scans';
import { jpegSegment, makeManyScanJpeg, makePng } from '../helpers/image-server';

const SOI = Buffer.from([0xff, 0xd8]);
const EOI = Buffer.from([0xff, 0xd9]);
/** An SOS header (one component) followed by entropy-coded `data`. */
const scan = (data: number[]) =>
  Buffer.concat([jpegSegment(0xda, [1, 1, 0x00, 0, 63, 0]), Buffer.from(data)]);

async function encode(options: JpegOptions): Promise<Buffer> {
  return sharp(makePng(64, 48)).jpeg(options).toBuffer();
}

describe('countJpegScans', () => {
  it('counts the one scan of a baseline JPEG and the few of progressive ones encoders write, all under MAX_JPEG_SCANS', async () => {
    expect(countJpegScans(await encode({ quality: 90 }))).toBe(1);
    for (const options of [
      { progressive: true },
      { progressive: true, mozjpeg: true },
      { progressive: true, chromaSubsampling: '4:4:4' },
    ]) {
      const scans = countJpegScans(await encode(options));
      expect(scans).toBeGreaterThan(1);
      expect(scans).toBeLessThanOrEqual(20);
    }
    expect(MAX_JPEG_SCANS).toBeGreaterThan(20);
  });

  it('counts every scan of a crafted progressive JPEG', () => {
    expect(countJpegScans(makeManyScanJpeg(1))).toBe(128);
    expect(countJpegScans(makeManyScanJpeg(13))).toBe(896);
  });

  it('does not count scans inside a segment, such as an EXIF thumbnail or markers in a comment', async () => {
    const photo = await encode({ quality: 90 });
    const thumbnail = await encode({ progressive: true });
    const comment = Buffer.alloc(1000, 0);
    for (let offset = 0; offset < comment.length; offset += 4) comment.set([0xff, 0xda], offset);
    const withSegments = Buffer.concat([
      SOI,
      jpegSegment(0xe1, Buffer.concat([Buffer.from('Exif\0\0'), thumbnail])),
      jpegSegment(0xfe, comment),
      photo.subarray(2),
    ]);
    expect(countJpegScans(withSegments)).toBe(1);
  });

  it('reads through stuffed 0xFF00 bytes and restart markers in entropy-coded data, and fill bytes before a marker', () => {
    const jpeg = Buffer.concat([
      SOI,
      scan([0x12, 0xff, 0x00, 0xda, 0xff, 0xd3, 0x34, 0xff, 0x00]),
      Buffer.from([0xff, 0xff, 0xff]), // fill bytes before the next marker
      scan([0x56]),
      EOI,
    ]);
    expect(countJpegScans(jpeg)).toBe(2);
  });

  it('skips bytes that are not a marker where one is due, as a decoder resynchronises', () => {
    const jpeg = Buffer.concat([SOI, Buffer.from([0x00, 0x41, 0x42]), scan([0x01]), scan([0x02]), EOI]);
    expect(countJpegScans(jpeg)).toBe(2);
  });

  it('stops at the end of the first picture, like a decoder, and at the end of a truncated file', async () => {
    const many = makeManyScanJpeg(1);
    expect(countJpegScans(Buffer.concat([await encode({ quality: 90 }), many]))).toBe(1);
    expect(countJpegScans(many.subarray(0, many.length / 2))).toBeGreaterThan(50);
    expect(countJpegScans(Buffer.concat([SOI, jpegSegment(0xda, [1]).subarray(0, 3)]))).toBe(0);
  });

  // libjpeg skips nothing of a comment or APP segment whose length is below 2 and reads on: a
  // counter that stopped there let 883 scans through (fourth attack review).
  it.each([
    ['a comment of length 0', [0xff, 0xfe, 0x00, 0x00]],
    ['an APP1 segment of length 1', [0xff, 0xe1, 0x00, 0x01]],
  ])('counts the scans after %s', (_, bogus) => {
    const crafted = makeManyScanJpeg(1);
    const withBogus = Buffer.concat([SOI, Buffer.from(bogus), crafted.subarray(2)]);
    expect(countJpegScans(withBogus)).toBe(128);
  });

  it('counts nothing in bytes that are not a JPEG', () => {
    expect(countJpegScans(makePng(2, 2))).toBe(0);
    expect(countJpegScans(Buffer.alloc(0))).toBe(0);
  });
});
