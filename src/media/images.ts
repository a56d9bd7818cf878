import { availableParallelism } from "node:os";
import sharp from "sharp";

// Zulip refuses any image whose pixel count exceeds this (about a quarter
// gigabyte at 3 bytes a pixel); animated images get a third of it for the
// first three frames, since a thumbnail renders at least that many.
export const IMAGE_BOMB_TOTAL_PIXELS = 90_000_000;
export const IMAGE_MAX_ANIMATED_PIXELS = IMAGE_BOMB_TOTAL_PIXELS / 3;

export type ImageFormat = "jpeg" | "png" | "gif" | "webp" | "tiff" | "heif" | "svg";
const SUPPORTED_FORMATS = new Set<string>(["jpeg", "png", "gif", "webp", "tiff", "heif", "svg"]);

export type ImageInfo = {
  format: ImageFormat;
  // As displayed, after the EXIF orientation is applied.
  width: number;
  height: number;
  frames: number;
  animated: boolean;
};

export type ImageRefusalReason = "not_image" | "unsupported" | "too_large" | "corrupt" | "busy";

const REFUSAL_MESSAGES: Record<ImageRefusalReason, string> = {
  not_image: "Could not decode image; did you upload an image file?",
  unsupported: "Unsupported image format",
  too_large: "Image size exceeds limit.",
  corrupt: "Image is corrupted or truncated",
  busy: "Image processing is busy; try again later",
};

export type ImageRefusal = { ok: false; reason: ImageRefusalReason; message: string };
export type ProbeResult = ({ ok: true } & ImageInfo) | ImageRefusal;

export class ImageError extends Error {
  constructor(readonly reason: ImageRefusalReason) {
    super(REFUSAL_MESSAGES[reason]);
  }
}

function refusal(reason: ImageRefusalReason): ImageRefusal {
  return { ok: false, reason, message: REFUSAL_MESSAGES[reason] };
}

// libvips' operation cache only helps repeated identical pipelines, which we
// never run; it would just hold decoded pixels in memory.
sharp.cache(false);
// One libvips thread per image: parallelism comes from the limiter below,
// so a burst of uploads cannot take every core away from the event loop.
sharp.concurrency(1);

const MAX_RUNNING = Math.max(1, availableParallelism() - 1);
const MAX_QUEUED = 64;
let running = 0;
const waiting: Array<() => void> = [];

// Every decode goes through here. Work beyond MAX_QUEUED is refused rather
// than queued without bound; callers on a durable queue retry later.
async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= MAX_RUNNING) {
    if (waiting.length >= MAX_QUEUED) throw new ImageError("busy");
    await new Promise<void>((resolve) => waiting.push(resolve));
  } else {
    running++;
  }
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

function classify(err: unknown): ImageRefusalReason {
  const msg = err instanceof Error ? err.message : "";
  if (/exceeds pixel limit/i.test(msg)) return "too_large";
  if (/unsupported image format/i.test(msg)) return "not_image";
  return "corrupt";
}

function withinLimits(width: number, height: number, frames: number): boolean {
  if (frames <= 1) return width * height <= IMAGE_BOMB_TOTAL_PIXELS;
  return width * height * Math.min(3, frames) <= IMAGE_MAX_ANIMATED_PIXELS;
}

// Reads only the header: dimensions and frame count come from metadata, so
// an image bomb is refused before any pixel is decoded. Cheap (about a
// millisecond), so not held back by the limiter: an upload during a burst
// of thumbnailing still gets recorded as an image.
export async function probeImage(buf: Uint8Array): Promise<ProbeResult> {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(buf, { limitInputPixels: false }).metadata();
  } catch (err) {
    const reason = classify(err);
    return refusal(reason === "corrupt" ? "not_image" : reason);
  }
  if (!meta.format || !SUPPORTED_FORMATS.has(meta.format)) return refusal("unsupported");
  const frames = Math.max(1, meta.pages ?? 1);
  const rawWidth = meta.width ?? 0;
  const rawHeight = meta.pageHeight ?? meta.height ?? 0;
  if (rawWidth <= 0 || rawHeight <= 0) return refusal("not_image");
  if (!withinLimits(rawWidth, rawHeight, frames)) return refusal("too_large");
  const swapped = meta.orientation !== undefined && meta.orientation >= 5 && meta.orientation <= 8;
  return {
    ok: true,
    format: meta.format as ImageFormat,
    width: swapped ? rawHeight : rawWidth,
    height: swapped ? rawWidth : rawHeight,
    frames,
    animated: frames > 1,
  };
}

export type OutputFormat = "webp" | "png" | "jpeg" | "gif";

export type ResizeOptions = {
  width: number;
  height: number;
  // "inside": scale down to fit the box, keeping the aspect ratio (never
  // enlarges); "cover": fill the box exactly, cropping around the centre.
  fit: "inside" | "cover";
  format: OutputFormat;
  // Keep the animation (as many frames as the animated pixel budget allows);
  // otherwise only the first frame is used.
  animated?: boolean;
};

export type ResizedImage = { data: Buffer; width: number; height: number };

export async function resizeImageWithInfo(buf: Uint8Array, opts: ResizeOptions): Promise<ResizedImage> {
  const probe = await probeImage(buf);
  if (!probe.ok) throw new ImageError(probe.reason);
  let pages = 1;
  if (opts.animated && probe.frames > 1) {
    const perFrame = probe.width * probe.height;
    pages = Math.max(1, Math.min(probe.frames, Math.floor(IMAGE_MAX_ANIMATED_PIXELS / perFrame)));
  }
  return limited(async () => {
    try {
      const pipeline = sharp(buf, {
        pages,
        limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS,
        failOn: "error",
      })
        .rotate()
        .resize({
          width: opts.width,
          height: opts.height,
          fit: opts.fit,
          position: "centre",
          withoutEnlargement: opts.fit === "inside",
        });
      const animated = pages > 1;
      const out =
        opts.format === "webp"
          ? pipeline.webp(animated ? { loop: 0 } : {})
          : opts.format === "gif"
            ? pipeline.gif()
            : opts.format === "png"
              ? pipeline.png()
              : pipeline.flatten({ background: "#ffffff" }).jpeg({ mozjpeg: true });
      const { data, info } = await out.toBuffer({ resolveWithObject: true });
      return { data, width: info.width, height: info.pageHeight ?? info.height };
    } catch (err) {
      throw new ImageError(classify(err));
    }
  });
}

export async function resizeImage(buf: Uint8Array, opts: ResizeOptions): Promise<Buffer> {
  return (await resizeImageWithInfo(buf, opts)).data;
}
