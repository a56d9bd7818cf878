import { test, describe } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { ImageError, probeImage, resizeImage, resizeImageWithInfo } from "../../src/media/images.js";
import {
  animatedGif,
  jpegImage,
  notAnImage,
  pixelBombPng,
  pngImage,
  rotatedJpeg,
  truncatedPng,
  webpImage,
} from "../helpers/images.js";

describe("probeImage", () => {
  test("reads format, dimensions and frames of still images", async () => {
    for (const [buf, format] of [
      [await pngImage(), "png"],
      [await jpegImage(), "jpeg"],
      [await webpImage(), "webp"],
    ] as const) {
      assert.deepEqual(await probeImage(buf), {
        ok: true,
        format,
        width: 300,
        height: 200,
        frames: 1,
        animated: false,
      });
    }
  });

  test("counts the frames of an animated GIF and reports one frame's height", async () => {
    assert.deepEqual(await probeImage(await animatedGif(120, 80)), {
      ok: true,
      format: "gif",
      width: 120,
      height: 80,
      frames: 3,
      animated: true,
    });
  });

  test("reports dimensions as displayed after the EXIF orientation", async () => {
    const probe = await probeImage(await rotatedJpeg(300, 200));
    assert.equal(probe.ok, true);
    assert.deepEqual(probe.ok && [probe.width, probe.height], [200, 300]);
  });

  test("refuses text named like an image", async () => {
    const probe = await probeImage(notAnImage());
    assert.deepEqual(probe, {
      ok: false,
      reason: "not_image",
      message: "Could not decode image; did you upload an image file?",
    });
  });

  test("refuses a pixel bomb from its header without decoding it", async () => {
    const probe = await probeImage(pixelBombPng());
    assert.deepEqual(probe, { ok: false, reason: "too_large", message: "Image size exceeds limit." });
  });

  test("refuses an animation whose first three frames exceed the animated budget", async () => {
    // 4000×3000 = 12 MP a frame: fine still, too much for three frames (36 MP > 30 MP).
    const frames = await Promise.all(
      ["red", "blue", "green"].map((c) =>
        sharp({ create: { width: 4000, height: 3000, channels: 3, background: c } }).png().toBuffer(),
      ),
    );
    const big = await sharp(frames, { join: { animated: true } }).gif().toBuffer();
    const probe = await probeImage(big);
    assert.equal(probe.ok, false);
    assert.equal(!probe.ok && probe.reason, "too_large");
  });
});

describe("resizeImage", () => {
  test("scales down to fit inside the box, keeping the aspect ratio", async () => {
    const out = await resizeImageWithInfo(await pngImage(3000, 1000), {
      width: 840,
      height: 560,
      fit: "inside",
      format: "webp",
    });
    assert.deepEqual([out.width, out.height], [840, 280]);
    const meta = await sharp(out.data).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["webp", 840, 280]);
  });

  test("never enlarges when fitting inside", async () => {
    const out = await resizeImageWithInfo(await jpegImage(100, 50), {
      width: 840,
      height: 560,
      fit: "inside",
      format: "webp",
    });
    assert.deepEqual([out.width, out.height], [100, 50]);
  });

  test("cover fills the box exactly, enlarging if needed", async () => {
    const buf = await resizeImage(await webpImage(50, 100), { width: 100, height: 100, fit: "cover", format: "png" });
    const meta = await sharp(buf).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height], ["png", 100, 100]);
  });

  test("applies the EXIF orientation", async () => {
    const out = await resizeImageWithInfo(await rotatedJpeg(300, 200), {
      width: 840,
      height: 560,
      fit: "inside",
      format: "jpeg",
    });
    assert.deepEqual([out.width, out.height], [200, 300]);
  });

  test("keeps every frame of an animation when asked, the first otherwise", async () => {
    const gif = await animatedGif(120, 80);
    const anim = await resizeImageWithInfo(gif, { width: 60, height: 60, fit: "inside", format: "webp", animated: true });
    const animMeta = await sharp(anim.data, { pages: -1 }).metadata();
    assert.equal(animMeta.pages, 3);
    assert.deepEqual([anim.width, anim.height], [60, 40]);
    const still = await resizeImage(gif, { width: 60, height: 60, fit: "inside", format: "webp" });
    assert.equal((await sharp(still).metadata()).pages ?? 1, 1);
  });

  test("refuses bad input with a typed error", async () => {
    const cases = [
      [notAnImage(), "not_image"],
      [pixelBombPng(), "too_large"],
      [await truncatedPng(), "corrupt"],
    ] as const;
    for (const [buf, reason] of cases) {
      await assert.rejects(
        resizeImage(buf, { width: 100, height: 100, fit: "inside", format: "webp" }),
        (err: unknown) => err instanceof ImageError && err.reason === reason,
      );
    }
  });

  test("a burst of work all completes", async () => {
    const png = await pngImage(400, 300);
    const outs = await Promise.all(
      Array.from({ length: 20 }, () => resizeImage(png, { width: 40, height: 40, fit: "inside", format: "webp" })),
    );
    assert.equal(outs.length, 20);
  });
});
