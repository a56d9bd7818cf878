/**
 * How the web client looks, in headless Chromium against a real Confab with Zulip's development
 * organization: the dark and light themes from the color_scheme setting, the favicon with the
 * unread count, and times in the reader's zone and hour format. Screenshots of both themes at a
 * desktop and a phone size land in test/e2e/screenshots/.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { BrowserContextOptions, Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot } from "../helpers/browser.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium(async () => {
  // A conversation showing what the palette has to cover: a mention of the reader, a global
  // time, highlighted code, a quote, inline code, a link and KaTeX.
  await send("iago@zulip.com", "look", "Plans for **today**, @**King Hamlet**: we meet at <time:2026-01-15T15:05:00Z>.");
  await send("iago@zulip.com", "look", '```python\ndef greet(name):\n    # say hello\n    return f"Hello {name}" + str(42)\n```');
  await send("othello@zulip.com", "look", "> To be, or not to be\n\nThat is the question: $$e^{i\\pi} + 1 = 0$$, `inline code`, and [a link](https://example.com).");
  await send("cordelia@zulip.com", "look", "I'll be there. :octopus:");
});
const { call, scenario } = e2e;

const send = (email: string, topic: string, content: string) => call(email, "POST", "/messages", { type: "stream", to: "Verona", topic, content }).then((r) => r.id as number);
const setSetting = (email: string, name: string, value: number | boolean) => call(email, "PATCH", "/settings", { [name]: value });

/** Signed in through the form in a profile of its own: a time zone, locale and system theme the test chooses. */
async function open(email: string, options: BrowserContextOptions = {}): Promise<Page> {
  const context = await e2e.browser.newContext({ baseURL: e2e.srv.url, viewport: { width: 1440, height: 900 }, locale: "en-US", ...options });
  const page = await context.newPage();
  await page.goto("/");
  await page.fill("#username", email);
  await page.fill("#password", DEV_PASSWORD);
  await page.click("button[type=submit]");
  await page.waitForSelector(".left-sidebar");
  return page;
}

async function openTopic(page: Page, topic: string) {
  const { stream_id } = (await call("hamlet@zulip.com", "GET", "/get_stream_id", { stream: "Verona" })) as { stream_id: number };
  await page.goto(`/#narrow/channel/${stream_id}/topic/${topic}`);
  await page.waitForSelector(".message");
}

const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme);
const background = (page: Page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);

async function waitForTheme(page: Page, want: string) {
  await page.waitForFunction((want) => document.documentElement.dataset.theme === want, want);
}

