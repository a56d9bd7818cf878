/**
 * Thumbnailing throughput: a 12-megapixel JPEG (4000×3000, photo-like noise) made into Zulip's
 * 840x560 WebP thumbnail, one at a time and as a burst through the image limiter, with the
 * event loop's delay measured meanwhile (the work runs on libvips threads, off the loop).
 *   npm run bench -- thumbnails [images per burst, default 24]
 */
import { availableParallelism } from "node:os";
import { monitorEventLoopDelay } from "node:perf_hooks";
import sharp from "sharp";
import { probeImage, resizeImageWithInfo } from "../../src/media/images.js";

async function twelveMegapixelJpeg(): Promise<Buffer> {
  const width = 4000;
  const height = 3000;
  const pixels = Buffer.alloc(width * height * 3);
  let seed = 12345;
  for (let i = 0; i < pixels.length; i += 3) {
    seed = (seed * 1103515245 + 12345) >>> 0;
    const x = (i / 3) % width;
    const y = Math.floor(i / 3 / width);
    // Smooth gradients with some grain: roughly what a camera's JPEG costs to decode.
    pixels[i] = (x * 255) / width + ((seed >>> 24) & 15);
    pixels[i + 1] = (y * 255) / height + ((seed >>> 16) & 15);
    pixels[i + 2] = ((x + y) * 127) / (width + height) + ((seed >>> 8) & 15);
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } }).jpeg({ quality: 90 }).toBuffer();
}

const thumbnail = (jpeg: Buffer) => resizeImageWithInfo(jpeg, { width: 840, height: 560, fit: "inside", format: "webp" });

export async function run(args: string[]): Promise<void> {
  const burst = Number(args[0] ?? 24);
  const jpeg = await twelveMegapixelJpeg();
  console.log(`source: 4000x3000 JPEG, ${(jpeg.length / 1e6).toFixed(1)} MB; ${availableParallelism()} cores`);

  const probeStart = performance.now();
  for (let i = 0; i < 100; i++) await probeImage(jpeg);
  console.log(`probe (header only)        ${((performance.now() - probeStart) / 100).toFixed(2)} ms/image`);

  await thumbnail(jpeg);
  const sequential = 5;
  let start = performance.now();
  for (let i = 0; i < sequential; i++) await thumbnail(jpeg);
  let seconds = (performance.now() - start) / 1000;
  console.log(`one at a time              ${(sequential / seconds).toFixed(2)} images/s  (${((seconds / sequential) * 1000).toFixed(0)} ms each)`);

  const lag = monitorEventLoopDelay({ resolution: 10 });
  lag.enable();
  start = performance.now();
  await Promise.all(Array.from({ length: burst }, () => thumbnail(jpeg)));
  seconds = (performance.now() - start) / 1000;
  lag.disable();
  console.log(`burst of ${String(burst).padEnd(17)} ${(burst / seconds).toFixed(2)} images/s  (${seconds.toFixed(1)} s)`);
  console.log(`event loop delay meanwhile p50 ${(lag.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(lag.percentile(99) / 1e6).toFixed(1)} ms, max ${(lag.max / 1e6).toFixed(1)} ms`);
}
