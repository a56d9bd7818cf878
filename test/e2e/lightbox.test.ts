/**
 * Image previews and the lightbox in Chromium: two uploaded images sent in a message show as
 * thumbnails (arriving live once the thumbnail worker has made them); a click opens the
 * lightbox, the arrow keys move between the images, Escape closes it. Screenshots at a
 * desktop's and a phone's size, light and dark.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium, eventually } from "../helpers/e2e.js";
import { multipart } from "../helpers/multipart.js";
import { jpegImage, pngImage } from "../helpers/images.js";

const e2e = devOrganizationInChromium();
const { scenario, send } = e2e;

async function upload(email: string, fileName: string, data: Buffer, type: string): Promise<string> {
  const { body, type: contentType } = multipart([{ fileName, data, type }]);
  const auth = "Basic " + Buffer.from(`${email}:${await e2e.apiKey(email)}`).toString("base64");
  const res = await fetch(`${e2e.srv.url}/api/v1/user_uploads`, { method: "POST", headers: { "content-type": contentType, authorization: auth }, body });
  const json = (await res.json()) as { url: string };
  assert.equal(res.status, 200, JSON.stringify(json));
  return json.url;
}

async function shots(page: Page, name: string) {
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    for (const [size, width, height] of [["desktop", 1440, 900], ["phone", 390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await screenshot(page, `${name}-${size}-${theme}`);
    }
  }
  await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
  await page.setViewportSize({ width: 1440, height: 900 });
}

describe("image previews and the lightbox in Chromium", () => {
  scenario("thumbnails show in the message; a click opens the lightbox, arrows move, Escape closes", async () => {
    const first = await upload("iago@zulip.com", "harbour.png", await pngImage(1600, 900), "image/png");
    const second = await upload("iago@zulip.com", "lighthouse.jpg", await jpegImage(600, 900), "image/jpeg");
    await send("iago@zulip.com", "Verona", "pictures", `The harbour: [harbour.png](${first})\n\nAnd the light: [lighthouse.jpg](${second})`);

    const { page } = await signedIn(e2e.browser, e2e.srv.url, "hamlet@zulip.com", DEV_PASSWORD, "#feed");
    await page.setViewportSize({ width: 1440, height: 900 });
    const thumbs = page.locator('.message .message_inline_image img[src*="/user_uploads/thumbnail/"]');
    await eventually("thumbnails shown", () => thumbs.count(), 2);
    await eventually("thumbnails loaded", () => thumbs.evaluateAll((imgs) => imgs.every((i) => (i as HTMLImageElement).naturalWidth > 0)), true);
    await page.locator(".message", { hasText: "The harbour" }).scrollIntoViewIfNeeded();
    await shots(page, "lightbox-previews");

    await thumbs.first().click();
    const box = page.locator("dialog.lightbox");
    await box.waitFor();
    const title = box.locator("h2");
    const count = box.locator(".lightbox-count");
    assert.equal(await title.innerText(), "harbour.png");
    assert.equal(await count.innerText(), "1 / 2");
    // The original replaces the thumbnail once it has loaded.
    await eventually("original shown", () => box.locator(".lightbox-image").getAttribute("src"), first);

    await page.keyboard.press("ArrowRight");
    assert.equal(await title.innerText(), "lighthouse.jpg");
    assert.equal(await count.innerText(), "2 / 2");
    await eventually("second original shown", () => box.locator(".lightbox-image").getAttribute("src"), second);
    await eventually("second loaded", () => box.locator(".lightbox-image").evaluate((i) => (i as HTMLImageElement).naturalWidth), 600);
    await shots(page, "lightbox");
    // Past the last image: nothing moves.
    await page.keyboard.press("ArrowRight");
    assert.equal(await count.innerText(), "2 / 2");
    await page.keyboard.press("ArrowLeft");
    assert.equal(await title.innerText(), "harbour.png");

    await page.keyboard.press("Escape");
    await box.waitFor({ state: "detached" });
    // The page is as it was: the message is still there, no edit mark from the re-render.
    assert.equal(await page.locator(".message", { hasText: "The harbour" }).locator(".edited").count(), 0);
  });
});