describe("the web client's look", () => {
  scenario("the theme switch saves color_scheme; dark and light apply live, and automatic follows the system", async () => {
    const page = await open("hamlet@zulip.com", { colorScheme: "light" });
    await openTopic(page, "look");
    assert.equal(await theme(page), "light", "automatic, on a light system");
    assert.equal(await background(page), "rgb(255, 255, 255)");

    await page.click(".theme-switch button[aria-label='Dark theme']");
    await waitForTheme(page, "dark");
    assert.equal(await background(page), "rgb(27, 29, 33)");
    assert.equal(await page.locator(".theme-switch button[aria-label='Dark theme']").getAttribute("aria-pressed"), "true");
    const registered = (await call("hamlet@zulip.com", "POST", "/register", { fetch_event_types: '["user_settings"]' })) as { user_settings: { color_scheme: number } };
    assert.equal(registered.user_settings.color_scheme, 2, "saved to the setting");

    // Changed elsewhere: the user_settings event brings it here.
    await setSetting("hamlet@zulip.com", "color_scheme", 3);
    await waitForTheme(page, "light");
    await setSetting("hamlet@zulip.com", "color_scheme", 1);
    await page.emulateMedia({ colorScheme: "dark" });
    await waitForTheme(page, "dark");
    await page.emulateMedia({ colorScheme: "light" });
    await waitForTheme(page, "light");
    await page.context().close();
  });

  scenario("screenshots of both themes at desktop and phone sizes, the settings dialog in the dark", async () => {
    const page = await open("hamlet@zulip.com");
    await openTopic(page, "look");
    await page.locator(".message .content", { hasText: "I'll be there." }).click();
    for (const scheme of ["dark", "light"] as const) {
      await setSetting("hamlet@zulip.com", "color_scheme", scheme === "dark" ? 2 : 3);
      await waitForTheme(page, scheme);
      await page.setViewportSize({ width: 1440, height: 900 });
      await screenshot(page, `look-${scheme}-1440`);
      await page.setViewportSize({ width: 390, height: 844 });
      await screenshot(page, `look-${scheme}-390`);
    }
    // On the phone only the current choice shows, and tapping it offers the other two.
    const dark = page.locator(".theme-switch button[aria-label='Dark theme']");
    assert.equal(await dark.isVisible(), false);
    await page.click(".theme-switch button[aria-pressed=true]");
    await dark.click();
    await waitForTheme(page, "dark");
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.keyboard.press("c");
    await page.fill("#compose-content", "A draft in the dark");
    await screenshot(page, "look-dark-compose");
    await page.keyboard.press("Escape");
    await page.click("button[aria-label=Settings]");
    await page.waitForSelector(".modal");
    await screenshot(page, "look-dark-settings");
    await setSetting("hamlet@zulip.com", "color_scheme", 1);
    await page.context().close();
  });

  scenario("/favicon.ico is an icon, and the page's icon is redrawn as the unread count changes", async () => {
    const r = await fetch(`${e2e.srv.url}/favicon.ico`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get("content-type"), "image/x-icon");
    assert.deepEqual([...new Uint8Array(await r.arrayBuffer()).subarray(0, 4)], [0, 0, 1, 0], "an ICO header");

    const page = await open("hamlet@zulip.com");
    const icon = () => page.evaluate(() => document.querySelector<HTMLLinkElement>("link[rel=icon]")?.href ?? "");
    await page.waitForFunction(() => document.querySelector<HTMLLinkElement>("link[rel=icon]")?.href.startsWith("data:image/png"));
    const before = await icon();
    const title = await page.title();
    await send("iago@zulip.com", "favicon", "One more unread message");
    await page.waitForFunction((title) => document.title !== title, title);
    assert.match(await icon(), /^data:image\/png/);
    assert.notEqual(await icon(), before, "a new badge");
    await page.context().close();
  });

  scenario("a /me message reads as its sender doing something, and an edit back to plain text reads plainly", async () => {
    const id = await send("iago@zulip.com", "me messages", "/me waves from the battlements");
    const page = await open("hamlet@zulip.com");
    await openTopic(page, "me.20messages");
    const content = page.locator(`[data-id="${id}"] .content`);
    await content.locator(".me-sender >> text=Iago").waitFor();
    assert.equal((await content.innerText()).trim(), "Iago waves from the battlements");
    await screenshot(page, "me-message");
    await call("iago@zulip.com", "PATCH", `/messages/${id}`, { content: "I wave from the battlements" });
    await content.locator("text=I wave from the battlements").waitFor();
    assert.equal(await content.locator(".me-sender").count(), 0);
    await page.context().close();
  });

  scenario("a global time shows in the reader's zone; twenty_four_hour_time switches message times", async () => {
    await setSetting("hamlet@zulip.com", "twenty_four_hour_time", false);
    const page = await open("hamlet@zulip.com", { timezoneId: "Asia/Tokyo" });
    await openTopic(page, "look");
    const global = page.locator(".message .content time").first();
    // 15:05 UTC is five past midnight the next day in Tokyo.
    await page.waitForFunction(() => document.querySelector(".message .content time")?.textContent === "Fri, Jan 16, 2026, 12:05 AM");
    assert.equal(await global.getAttribute("datetime"), "2026-01-15T15:05:00Z");
    assert.match((await global.getAttribute("title")) ?? "", /2026-01-15T15:05:00Z/, "what the sender wrote stays in the tooltip");
    const messageTime = page.locator(".message .body > time").first();
    assert.match(await messageTime.innerText(), /^\d{1,2}:\d{2} (AM|PM)$/);
    assert.match((await messageTime.getAttribute("title")) ?? "", /^\w{3}, \w{3} \d{1,2}, \d{4}, \d{1,2}:\d{2} (AM|PM)$/);

    // Without a reload: the setting's event reaches every row on screen.
    await setSetting("hamlet@zulip.com", "twenty_four_hour_time", true);
    await page.waitForFunction(() => document.querySelector(".message .content time")?.textContent === "Fri, Jan 16, 2026, 00:05");
    assert.match(await page.locator(".message .body > time").first().innerText(), /^\d{2}:\d{2}$/);
    await setSetting("hamlet@zulip.com", "twenty_four_hour_time", false);
    await page.context().close();
  });
});
