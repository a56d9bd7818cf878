/**
 * Avatars in Chromium: a profile picture uploaded in Settings shows beside one's messages, in
 * one's own page and live in someone else's, and goes back to the initial when removed; an
 * administrator uploads the organization's icon. Screenshots at a desktop's and a phone's size,
 * light and dark.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { scenario, send } = e2e;

async function open(email: string) {
  const signed = await signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD, "#feed");
  await signed.page.setViewportSize({ width: 1440, height: 900 });
  await signed.page.locator(".feed[aria-busy=false]").first().waitFor();
  return signed;
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

/** A picture no one could mistake for an initial: a diagonal of two colours. */
const picture = () =>
  sharp({ create: { width: 240, height: 240, channels: 3, background: { r: 30, g: 110, b: 200 } } })
    .composite([{ input: Buffer.from('<svg width="240" height="240"><polygon points="0,240 240,0 240,240" fill="#f5a623"/></svg>') }])
    .png()
    .toBuffer();

describe("avatars in Chromium", () => {
  scenario("a picture uploaded in Settings shows beside one's messages, here and live elsewhere; removing it brings the initial back", async () => {
    const id = await send("hamlet@zulip.com", "Denmark", "portraits", "Is this a likeness?");
    const { page } = await open("hamlet@zulip.com");
    const { page: other } = await open("othello@zulip.com");
    const mine = (p: Page) => p.locator(`.message[data-id="${id}"] .avatar`);
    await mine(other).waitFor();
    assert.equal(await mine(other).locator("img").count(), 0, "an initial before any upload");

    await page.getByRole("button", { name: "Settings" }).click();
    await page.locator(".settings .image-upload").waitFor();
    await page.setInputFiles("#upload-users-me-avatar", { name: "me.png", mimeType: "image/png", buffer: await picture() });
    await page.locator(".settings .settings-avatar img").waitFor();
    assert.match((await page.locator(".settings .settings-avatar img").getAttribute("src"))!, /^\/user_avatars\/\d+\/[0-9a-f]{40}\.png\?version=\d+$/);
    await shots(page, "avatars-settings");
    await page.getByRole("button", { name: "Close settings" }).click();

    await mine(page).locator("img").waitFor();
    await mine(other).locator("img").waitFor();
    await page.locator(".right-sidebar .people-avatar img").first().waitFor();
    await shots(page, "avatars-feed");

    await page.getByRole("button", { name: "Settings" }).click();
    await page.locator(".settings .image-upload").getByRole("button", { name: "Remove" }).click();
    await page.locator(".settings .settings-avatar img").waitFor({ state: "detached" });
    await mine(other).locator("img").waitFor({ state: "detached" });
    assert.equal(await mine(other).innerText(), "K");
  });

  scenario("an administrator uploads the organization's icon; a file that is not an image gets Zulip's error", async () => {
    const { page } = await open("iago@zulip.com");
    await page.getByRole("button", { name: "Settings" }).click();
    await page.getByRole("tab", { name: "Organization profile" }).click();
    await page.setInputFiles("#upload-realm-icon", { name: "fake.png", mimeType: "image/png", buffer: Buffer.from("not a picture") });
    await page.locator(".settings [role=status].error", { hasText: "Could not decode image; did you upload an image file?" }).waitFor();
    await page.setInputFiles("#upload-realm-icon", { name: "icon.png", mimeType: "image/png", buffer: await picture() });
    await page.locator(".settings img[alt='Organization icon']").waitFor();
    await shots(page, "avatars-organization");
  });
});
