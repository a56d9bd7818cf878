/**
 * People in the web client end to end: the user card (from a message's sender and from the
 * people list) and what it leads to, read receipts, and a direct message's recipients as pills
 * chosen from the keyboard. A real Confab with Zulip's development organization and headless
 * Chromium; screenshots at a desktop's and a phone's size, light and dark, land in
 * test/e2e/screenshots/.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const IAGO = "iago@zulip.com";
const HAMLET = "hamlet@zulip.com";
const CORDELIA = "cordelia@zulip.com";
const OTHELLO = "othello@zulip.com";
const PROSPERO = "prospero@zulip.com";
const DESDEMONA = "desdemona@zulip.com";
const OTHELLO_NAME = "Othello, the Moor of Venice";
const CHANNEL = "people tests";

const ids: Record<string, number> = {};
let channelId = 0;

const e2e = devOrganizationInChromium(async () => {
  for (const email of [IAGO, HAMLET, CORDELIA, OTHELLO, PROSPERO, DESDEMONA]) ids[email] = (await call<{ user_id: number }>(email, "GET", "/users/me")).user_id;
  const principals = JSON.stringify([IAGO, HAMLET, CORDELIA, OTHELLO, DESDEMONA].map((e) => ids[e]));
  await call(IAGO, "POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: CHANNEL }]), principals });
  channelId = await streamIdOf(CHANNEL);
});
const { call, scenario, send, streamIdOf } = e2e;

const topicUrl = (topic: string) => `/#narrow/channel/${channelId}/topic/${encodeURIComponent(topic).replace(/%/g, ".")}`;

async function open(email: string, url: string) {
  const s = await signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD);
  await s.page.goto(url);
  return s;
}

const row = (page: Page, id: number) => page.locator(`[data-id="${id}"]`);
const card = (page: Page) => page.locator(".popover[role=menu][aria-label^='User card']");
const cardItem = (page: Page, name: string) => card(page).getByRole("menuitem", { name, exact: true });
const focused = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim());
const pills = (page: Page) => page.locator(".compose .pill .pill-name").allInnerTexts();
const activeOption = (page: Page) => page.locator("#compose-to-suggestions [aria-selected=true] .pill-name").allInnerTexts();
const optionNames = (page: Page) => page.locator("#compose-to-suggestions [role=option] .pill-name").allInnerTexts();

/** What the page shows settles a render after the key or event that changed it. */
async function until<T>(what: string, read: () => Promise<T>, want: T) {
  const deadline = Date.now() + 10_000;
  let seen = await read();
  while (JSON.stringify(seen) !== JSON.stringify(want) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    seen = await read();
  }
  assert.deepEqual(seen, want, what);
}

