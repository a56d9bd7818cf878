/**
 * Search and the overlays' URLs in Chromium: suggestions taken by keyboard (an operator, a
 * channel, a topic of it, a person), search results with the words found highlighted (and an
 * edit arriving live), the channels overlay at Zulip's URLs with Back and Forward and a pasted
 * URL, and an invitation appearing and going in another administrator's open settings.
 * Screenshots at a desktop's and a phone's size, light and dark.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium, eventually } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { call, scenario, send, streamIdOf } = e2e;

/** Signed in at a place (the Combined feed unless told), once it shows. */
async function open(email: string, hash = "#feed") {
  const signed = await signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD, hash);
  await signed.page.setViewportSize({ width: 1440, height: 900 });
  await signed.page.locator(".feed[aria-busy=false], .inbox, .recent").first().waitFor();
  return signed;
}

/** What is on screen at a desktop's and a phone's size, light and dark; `again` puts it back after the resize. */
async function shots(page: Page, name: string, again: () => Promise<void> = async () => {}) {
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    for (const [size, width, height] of [["desktop", 1440, 900], ["phone", 390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await again();
      await screenshot(page, `${name}-${size}-${theme}`);
    }
  }
  await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
  await page.setViewportSize({ width: 1440, height: 900 });
}

const suggestions = (page: Page) => page.locator("#search-suggestions [role=option]");
const active = (page: Page) => page.locator("#search-suggestions [role=option][aria-selected=true]");
const title = (page: Page) => page.locator(".narrow-title h2");

/** Presses ArrowDown until the suggestion with this description is the active one. */
async function arrowTo(page: Page, description: string) {
  const all = await suggestions(page).allInnerTexts();
  const at = all.findIndex((t) => t.startsWith(description));
  assert.ok(at >= 0, `"${description}" among ${JSON.stringify(all)}`);
  for (let i = 0; i <= at; i++) await page.keyboard.press("ArrowDown");
  assert.match(await active(page).innerText(), new RegExp(`^${description}`));
}

describe("search and overlay URLs in Chromium", () => {
  scenario("suggestions by keyboard: an operator, a channel and its topic, a person; Escape closes them", async () => {
    await send("iago@zulip.com", "Verona", "castle gates", "The gates are shut");
    await send("othello@zulip.com", "Verona", "castle gates", "Open them at dawn");
    await call("hamlet@zulip.com", "POST", "/messages/flags", { messages: JSON.stringify([await send("iago@zulip.com", "Denmark", "stars", "A starred line")]), op: "add", flag: "starred" });
    const { page } = await open("hamlet@zulip.com");

    // An operator: `is:st` completes to Starred messages, taken with Enter.
    await page.keyboard.press("/");
    await suggestions(page).first().waitFor();
    assert.ok((await suggestions(page).allInnerTexts()).some((t) => t.startsWith("Starred messages")), "an empty box offers the common filters");
    await page.keyboard.type("is:st");
    await arrowTo(page, "Starred messages");
    await page.keyboard.press("Enter");
    await title(page).filter({ hasText: "Starred messages" }).waitFor();
    assert.match(page.url(), /#narrow\/is\/starred$/);
    await page.locator(".message .content >> text=A starred line").waitFor();

    // A channel, then a topic of it completed with Tab, then Enter on the text.
    await page.keyboard.press("/");
    await page.fill("#search", "");
    await page.keyboard.type("channel:Vero");
    await arrowTo(page, "Channel Verona");
    await page.keyboard.press("Tab");
    assert.equal(await page.inputValue("#search"), "channel:Verona ");
    await page.keyboard.type("topic:cas");
    await active(page).waitFor({ state: "detached" });
    await suggestions(page).filter({ hasText: "Channel Verona > topic castle gates" }).waitFor();
    await shots(page, "search-suggestions", async () => {
      await page.locator("#search").focus();
      await suggestions(page).first().waitFor();
    });
    await page.keyboard.press("Tab");
    assert.equal(await page.inputValue("#search"), 'channel:Verona topic:"castle gates" ');
    await page.keyboard.press("Enter");
    await title(page).filter({ hasText: "#Verona › castle gates" }).waitFor();
    await eventually("messages in the topic", () => page.locator(".message").count(), 2);

    // A person by name: "Messages from Iago".
    await page.keyboard.press("/");
    await page.fill("#search", "");
    await page.keyboard.type("iag");
    await arrowTo(page, "Messages from Iago");
    await shots(page, "search-suggestions-person", async () => {
      await page.locator("#search").focus();
      await active(page).waitFor();
    });
    await page.keyboard.press("Enter");
    await title(page).filter({ hasText: "Messages from Iago" }).waitFor();
    assert.match(page.url(), /#narrow\/sender\/\d+-Iago$/);

    // Escape closes the list first, and leaves the box the second time.
    await page.keyboard.press("/");
    await page.keyboard.type(" has:");
    await suggestions(page).first().waitFor();
    await page.keyboard.press("Escape");
    await suggestions(page).first().waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.id), "search");
    await page.keyboard.press("Escape");
    assert.notEqual(await page.evaluate(() => document.activeElement?.id), "search");
  });

  scenario("on a phone's screen, choosing a suggestion with the pointer searches", async () => {
    const { page } = await open("hamlet@zulip.com");
    await page.setViewportSize({ width: 390, height: 844 });
    await page.locator("#search").click();
    await page.keyboard.type("is:unr");
    await suggestions(page).filter({ hasText: "Unread messages" }).click();
    await title(page).filter({ hasText: "Unread messages" }).waitFor();
  });

  scenario("a text search shows the words found highlighted, in the content and the topic; an edit shows live", async () => {
    // Denmark, which Hamlet is subscribed to: edits reach only those who received the message.
    const id = await send("othello@zulip.com", "Denmark", "zephyrous plans", "A zephyrous wind over the lagoon");
    await send("iago@zulip.com", "Denmark", "zephyrous plans", "Nothing to find here");
    const { page } = await open("hamlet@zulip.com");
    await page.keyboard.press("/");
    await page.keyboard.type("channel:Denmark zephyrous");
    await page.keyboard.press("Enter");
    const content = page.locator(`.message[data-id="${id}"] .content`);
    await content.locator(".highlight").waitFor();
    assert.equal(await content.locator(".highlight").innerText(), "zephyrous");
    assert.equal(await page.locator(".recipient-header .highlight").first().innerText(), "zephyrous");
    await eventually("the topic matched too", () => page.locator(".message").count(), 2);
    await shots(page, "search-highlight");

    await call("othello@zulip.com", "PATCH", `/messages/${id}`, { content: "A calm evening over the lagoon" });
    await content.filter({ hasText: "A calm evening" }).waitFor();
    assert.equal(await content.locator(".highlight").count(), 0, "the edited text is shown as it is now");

    // The same message elsewhere is never highlighted.
    await page.goto(`/#narrow/channel/${await streamIdOf("Denmark")}-Denmark/topic/zephyrous.20plans`);
    await page.locator(`.message[data-id="${id}"]`).waitFor();
    assert.equal(await page.locator(".highlight").count(), 0);
  });

  scenario("the channels overlay at Zulip's URLs: tabs, a channel, Back and Forward, a pasted URL, Escape", async () => {
    const verona = await streamIdOf("Verona");
    const denmark = await streamIdOf("Denmark");
    const { page } = await open("hamlet@zulip.com");
    const overlay = page.locator(".channels-overlay");
    const pressed = (name: string) => page.locator(".channels-tabs button[aria-pressed=true]", { hasText: name });

    await page.getByRole("button", { name: "Browse channels" }).click();
    await overlay.waitFor();
    assert.match(page.url(), /#channels\/all$/);
    await page.locator(".channels-tabs button", { hasText: "Subscribed" }).click();
    await pressed("Subscribed").waitFor();
    assert.match(page.url(), /#channels\/subscribed$/);
    await page.getByRole("button", { name: "Settings of Verona" }).click();
    await page.locator(".channel-settings[aria-label='Channel Verona']").waitFor();
    assert.match(page.url(), new RegExp(`#channels/${verona}/Verona/general$`));
    await page.getByRole("tab", { name: "Subscribers" }).click();
    await page.locator(".channel-subscribers li", { hasText: "King Hamlet" }).waitFor();
    assert.match(page.url(), new RegExp(`#channels/${verona}/Verona/subscribers$`));
    await page.getByRole("tab", { name: "Personal" }).click();
    await page.locator(".channel-personal").waitFor();
    assert.match(page.url(), new RegExp(`#channels/${verona}/Verona/personal$`));
    await shots(page, "channels-url-personal");
    await page.goBack();
    await page.locator(".channel-subscribers").waitFor();
    await page.goBack();
    await page.locator(".channel-facts").waitFor();

    await page.goBack();
    await page.locator(".channel-settings").waitFor({ state: "detached" });
    assert.match(page.url(), /#channels\/subscribed$/);
    await page.goBack();
    await pressed("All channels").waitFor();
    await page.goBack();
    await overlay.waitFor({ state: "detached" });
    assert.match(page.url(), /#feed$/);
    await page.locator(".feed[aria-busy=false]").waitFor();
    await page.goForward();
    await pressed("All channels").waitFor();
    await page.goForward();
    await pressed("Subscribed").waitFor();

    // Escape closes it, back to the place behind; Back opens it again.
    await page.keyboard.press("Escape");
    await overlay.waitFor({ state: "detached" });
    assert.match(page.url(), /#feed$/);
    await page.goBack();
    await pressed("Subscribed").waitFor();

    // A pasted URL, and a fresh load of it, over the home view.
    await page.goto(`/#channels/${denmark}/Denmark/general`);
    await page.locator(".channel-settings[aria-label='Channel Denmark']").waitFor();
    await page.reload();
    await page.locator(".channel-settings[aria-label='Channel Denmark']").waitFor();
    await page.goto("/#channels/new");
    await page.locator(".channels-pane[aria-label='New channel']").waitFor();
    await shots(page, "channels-url-new");
    await page.keyboard.press("Escape");
    await overlay.waitFor({ state: "detached" });
    await page.locator(".inbox").waitFor();
  });

  scenario("an invitation sent and revoked by another administrator shows in Iago's open Invitations tab", async () => {
    const { page } = await open("iago@zulip.com");
    await page.click("button[aria-label=Settings]");
    await page.click("role=tab[name='Invitations']");
    const pending = page.locator(".pending-invites li", { hasText: "live-invite@example.com" });
    await page.locator(".pending-invites").waitFor({ state: "attached" });
    assert.equal(await pending.count(), 0);

    await call("desdemona@zulip.com", "POST", "/invites", { invitee_emails: "live-invite@example.com", stream_ids: "[]", invite_expires_in_minutes: 60 });
    await pending.waitFor();
    assert.match(await pending.innerText(), /invited by Desdemona/);
    await pending.scrollIntoViewIfNeeded();
    await shots(page, "invitations-live", () => pending.scrollIntoViewIfNeeded());

    const invites = (await call("desdemona@zulip.com", "GET", "/invites")).invites as { id: number; email: string }[];
    await call("desdemona@zulip.com", "DELETE", `/invites/${invites.find((i) => i.email === "live-invite@example.com")!.id}`);
    await pending.waitFor({ state: "detached" });
  });
});
