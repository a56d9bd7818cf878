/**
 * The web client's places end to end in Chromium: Zulip's URLs (pasted, followed from inside a
 * message, Back and Forward), narrows opening at the first unread message, the Inbox and Recent
 * conversations updating live, the keyboard, and 200 cold loads that all reach a usable view.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { call, scenario, send, streamIdOf } = e2e;

/** Signed in at a place, once it shows (a loaded feed, the Inbox or Recent conversations). */
async function open(email: string, hash?: string) {
  const signed = await signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD, hash);
  await signed.page.locator(".feed[aria-busy=false], .inbox, .recent").first().waitFor();
  return signed;
}

/** The id of the message the feed has selected. */
const selectedId = (page: Page) => page.locator(".message.selected").getAttribute("data-id").then(Number);

async function inViewport(page: Page, id: number): Promise<boolean> {
  return page.evaluate((messageId) => {
    const row = document.querySelector(`[data-id="${messageId}"]`);
    const feed = document.querySelector(".feed");
    if (!row || !feed) return false;
    const r = row.getBoundingClientRect();
    const f = feed.getBoundingClientRect();
    return r.top >= f.top && r.top < f.bottom;
  }, id);
}

describe("places, unread-first and the Inbox in Chromium", () => {
  scenario("a topic opens at its first unread message, in view with what was read above it", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 60; i++) ids.push(await send("iago@zulip.com", "Denmark", "long read", `Line ${i} of the long read`));
    // Hamlet has read the first 40.
    await call("hamlet@zulip.com", "POST", "/messages/flags", { messages: JSON.stringify(ids.slice(0, 40)), op: "add", flag: "read" });
    const denmark = await streamIdOf("Denmark");
    const { context, page } = await open("hamlet@zulip.com", `#narrow/channel/${denmark}-Denmark/topic/long.20read`);
    await page.locator(".message.selected").waitFor();
    assert.equal(await selectedId(page), ids[40]);
    assert.ok(await inViewport(page, ids[40]), "the first unread message is on screen");
    assert.ok(await inViewport(page, ids[39]), "with a read message above it for context");
    assert.equal(await inViewport(page, ids[59]), false, "not scrolled to the newest");
    await screenshot(page, "unread-first");
    // What was on screen is read now; the rest is still unread.
    await page.waitForFunction(() => Number(document.querySelector(".narrow-title .mark-read") ? 1 : 0) === 1);
    await page.click(".narrow-title .mark-read");
    await page.locator(".narrow-title .mark-read").waitFor({ state: "detached" });
    const after = (await call("hamlet@zulip.com", "GET", "/messages", { anchor: "newest", num_before: 60, num_after: 0, narrow: JSON.stringify([{ operator: "channel", operand: denmark }, { operator: "topic", operand: "long read" }]) })) as {
      messages: { flags: string[] }[];
    };
    assert.ok(after.messages.every((m) => m.flags.includes("read")), "Mark all as read read the whole topic");
    await context.close();
  });

  scenario("a pasted URL with near/ID selects that message; #narrow/near/ID too; Back and Forward return", async () => {
    const verona = await streamIdOf("Verona");
    const target = await send("othello@zulip.com", "Verona", "paste test", "The message the link names");
    for (let i = 0; i < 30; i++) await send("othello@zulip.com", "Verona", "paste test", `Later message ${i}`);
    const { context, page } = await open("hamlet@zulip.com", `#narrow/channel/${verona}-Verona/topic/paste.20test/near/${target}`);
    await page.locator(`.message.selected[data-id="${target}"]`).waitFor();
    assert.ok(await inViewport(page, target));
    assert.match(await page.locator(".narrow-title h2").innerText(), /#Verona › paste test/);

    await page.goto(`/#narrow/near/${target}`);
    await page.locator(`.message.selected[data-id="${target}"]`).waitFor();
    assert.equal(await page.locator(".narrow-title h2").innerText(), "Combined feed");

    await page.click(".views >> text=Inbox");
    await page.locator(".inbox").waitFor();
    assert.match(page.url(), /#inbox$/);
    await page.goBack();
    await page.locator(`.message.selected[data-id="${target}"]`).waitFor();
    await page.goBack();
    await page.locator(".narrow-title >> text=paste test").waitFor();
    await page.goForward();
    await page.goForward();
    await page.locator(".inbox").waitFor();
    await context.close();
  });

  scenario("links inside a message to a channel, a topic and a message open them", async () => {
    const denmark = await streamIdOf("Denmark");
    const castle = await send("iago@zulip.com", "Denmark", "castle", "Elsinore is cold tonight");
    await send("iago@zulip.com", "sandbox", "links", `See #**Denmark** and #**Denmark>castle** and #**Denmark>castle@${castle}**`);
    const sandbox = await streamIdOf("sandbox");
    const { context, page } = await open("hamlet@zulip.com", `#narrow/channel/${sandbox}-sandbox/topic/links`);
    const links = page.locator(".message .content", { hasText: "See #Denmark" }).last();
    await links.waitFor();
    await links.locator("a.stream").click();
    await page.locator(".narrow-title h2", { hasText: /^#Denmark$/ }).waitFor();
    assert.match(page.url(), new RegExp(`#narrow/channel/${denmark}-Denmark$`));
    await page.goBack();
    await links.locator("a.stream-topic").first().click();
    await page.locator(".narrow-title h2", { hasText: "#Denmark › castle" }).waitFor();
    await page.locator(".message .content >> text=Elsinore is cold tonight").waitFor();
    await page.goBack();
    await links.locator("a.message-link, a.stream-topic").last().click();
    await page.locator(`.message.selected[data-id="${castle}"]`).waitFor();
    await context.close();
  });

  scenario("the Inbox is the home view and shows another user's new messages live, with counts; reading empties it", async () => {
    const { context, page } = await open("cordelia@zulip.com");
    await page.locator(".inbox").waitFor();
    assert.match(await page.locator(".narrow-title h2, main h2").allInnerTexts().then(() => page.title()), /Inbox/);
    await send("othello@zulip.com", "Verona", "inbox live", "First news");
    const row = page.locator(".inbox-topic", { hasText: "inbox live" });
    await row.locator(".count", { hasText: /^1$/ }).waitFor();
    await send("othello@zulip.com", "Verona", "inbox live", "More news, @**Cordelia, Lear's daughter**");
    await row.locator(".count", { hasText: /^2$/ }).waitFor();
    await row.locator(".inbox-mention").waitFor();
    await call("othello@zulip.com", "POST", "/messages", { type: "direct", to: JSON.stringify(["cordelia@zulip.com"]), content: "A word in private" });
    await page.locator(".inbox-section[aria-label='Direct messages'] .inbox-conversation", { hasText: "Othello" }).waitFor();
    await screenshot(page, "inbox");
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "inbox-phone");
    await page.setViewportSize({ width: 1280, height: 800 });

    // Folding a channel hides its topics, and the keyboard walks the rows.
    const verona = page.locator(".inbox-section[aria-label='Channel Verona'] .inbox-header");
    await verona.click();
    await row.waitFor({ state: "detached" });
    await verona.press("ArrowRight");
    await row.waitFor();
    await verona.press("ArrowDown");
    assert.ok(await page.evaluate(() => document.activeElement?.classList.contains("inbox-conversation")));

    // Mark the topic as read from the Inbox: it leaves.
    await page.locator(".inbox-item", { hasText: "inbox live" }).locator(".inbox-read").click();
    await row.waitFor({ state: "detached" });
    // Opening a conversation from the Inbox goes to it.
    await page.locator(".inbox-conversation", { hasText: "Othello" }).click();
    await page.locator(".narrow-title >> text=Direct messages with Othello").waitFor();
    await context.close();
  });

  scenario("Recent conversations lists topics by activity, updates live, and filters", async () => {
    const { context, page } = await open("hamlet@zulip.com", "#recent");
    await page.locator(".recent-table tbody tr").first().waitFor();
    await send("othello@zulip.com", "Denmark", "recent live", "Fresh topic");
    const first = page.locator(".recent-table tbody tr").first();
    await first.locator(".recent-link", { hasText: "recent live" }).waitFor();
    assert.match(await first.innerText(), /Denmark/);
    assert.match(await first.locator(".participants").getAttribute("aria-label") ?? "", /Othello/);
    await screenshot(page, "recent");

    // Participated: hamlet has not written in "recent live".
    await page.click(".recent-toolbar >> text=Participated");
    await page.locator(".recent-link", { hasText: "recent live" }).waitFor({ state: "detached" });
    await page.click(".recent-toolbar >> text=Participated");
    await page.click(".recent-toolbar >> text=Unread");
    await page.locator(".recent-link", { hasText: "recent live" }).waitFor();
    await page.fill("#recent-filter", "no such conversation anywhere");
    await page.locator(".recent >> text=No conversations match your filters.").waitFor();
    await page.fill("#recent-filter", "recent live");
    await page.locator(".recent-link", { hasText: "recent live" }).click();
    await page.locator(".narrow-title >> text=recent live").waitFor();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto("/#recent");
    await screenshot(page, "recent-phone");
    await context.close();
  });

  scenario("what you send from the browser is read for you; keyboard shortcuts move between views", async () => {
    const denmark = await streamIdOf("Denmark");
    const earlier = await send("iago@zulip.com", "Denmark", "own message", "Tell me something");
    await call("hamlet@zulip.com", "POST", "/messages/flags", { messages: JSON.stringify([earlier]), op: "add", flag: "read" });
    const { context, page } = await open("hamlet@zulip.com", `#narrow/channel/${denmark}-Denmark/topic/own.20message`);
    const before = await page.title();
    await page.keyboard.press("c");
    await page.selectOption("#compose-channel", { label: "Denmark" });
    await page.fill("#compose-topic", "own message");
    await page.fill("#compose-content", "Nobody needs to tell me about this");
    await page.click(".compose button[type=submit]");
    const row = page.locator(".message", { hasText: "Nobody needs to tell me about this" });
    await row.waitFor();
    assert.equal(await row.getAttribute("data-unread"), null);
    assert.equal(await page.title(), before, "the unread count in the title did not move");
    await page.keyboard.press("Escape");
    await page.locator("#compose-content").waitFor({ state: "detached" });
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());

    await page.keyboard.press("Shift+I");
    await page.locator(".inbox").waitFor();
    await page.keyboard.press("t");
    await page.locator(".recent").waitFor();
    await page.keyboard.press("a");
    await page.locator(".narrow-title h2", { hasText: "Combined feed" }).waitFor();
    await page.keyboard.press("*");
    await page.locator(".narrow-title h2", { hasText: "Starred messages" }).waitFor();
    await page.keyboard.press("?");
    const help = page.locator(".shortcut-help");
    await help.waitFor();
    assert.ok((await help.locator(".shortcut").count()) >= 20);
    assert.match(await help.innerText(), /Go to Inbox/);
    await screenshot(page, "shortcut-help");
    await page.keyboard.press("Escape");
    await help.waitFor({ state: "detached" });
    await page.keyboard.press("Escape");
    await page.locator(".inbox").waitFor();
    await context.close();
  });

  scenario("a negated search is titled as such", async () => {
    const { context, page } = await open("hamlet@zulip.com", "#feed");
    await page.keyboard.press("/");
    await page.keyboard.type("-topic:test");
    await page.keyboard.press("Enter");
    await page.locator(".narrow-title h2", { hasText: "Excluding › test" }).waitFor();
    await context.close();
  });

  scenario("200 cold loads in a row each reach a usable view", async () => {
    const { context, page } = await open("hamlet@zulip.com", "#feed");
    const client = await context.newCDPSession(page);
    await client.send("Network.setCacheDisabled", { cacheDisabled: true });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    let slowest = 0;
    for (let i = 0; i < 200; i++) {
      const started = Date.now();
      await page.reload();
      try {
        await page.locator(".feed[aria-busy=false]").waitFor({ timeout: 15_000 });
      } catch (err) {
        const shown = await page.evaluate(() => document.body.innerText.slice(0, 300));
        assert.fail(`load ${i + 1} did not reach the feed: ${(err as Error).message}; page errors: ${errors.join("; ")}; the page shows: ${shown}`);
      }
      slowest = Math.max(slowest, Date.now() - started);
    }
    console.log(`200 cold loads; the slowest took ${slowest} ms`);
    await context.close();
  });
});