/** Screenshots at a desktop's and a phone's size, in the light theme and the dark. */
async function screenshots(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction((want) => document.documentElement.dataset.theme === want, scheme);
    for (const [size, width, height] of [["desktop", 1440, 900], ["phone", 390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(150);
      await screenshot(page, `${name}-${size}-${scheme}`);
    }
  }
  await page.emulateMedia({ colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** The direct messages among these people, newest last, as the first of them sees them. */
async function dmsAmong(emails: string[]) {
  const narrow = JSON.stringify([{ operator: "dm", operand: emails.slice(1).map((e) => ids[e]) }]);
  const r = await call<{ messages: { content: string; sender_id: number }[] }>(emails[0], "GET", "/messages", { anchor: "newest", num_before: 20, num_after: 0, narrow, apply_markdown: false });
  return r.messages;
}

describe("people in Chromium", () => {
  scenario("a sender's name opens the user card: role, status, local time, email; Escape gives the focus back", async () => {
    await call(DESDEMONA, "POST", "/users/me/status", { status_text: "In a meeting", emoji_name: "calendar", emoji_code: "1f4c5", reaction_type: "unicode_emoji" });
    const id = await send(DESDEMONA, CHANNEL, "cards", "Who am I?");
    // An administrator, who may see everyone's real address.
    const { context, page } = await open(IAGO, topicUrl("cards"));
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: e2e.srv.url });
    const sender = row(page, id).locator("button.sender");
    await sender.click();
    await card(page).waitFor();
    const text = await card(page).innerText();
    for (const want of ["Desdemona", "Organization owner", "📅 In a meeting", "desdemona@zulip.com"]) assert.ok(text.includes(want), `${want} in ${text}`);
    assert.match(text, /\d:\d\d( [AP]M)? local time/, "Canada/Newfoundland");
    assert.equal(await focused(page), "Send direct message", "the focus goes into the card");
    await screenshots(page, "user-card");

    await page.keyboard.press("Escape");
    await card(page).waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.classList.contains("sender")), true, "the focus is back on the name");

    // The avatar opens the same card; View messages sent narrows to the sender.
    await row(page, id).locator("button.avatar").click();
    await card(page).waitFor();
    await cardItem(page, "Copy email").click();
    await card(page).locator("[role=status] >> text=Email copied to the clipboard").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "desdemona@zulip.com");
    // Where the page has no clipboard (plain HTTP on a LAN), the address is selected to copy by hand.
    await page.evaluate(() => Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true }));
    await cardItem(page, "Copy email").click();
    await card(page).locator("[role=status] >> text=Selected: copy it with Ctrl+C").waitFor();
    assert.equal(await page.evaluate(() => getSelection()?.toString().trim()), "desdemona@zulip.com");
    await cardItem(page, "View messages sent").click();
    await page.waitForFunction((who) => location.hash.startsWith(`#narrow/sender/${who}-`), ids[DESDEMONA]);
    await card(page).waitFor({ state: "detached" });
    await context.close();
  });

  scenario("an open card follows its person: a new role, status and name show at once", async () => {
    const id = await send(OTHELLO, CHANNEL, "live cards", "Watch me change");
    const { context, page } = await open(HAMLET, topicUrl("live cards"));
    await row(page, id).locator("button.sender").click();
    await card(page).locator(".user-card-role", { hasText: "Member" }).waitFor();
    try {
      await call(IAGO, "PATCH", `/users/${ids[OTHELLO]}`, { role: 300 });
      await card(page).locator(".user-card-role", { hasText: "Moderator" }).waitFor();
      await call(OTHELLO, "POST", "/users/me/status", { status_text: "At the harbour" });
      await card(page).locator(".user-card-status", { hasText: "At the harbour" }).waitFor();
      await call(OTHELLO, "PATCH", "/settings", { full_name: "Othello of Venice" });
      await card(page).locator(".user-card-name", { hasText: "Othello of Venice" }).waitFor();
    } finally {
      // The other scenarios know him by his first name and role.
      await call(OTHELLO, "PATCH", "/settings", { full_name: OTHELLO_NAME });
      await call(IAGO, "PATCH", `/users/${ids[OTHELLO]}`, { role: 400 });
    }
    await context.close();
  });

  scenario("the people list opens a card; Send direct message writes to that person", async () => {
    const { context, page } = await open(HAMLET, "/#feed");
    await page.fill("#people-filter", "Cordelia");
    const person = page.locator(".right-sidebar .people li", { hasText: "Cordelia" });
    await person.hover();
    await person.getByRole("button", { name: "User card: Cordelia, Lear's daughter" }).click();
    await card(page).waitFor();
    const text = await card(page).innerText();
    assert.ok(text.includes("Cordelia, Lear's daughter") && text.includes("Member"), text);
    assert.ok(!text.includes("@"), `a member sees no stand-in for a hidden address: ${text}`);
    await cardItem(page, "Copy email").waitFor({ state: "detached" });
    await cardItem(page, "Send direct message").click();
    await card(page).waitFor({ state: "detached" });
    await until("the compose box's pills", () => pills(page), ["Cordelia, Lear's daughter"]);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "compose-content");
    await page.keyboard.type("Hello from your card");
    await page.keyboard.press("Control+Enter");
    await page.waitForFunction(() => (document.getElementById("compose-content") as HTMLTextAreaElement | null)?.value === "");
    const [last] = (await dmsAmong([HAMLET, CORDELIA])).slice(-1);
    assert.equal(last.content, "Hello from your card");
    assert.equal(last.sender_id, ids[HAMLET]);

    // One's own card, from the same list.
    await page.fill("#people-filter", "Hamlet");
    const me = page.locator(".right-sidebar .people li", { hasText: "King Hamlet" });
    await me.hover();
    await me.getByRole("button", { name: "User card: King Hamlet" }).click();
    await card(page).waitFor();
    assert.match(await card(page).locator(".user-card-name").innerText(), /^King Hamlet\s*\(you\)$/);
    await cardItem(page, "View messages with yourself").waitFor();
    await cardItem(page, "View direct messages").waitFor({ state: "detached" });
    await context.close();
  });

  // Turning them off cannot be tried here: Confab's PATCH /realm does not take enable_read_receipts yet.
  scenario("read receipts list who read the message, by name", async () => {
    const unread = await send(HAMLET, CHANNEL, "receipts", "Nobody reads this");
    const id = await send(HAMLET, CHANNEL, "receipts", "Did you read this?");
    await call(OTHELLO, "POST", "/messages/flags", { op: "add", flag: "read", messages: JSON.stringify([id]) });
    await call(CORDELIA, "POST", "/messages/flags", { op: "add", flag: "read", messages: JSON.stringify([id]) });
    const { context, page } = await open(HAMLET, topicUrl("receipts"));
    await row(page, id).hover();
    await row(page, id).locator("button[aria-label='Message actions']").click();
    await page.getByRole("menuitem", { name: "View read receipts" }).click();
    const dialog = page.getByRole("dialog", { name: "Read receipts" });
    await dialog.locator("text=This message has been read by 2 people:").waitFor();
    assert.deepEqual(await dialog.locator(".read-receipts li .name").allInnerTexts(), ["Cordelia, Lear's daughter", OTHELLO_NAME]);
    await screenshot(page, "read-receipts");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Message actions", "the focus is back on the menu's button");

    await row(page, unread).hover();
    await row(page, unread).locator("button[aria-label='Message actions']").click();
    await page.getByRole("menuitem", { name: "View read receipts" }).click();
    await dialog.locator("text=No one has read this message yet.").waitFor();
    await context.close();
  });

  scenario("a group direct message from the keyboard: pills from the typeahead, Backspace, replies and drafts keep them", async () => {
    await call(IAGO, "DELETE", `/users/${ids[PROSPERO]}`);
    const { context, page } = await open(HAMLET, "/#feed");
    await page.locator(".message").first().waitFor();
    await page.keyboard.press("x");
    const to = page.locator("#compose-to");
    await to.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.id), "compose-to");
    const options = page.locator("#compose-to-suggestions [role=option]");
    const three = ["Cordelia, Lear's daughter", OTHELLO_NAME, "Iago"];

    await page.keyboard.type("cord");
    await until("the first match", () => activeOption(page), ["Cordelia, Lear's daughter"]);
    await page.keyboard.press("Enter");
    await until("after Enter", () => pills(page), three.slice(0, 1));
    await page.keyboard.type("o");
    await until("people whose name starts with o", () => optionNames(page), [OTHELLO_NAME, "Outgoing Webhook"]);
    await page.keyboard.press("ArrowDown");
    await until("after ArrowDown", () => activeOption(page), ["Outgoing Webhook"]);
    await page.keyboard.press("ArrowUp");
    await until("after ArrowUp", () => activeOption(page), [OTHELLO_NAME]);
    await page.keyboard.press("Tab");
    await until("after Tab", () => pills(page), three.slice(0, 2));
    await page.keyboard.type("ia");
    await until("Iago offered", () => activeOption(page), ["Iago"]);
    await page.keyboard.press("Enter");
    await until("after a third choice", () => pills(page), three);
    await page.keyboard.press("Backspace");
    await until("Backspace in the empty field removes the last pill", () => pills(page), three.slice(0, 2));
    await page.keyboard.type("pros");
    await until("a deactivated person is not offered", () => optionNames(page), []);
    await to.fill("");
    await page.keyboard.type("iago,");
    await until("a comma chooses too", () => pills(page), three);
    assert.equal(await to.inputValue(), "");
    await page.keyboard.type("z");
    await options.first().waitFor();
    await screenshots(page, "dm-pills");
    await page.keyboard.press("Escape");
    await options.first().waitFor({ state: "detached" });
    assert.equal(await page.locator(".compose").count(), 1, "the first Escape closes only the list");
    await to.fill("");

    await page.locator("#compose-content").fill("To the three of you");
    await page.keyboard.press("Control+Enter");
    await page.waitForFunction(() => (document.getElementById("compose-content") as HTMLTextAreaElement | null)?.value === "");
    const group = [HAMLET, CORDELIA, OTHELLO, IAGO];
    const [sent] = (await dmsAmong(group)).slice(-1);
    assert.equal(sent.content, "To the three of you");

    // A reply to the group starts with its pills; closed with text, it is a draft that keeps them.
    await page.goto(`/#narrow/dm/${group.slice(1).map((e) => ids[e]).sort((a, b) => a - b).join(",")}-group`);
    await page.locator(".message", { hasText: "To the three of you" }).click();
    await page.keyboard.press("r");
    await page.locator("#compose-content").waitFor();
    await until("a reply's pills", async () => (await pills(page)).sort(), ["Cordelia, Lear's daughter", "Iago", OTHELLO_NAME]);
    await page.locator("#compose-content").fill("A draft for the group");
    await page.getByRole("button", { name: "Close compose box (keeps a draft)" }).click();
    await page.waitForFunction(() => document.querySelector(".compose-closed"));
    await page.getByRole("button", { name: "New direct message" }).click();
    await page.getByRole("button", { name: /^Drafts \([1-9]/ }).click();
    await page.locator(".compose .menu button", { hasText: "A draft for the group" }).click();
    await until("a draft's pills", async () => (await pills(page)).sort(), ["Cordelia, Lear's daughter", "Iago", OTHELLO_NAME]);
    assert.equal(await page.inputValue("#compose-content"), "A draft for the group");
    await context.close();
  });
});
