/**
 * The Bots settings tab in headless Chromium, against a real Confab with Zulip's development
 * organization: a member creates a bot, sees its key, builds an integration URL, renames and
 * deactivates it, while an administrator's open tab follows by events. Screenshots at a
 * desktop's and a phone's size, light and dark, land in test/e2e/screenshots/.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { call, scenario } = e2e;

async function openBots(page: Page) {
  await page.click("button[aria-label=Settings]");
  await page.click("role=tab[name='Bots']");
}

const botRow = (page: Page, name: string) => page.locator(".bots .bot", { has: page.locator(`strong:text-is("${name}")`) });

async function screenshots(page: Page, name: string) {
  for (const scheme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.waitForFunction((want) => document.documentElement.dataset.theme === want, scheme);
    for (const [suffix, width, height] of [["desktop", 1440, 900], ["phone", 390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.locator(".bots").scrollIntoViewIfNeeded();
      await screenshot(page, `${name}-${scheme}-${suffix}`);
    }
  }
  await page.setViewportSize({ width: 1280, height: 800 });
}

describe("the Bots settings tab in Chromium", () => {
  scenario("a member creates a bot, reads its key, builds an integration URL, renames and deactivates it; an administrator's tab follows", async () => {
    const hamlet = await signedIn(e2e.browser, e2e.srv.url, "hamlet@zulip.com", DEV_PASSWORD);
    const iago = await signedIn(e2e.browser, e2e.srv.url, "iago@zulip.com", DEV_PASSWORD);
    await openBots(hamlet.page);
    await openBots(iago.page);
    await hamlet.page.locator("text=No bots yet.").waitFor();
    // Administrators administer every bot: the development organization's own are listed.
    await botRow(iago.page, "Zulip Default Bot").waitFor();

    const page = hamlet.page;
    await page.selectOption("#bot-type", { label: "Generic" });
    await page.fill("#bot-name", "Build Bot");
    await page.fill("#bot-short-name", "build");
    await page.click("text=Create bot");
    await page.locator("[role=status] >> text=Bot created.").waitFor();
    const row = botRow(page, "Build Bot");
    await row.waitFor();
    const [created] = (await call<{ bots: { username: string; api_key: string }[] }>("hamlet@zulip.com", "GET", "/bots")).bots;
    assert.equal(await row.locator(".bot-email").innerText(), created.username);
    assert.match(created.username, /^build-bot@/);
    assert.equal((await row.locator(".bot-avatar").innerText()).trim(), "B");
    assert.match(await row.locator(".bot-owner").innerText(), /King Hamlet/);
    await botRow(iago.page, "Build Bot").waitFor();

    await row.locator("text=Show API key").click();
    assert.equal(await row.locator(".bot-key").innerText(), created.api_key);

    await page.fill("#hook-integration", "github");
    await page.selectOption("#hook-channel", { label: "Denmark" });
    await page.fill("#hook-topic", "CI builds");
    assert.equal(
      await page.inputValue("#hook-url"),
      `${e2e.srv.url}/api/v1/external/github?api_key=${created.api_key}&stream=Denmark&topic=CI+builds`,
    );
    await screenshots(page, "bots-created");

    await row.locator("text=Edit name").click();
    await page.fill("[id^=bot-rename-]", "Build Robot");
    await page.click(".bot-rename button[type=submit]");
    const renamed = botRow(page, "Build Robot");
    await renamed.waitFor();
    await botRow(iago.page, "Build Robot").waitFor();

    await renamed.locator("text=Deactivate").click();
    await renamed.locator("text=Reactivate").waitFor();
    assert.match(await renamed.innerText(), /Deactivated/);
    assert.deepEqual((await call<{ bots: unknown[] }>("hamlet@zulip.com", "GET", "/bots")).bots, []);
    await botRow(iago.page, "Build Robot").locator("text=Reactivate").waitFor();
    await screenshots(page, "bots-deactivated");
  });

  scenario("a GitHub push posted to the URL the tab builds for an incoming webhook bot shows in the channel", async () => {
    const { page } = await signedIn(e2e.browser, e2e.srv.url, "hamlet@zulip.com", DEV_PASSWORD);
    await openBots(page);
    await page.selectOption("#bot-type", { label: "Incoming webhook" });
    await page.fill("#bot-name", "GitHub Bot");
    await page.fill("#bot-short-name", "github");
    await page.click("text=Create bot");
    await botRow(page, "GitHub Bot").waitFor();
    await page.fill("#hook-integration", "github");
    await page.selectOption("#hook-channel", { label: "Denmark" });
    await page.fill("#hook-topic", "CI builds");
    const url = await page.inputValue("#hook-url");
    const repo = "https://github.com/example/confab";
    const sha = "0123456789abcdef0123456789abcdef01234567";
    const push = {
      ref: "refs/heads/main",
      compare: `${repo}/compare/aaaaaaa...0123456`,
      created: false,
      deleted: false,
      forced: false,
      commits: [{ id: sha, url: `${repo}/commit/${sha}`, message: "Fix the build", author: { name: "Ada Lovelace", username: "ada" } }],
      repository: { name: "confab", full_name: "example/confab", html_url: repo, private: false },
      pusher: { name: "ada" },
      sender: { login: "ada" },
    };
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-github-event": "push" }, body: JSON.stringify(push) });
    assert.equal(r.status, 200, await r.text());
    await page.keyboard.press("Escape");
    await page.goto(`/#narrow/channel/${await e2e.streamIdOf("Denmark")}-Denmark/topic/CI.20builds`);
    const message = page.locator(".message", { hasText: "Fix the build" });
    await message.waitFor();
    assert.match(await message.innerText(), /GitHub Bot[\s\S]*ada pushed 1 commit to branch main/);
    await screenshot(page, "bots-github-push");
  });

  scenario("an outgoing webhook bot shows where it posts", async () => {
    const { page } = await signedIn(e2e.browser, e2e.srv.url, "othello@zulip.com", DEV_PASSWORD);
    await openBots(page);
    await page.selectOption("#bot-type", { label: "Outgoing webhook" });
    await page.fill("#bot-name", "Relay");
    await page.fill("#bot-short-name", "relay");
    await page.fill("#bot-payload-url", "https://hooks.example.com/relay");
    await page.selectOption("#bot-interface", { label: "Slack compatible" });
    await page.click("text=Create bot");
    const row = botRow(page, "Relay");
    await row.waitFor();
    assert.match(await row.innerText(), /Outgoing webhook/);
    assert.match(await row.innerText(), /Posts to https:\/\/hooks\.example\.com\/relay/);
  });
});
