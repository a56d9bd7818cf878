/**
 * Browsing, creating and configuring channels in the web client, end to end in Chromium: the
 * channels overlay from the left sidebar, subscribing and unsubscribing, creating public and
 * private channels (checked through the API, and live in another person's browser), one's own
 * settings of a subscription (colour, pin) showing in the sidebar, a refused name, the keyboard,
 * and screenshots at desktop and phone sizes in both themes.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { call, scenario, streamIdOf } = e2e;

const userIdOf = async (email: string) => (await call("iago@zulip.com", "GET", `/users/${encodeURIComponent(email)}`)).user.user_id as number;
const systemGroupId = async (name: string) =>
  ((await call("iago@zulip.com", "GET", "/user_groups")).user_groups as { id: number; name: string }[]).find((g) => g.name === name)!.id;

/** Signed in, on the Combined feed once it has loaded. */
async function open(email: string) {
  const signed = await signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD, "#feed");
  await signed.page.locator(".feed[aria-busy=false]").first().waitFor();
  return signed;
}

const sidebarChannel = (page: Page, name: string) => page.locator(".left-sidebar li.channel", { has: page.locator(".name", { hasText: new RegExp(`^${name}$`) }) });
const row = (page: Page, name: string) => page.locator(".channel-row", { has: page.locator(".channel-row-name", { hasText: new RegExp(`^${name}$`) }) });

async function browseAll(page: Page) {
  await page.getByRole("button", { name: "Browse channels" }).click();
  await page.locator(".channels-overlay").waitFor();
  await page.locator(".channels-tabs button", { hasText: "All channels" }).click();
}

