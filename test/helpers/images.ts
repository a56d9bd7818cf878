import { deflateSync } from "node:zlib";
import sharp from "sharp";

// Real images made by sharp, for tests of probing and thumbnailing.

export function solid(width: number, height: number, color = "#3070c0") {
  return sharp({ create: { width, height, channels: 3, background: color } });
}

export const pngImage = (w = 300, h = 200) => solid(w, h).png().toBuffer();
export const jpegImage = (w = 300, h = 200) => solid(w, h, "#c03030").jpeg().toBuffer();
export const webpImage = (w = 300, h = 200) => solid(w, h, "#30c030").webp().toBuffer();

export async function animatedGif(w = 120, h = 80, colors = ["red", "green", "blue"]): Promise<Buffer> {
  const frames = await Promise.all(colors.map((c) => solid(w, h, c).png().toBuffer()));
  return sharp(frames, { join: { animated: true } }).gif({ delay: 100 }).toBuffer();
}

// JPEG whose EXIF orientation (6: rotate 90°) swaps the displayed dimensions.
export const rotatedJpeg = (w = 300, h = 200) =>
  solid(w, h).jpeg().withMetadata({ orientation: 6 }).toBuffer();

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? 0xedb88320 ^ (crc >>> 1) : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}

// A tiny, valid-looking PNG whose header claims width × height RGB pixels:
// decoding it would need tens of gigabytes.
export function pixelBombPng(width = 100_000, height = 100_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // truecolour
  return Buffer.concat([
    Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(Buffer.alloc(1024))),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

// The first part of a real PNG: the header parses, the pixel data ends early.
export async function truncatedPng(): Promise<Buffer> {
  const noisy = await sharp(Buffer.from(Array.from({ length: 200 * 200 * 3 }, (_, i) => (i * 7919) % 251)), {
    raw: { width: 200, height: 200, channels: 3 },
  })
    .png()
    .toBuffer();
  return noisy.subarray(0, Math.floor(noisy.length / 2));
}

export const notAnImage = () => Buffer.from("This is a text file pretending to be a PNG.\n".repeat(20));
