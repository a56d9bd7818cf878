/**
 * Desktop notifications end to end in Chromium: the permission banner, a notification for a
 * direct message from someone else, none for a muted topic, and the settings that switch them
 * off. The page's Notification constructor is wrapped to record what the client shows.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { call, scenario, send, streamIdOf } = e2e;

const HAMLET = "hamlet@zulip.com";
const OTHELLO = "othello@zulip.com";

const RECORD_NOTIFICATIONS = `
  window.__shown = [];
  const Real = window.Notification;
  window.Notification = class extends Real {
    constructor(title, options) {
      super(title, options);
      window.__shown.push({ title, body: options && options.body });
    }
  };
`;

/** Hamlet on his Inbox with notifications allowed, recording those shown. */
async function hamletWithNotifications() {
  const s = await signedIn(e2e.browser, e2e.srv.url, HAMLET, DEV_PASSWORD);
  await s.context.grantPermissions(["notifications"], { origin: e2e.srv.url });
  await s.context.addInitScript(RECORD_NOTIFICATIONS);
  await s.page.goto("/#inbox");
  await s.page.reload();
  await s.page.waitForSelector(".left-sidebar");
  return s;
}

const shown = (page: Page) => page.evaluate(() => (window as unknown as { __shown: { title: string; body: string }[] }).__shown);

async function shownSoon(page: Page, count: number) {
  await page.waitForFunction((n) => (window as unknown as { __shown: unknown[] }).__shown.length >= n, count);
  return shown(page);
}

describe("desktop notifications in Chromium", () => {
  scenario("a browser not yet asked shows the banner; Never ask hides it for good", async () => {
    const { context, page } = await signedIn(e2e.browser, e2e.srv.url, HAMLET, DEV_PASSWORD, "#inbox");
    const banner = page.getByRole("region", { name: "Desktop notifications" });
    const permission = await page.evaluate(() => Notification.permission);
    if (permission !== "default") {
      // Headless builds that refuse outright never show it.
      assert.equal(await banner.count(), 0);
      return;
    }
    await banner.waitFor();
    await screenshot(page, "notifications-banner");
    await banner.getByRole("button", { name: "Never ask on this computer" }).click();
    await banner.waitFor({ state: "detached" });
    await page.reload();
    await page.waitForSelector(".left-sidebar");
    assert.equal(await banner.count(), 0);
    await context.close();
  });

  scenario("a direct message from someone else notifies; a muted topic does not", async () => {
    const verona = await streamIdOf("Verona");
    await call(HAMLET, "POST", "/user_topics", { stream_id: verona, topic: "muted chatter", visibility_policy: 1 });
    const { page } = await hamletWithNotifications();
    await call(HAMLET, "PATCH", "/settings", { enable_stream_desktop_notifications: true });
    await send(OTHELLO, "Verona", "muted chatter", "Nothing to see here");
    await call(OTHELLO, "POST", "/messages", { type: "private", to: JSON.stringify([HAMLET]), content: "A word, my lord, **in private**." });
    const [first, ...rest] = await shownSoon(page, 1);
    assert.equal(first!.title, "Othello, the Moor of Venice");
    assert.equal(first!.body, "A word, my lord, in private.");
    // The muted topic's message came first: had it notified, it would be listed before the DM.
    assert.deepEqual(rest, []);
    await call(HAMLET, "PATCH", "/settings", { enable_stream_desktop_notifications: false });
  });

  scenario("a channel message notifies when the channel's messages are set to; the settings page switches direct messages off", async () => {
    const { page } = await hamletWithNotifications();
    await call(HAMLET, "PATCH", "/settings", { enable_stream_desktop_notifications: true });
    await send(OTHELLO, "Denmark", "castle", "The guard changes at midnight");
    const [first] = await shownSoon(page, 1);
    assert.equal(first!.title, "Othello, the Moor of Venice (#Denmark > castle)");
    await call(HAMLET, "PATCH", "/settings", { enable_stream_desktop_notifications: false });

    await page.click("button[aria-label=Settings]");
    await page.click("role=tab[name=Notifications]");
    const dmDesktop = page.getByRole("checkbox", { name: "Direct messages, mentions and alerts: Desktop" });
    assert.equal(await dmDesktop.isChecked(), true);
    await screenshot(page, "settings-notifications");
    await dmDesktop.uncheck();
    await page.locator("[role=status] >> text=Saved.").waitFor();
    const state = await call<{ user_settings: { enable_desktop_notifications: boolean } }>(HAMLET, "POST", "/register", { fetch_event_types: JSON.stringify(["user_settings"]) });
    assert.equal(state.user_settings.enable_desktop_notifications, false);
    await page.keyboard.press("Escape");
    await call(OTHELLO, "POST", "/messages", { type: "private", to: JSON.stringify([HAMLET]), content: "Are you there?" });
    // A message that does notify, sent after, shows the DM was passed over rather than late.
    await call(HAMLET, "PATCH", "/settings", { enable_stream_desktop_notifications: true });
    await page.waitForFunction(() => document.querySelector("#set-enable_stream_desktop_notifications") === null);
    await send(OTHELLO, "Denmark", "castle", "Second watch");
    const all = await shownSoon(page, 2);
    assert.deepEqual(all.map((n) => n.body), ["The guard changes at midnight", "Second watch"]);
    await call(HAMLET, "PATCH", "/settings", { enable_stream_desktop_notifications: false, enable_desktop_notifications: true });
  });
});