describe("channels: browse, create and settings in Chromium", () => {
  scenario("Hamlet browses all channels, subscribes to Scotland, sees it in his sidebar, and unsubscribes", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    assert.equal(await sidebarChannel(page, "Scotland").count(), 0);
    await browseAll(page);
    // Every channel he can see, subscribed or not, with its description and subscriber count.
    for (const name of ["Verona", "Denmark", "Scotland", "Venice", "Rome"]) await row(page, name).waitFor();
    const scotland = row(page, "Scotland");
    assert.match(await scotland.locator(".channel-row-description").innerText(), /United Kingdom/);
    const before = Number((await scotland.locator(".channel-row-count").innerText()).trim());
    assert.ok(before > 0, "the subscriber count is shown");

    // The filter narrows the list.
    await page.fill(".channels-filter", "scot");
    assert.equal(await page.locator(".channel-row").count(), 1);
    await screenshot(page, "channels-browse-filtered");

    await page.getByRole("button", { name: "Subscribe to Scotland" }).click();
    await page.getByRole("button", { name: "Unsubscribe from Scotland" }).waitFor();
    await sidebarChannel(page, "Scotland").waitFor();
    await page.waitForFunction((n) => document.querySelector(".channel-row .channel-row-count")?.textContent?.trim() === String(n), before + 1);

    // Unsubscribing takes it out of the sidebar again, and the count back down.
    await page.getByRole("button", { name: "Unsubscribe from Scotland" }).click();
    await page.getByRole("button", { name: "Subscribe to Scotland" }).waitFor();
    await sidebarChannel(page, "Scotland").waitFor({ state: "detached" });
    await page.waitForFunction((n) => document.querySelector(".channel-row .channel-row-count")?.textContent?.trim() === String(n), before);
    const subs = (await call("hamlet@zulip.com", "GET", "/users/me/subscriptions")).subscriptions as { name: string }[];
    assert.ok(!subs.some((s) => s.name === "Scotland"));

    // The Subscribed tab lists only his channels.
    await page.fill(".channels-filter", "");
    await page.locator(".channels-tabs button", { hasText: "Subscribed" }).click();
    await row(page, "Verona").waitFor();
    assert.equal(await row(page, "Scotland").count(), 0);

    // Clicking a channel's name opens its messages and closes the overlay.
    await row(page, "Denmark").locator(".channel-row-name").click();
    await page.locator(".channels-overlay").waitFor({ state: "detached" });
    await page.waitForFunction(() => document.querySelector(".narrow-title h2")?.textContent === "#Denmark");
    await context.close();
  });

  scenario("the list moves with the arrow keys, and the pane follows", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    await browseAll(page);
    const names = await page.locator(".channel-row-name").allInnerTexts();
    await page.focus(".channels-filter");
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), names[0]);
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), names[2]);
    await page.locator(".channel-settings h3", { hasText: names[2] }).waitFor();
    await page.keyboard.press("ArrowUp");
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), names[1]);
    // Enter follows the focused channel's link.
    await page.keyboard.press("Enter");
    await page.locator(".channels-overlay").waitFor({ state: "detached" });
    await page.waitForFunction((n) => document.querySelector(".narrow-title h2")?.textContent === `#${n}`, names[1]);
    await context.close();
  });

  scenario("Hamlet creates a public channel with Othello, who sees it appear in his sidebar live", async () => {
    const othello = await open("othello@zulip.com");
    const { context, page } = await open("hamlet@zulip.com");
    await page.getByRole("button", { name: "Create a channel" }).click();
    await page.locator("#new-channel-name").waitFor();
    await page.fill("#new-channel-name", "design reviews");
    await page.fill("#new-channel-description", "Mockups and **critique**");
    await page.check("#new-channel-public");
    await page.selectOption("#new-channel-posters", { label: "Everyone" });
    await page.fill("#new-channel-person", "othel");
    await page.locator(".person-suggestions button", { hasText: "Othello" }).click();
    await page.locator(".chosen-people li", { hasText: "Othello" }).waitFor();
    assert.match(await page.locator(".chosen-people").innerText(), /King Hamlet \(you\)/);
    await screenshot(page, "channels-create");
    await page.click(".create-channel button[type=submit]");

    // The new channel opens for its creator…
    await page.locator(".channels-overlay").waitFor({ state: "detached" });
    await page.waitForFunction(() => document.querySelector(".narrow-title h2")?.textContent === "#design reviews");
    await sidebarChannel(page, "design reviews").waitFor();
    // …and shows up in Othello's sidebar without a reload.
    await sidebarChannel(othello.page, "design reviews").waitFor();

    const id = await streamIdOf("design reviews");
    const { stream } = await call("iago@zulip.com", "GET", `/streams/${id}`);
    assert.equal(stream.invite_only, false);
    assert.equal(stream.is_web_public, false);
    assert.equal(stream.history_public_to_subscribers, true);
    assert.equal(stream.description, "Mockups and **critique**");
    assert.equal(stream.can_send_message_group, await systemGroupId("role:everyone"));
    const { subscribers } = await call("iago@zulip.com", "GET", `/streams/${id}/members`);
    assert.deepEqual([...subscribers].sort(), [await userIdOf("hamlet@zulip.com"), await userIdOf("othello@zulip.com")].sort());
    await othello.context.close();
    await context.close();
  });

  scenario("a private channel with protected history, where only administrators post", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    await page.getByRole("button", { name: "Create a channel" }).click();
    await page.fill("#new-channel-name", "secret plans");
    await page.check("#new-channel-private-protected");
    // Announcing is for channels everyone may join.
    assert.equal(await page.locator("#new-channel-announce").count(), 0);
    await page.selectOption("#new-channel-posters", { label: "Administrators only" });
    // Email addresses are hidden from members here: people are found by name.
    await page.fill("#new-channel-person", "cordelia");
    await page.keyboard.press("Enter");
    await page.locator(".chosen-people li", { hasText: "Cordelia" }).waitFor();
    await page.click(".create-channel button[type=submit]");
    await page.waitForFunction(() => document.querySelector(".narrow-title h2")?.textContent === "#secret plans");
    // A lock, not a "#", in the sidebar.
    await sidebarChannel(page, "secret plans").locator("svg[aria-label=private]").waitFor();

    // Asked as Hamlet: it is private, and only its subscribers may look it up by name.
    const id = await streamIdOf("secret plans", "hamlet@zulip.com");
    const { stream } = await call("hamlet@zulip.com", "GET", `/streams/${id}`);
    assert.equal(stream.invite_only, true);
    assert.equal(stream.history_public_to_subscribers, false);
    assert.equal(stream.can_send_message_group, await systemGroupId("role:administrators"));
    const { subscribers } = await call("hamlet@zulip.com", "GET", `/streams/${id}/members`);
    assert.deepEqual([...subscribers].sort(), [await userIdOf("hamlet@zulip.com"), await userIdOf("cordelia@zulip.com")].sort());

    // Its settings say so.
    await sidebarChannel(page, "secret plans").hover();
    await sidebarChannel(page, "secret plans").locator(".channel-menu-button").click();
    await page.getByRole("menuitem", { name: "Channel settings" }).click();
    const facts = page.locator(".channel-facts");
    await facts.waitFor();
    assert.match(await facts.innerText(), /Private, protected history/);
    assert.match(await facts.innerText(), /Who can post\s+Administrators/);
    await context.close();
  });

  scenario("a name in use is refused, and the server's words are shown in the form", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    await page.getByRole("button", { name: "Create a channel" }).click();
    await page.fill("#new-channel-name", "Denmark");
    await page.click(".create-channel button[type=submit]");
    const error = page.locator(".create-channel [role=alert]");
    await error.waitFor();
    assert.match(await error.innerText(), /already exists/);
    // The form stays, with what was typed.
    assert.equal(await page.inputValue("#new-channel-name"), "Denmark");
    await screenshot(page, "channels-create-error");
    await context.close();
  });

  scenario("the colour and pin of a subscription change from its settings, and the sidebar follows", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    const verona = sidebarChannel(page, "Verona");
    await verona.hover();
    await verona.locator(".channel-menu-button").click();
    await page.getByRole("menuitem", { name: "Channel settings" }).click();
    await page.locator(".channel-settings h3", { hasText: "Verona" }).waitFor();
    await page.getByRole("tab", { name: "Personal" }).click();
    const id = await streamIdOf("Verona");
    await page.locator(`#sub-${id}-color`).fill("#c23b22");
    await page.waitForFunction(() => {
      const li = [...document.querySelectorAll(".left-sidebar li.channel")].find((x) => x.querySelector(".name")?.textContent === "Verona");
      return li && getComputedStyle(li.querySelector(".swatch")!).backgroundColor === "rgb(194, 59, 34)";
    });
    await page.check(`#sub-${id}-pin_to_top`);
    // A "Pinned" section heads the sidebar, with Verona in it.
    await page.waitForFunction(() => {
      const section = [...document.querySelectorAll(".left-sidebar section")].find((s) => s.querySelector("h2")?.textContent === "Pinned");
      return !!section && [...section.querySelectorAll(".name")].some((n) => n.textContent === "Verona");
    });
    await page.check(`#sub-${id}-email_notifications`);
    await page.waitForFunction((sel) => (document.querySelector(sel) as HTMLInputElement)?.checked, `#sub-${id}-email_notifications`);
    const subs = (await call("hamlet@zulip.com", "GET", "/users/me/subscriptions")).subscriptions as Record<string, unknown>[];
    const sub = subs.find((s) => s.name === "Verona")!;
    assert.equal(sub.color, "#c23b22");
    assert.equal(sub.pin_to_top, true);
    assert.equal(sub.email_notifications, true);
    await screenshot(page, "channels-settings");

    // The sidebar's menu unpins it again.
    await page.keyboard.press("Escape");
    await page.locator(".channels-overlay").waitFor({ state: "detached" });
    await verona.hover();
    await verona.locator(".channel-menu-button").click();
    await page.getByRole("menuitem", { name: "Unpin from top" }).click();
    await page.waitForFunction(() => ![...document.querySelectorAll(".left-sidebar section h2")].some((h) => h.textContent === "Pinned"));
    await context.close();
  });

  scenario("screenshots: desktop and phone, light and dark", async () => {
    const { context, page } = await open("prospero@zulip.com");
    for (const theme of ["light", "dark"] as const) {
      await call("prospero@zulip.com", "PATCH", "/settings", { color_scheme: theme === "dark" ? 2 : 3 });
      await page.waitForFunction((t) => document.documentElement.dataset.theme === t, theme);
      await page.setViewportSize({ width: 1280, height: 800 });
      await sidebarChannel(page, "Venice").hover();
      await screenshot(page, `channels-sidebar-${theme}`);
      await browseAll(page);
      await row(page, "Rome").click({ position: { x: 5, y: 5 } });
      await page.locator(".channel-settings h3", { hasText: "Rome" }).waitFor();
      await screenshot(page, `channels-browse-${theme}`);
      await row(page, "Venice").locator(".channel-row-settings").click();
      await page.getByRole("tab", { name: "Personal" }).click();
      await page.locator(".channel-personal").waitFor();
      await screenshot(page, `channels-settings-${theme}`);
      await page.getByRole("button", { name: "+ New channel" }).click();
      await page.locator("#new-channel-name").waitFor();
      await screenshot(page, `channels-create-${theme}`);

      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator(".channels-back").click();
      await row(page, "Rome").waitFor();
      await screenshot(page, `channels-browse-${theme}-phone`);
      await row(page, "Venice").click({ position: { x: 5, y: 5 } });
      await page.getByRole("tab", { name: "Personal" }).click();
      await page.locator(".channel-personal").waitFor();
      await screenshot(page, `channels-settings-${theme}-phone`);
      await page.locator(".channels-back").click();
      await page.getByRole("button", { name: "+ New channel" }).click();
      await page.locator("#new-channel-name").waitFor();
      await screenshot(page, `channels-create-${theme}-phone`);
      await page.keyboard.press("Escape");
      await page.locator(".channels-overlay").waitFor({ state: "detached" });
      // The sidebar on a phone, with the channels' menu buttons.
      await page.getByRole("button", { name: "Channels", exact: true }).click();
      await page.locator(".left-sidebar").waitFor({ state: "visible" });
      await screenshot(page, `channels-sidebar-${theme}-phone`);
      await page.getByRole("button", { name: "Channels", exact: true }).click();
    }
    await context.close();
  });
});
