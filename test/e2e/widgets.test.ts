/**
 * Polls and to-do lists in Chromium: a vote in one reader's browser shows up in another's, an
 * option added and the author's new question appear for both, a task checked off and the
 * author's new title reach the other reader. Screenshots at a desktop's and a phone's size,
 * light and dark.
 */
import { describe } from "node:test";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium, eventually } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { scenario, send, streamIdOf } = e2e;

/** Signed in, looking at one topic of Verona. */
async function openTopic(email: string, topic: string) {
  const signed = await signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD);
  await signed.page.setViewportSize({ width: 1440, height: 900 });
  await signed.page.goto(`/#narrow/channel/${await streamIdOf("Verona")}-Verona/topic/${topic}`);
  await signed.page.locator(".feed[aria-busy=false]").waitFor();
  return signed.page;
}

async function shots(page: Page, name: string) {
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    for (const [size, width, height] of [["desktop", 1440, 900], ["phone", 390, 844]] as const) {
      await page.setViewportSize({ width, height });
      await page.locator(".widget").last().scrollIntoViewIfNeeded();
      await screenshot(page, `${name}-${size}-${theme}`);
    }
  }
  await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
  await page.setViewportSize({ width: 1440, height: 900 });
}

const votes = (page: Page, option: string) => page.locator(".poll-options li", { hasText: option }).locator(".poll-vote").innerText();

describe("polls and to-do lists in Chromium", () => {
  scenario("a vote and a new option in one browser show in the other; a second click takes the vote back; the author rewords the question", async () => {
    await send("hamlet@zulip.com", "Verona", "lunch", "/poll Where should we have lunch?\nPizza\n- Salad");
    const hamlet = await openTopic("hamlet@zulip.com", "lunch");
    const othello = await openTopic("othello@zulip.com", "lunch");
    await hamlet.locator(".widget-poll h4", { hasText: "Where should we have lunch?" }).waitFor();
    await othello.locator(".widget-poll").waitFor();

    await hamlet.getByRole("button", { name: "Pizza: 0 votes" }).click();
    await eventually("Othello sees Hamlet's vote", () => votes(othello, "Pizza"), "1");
    await othello.locator(".poll-options li", { hasText: "Pizza" }).getByText("King Hamlet").waitFor();
    await eventually("Hamlet's own vote is marked as his", () => hamlet.getByRole("button", { name: "Pizza: 1 vote" }).getAttribute("aria-pressed"), "true");

    await othello.getByLabel("New option").fill("Soup");
    await othello.getByRole("button", { name: "Add option" }).click();
    await hamlet.getByRole("button", { name: "Soup: 0 votes" }).click();
    await eventually("Othello sees the vote on his option", () => votes(othello, "Soup"), "1");

    await hamlet.getByRole("button", { name: "Pizza: 1 vote" }).click();
    await eventually("Hamlet's vote taken back reaches Othello", () => votes(othello, "Pizza"), "0");
    await othello.getByRole("button", { name: "Salad: 0 votes" }).click();
    await eventually("Hamlet sees Othello's vote", () => votes(hamlet, "Salad"), "1");

    await eventually("only the author is offered to edit the question", () => othello.getByRole("button", { name: "Edit question" }).count(), 0);
    await hamlet.getByRole("button", { name: "Edit question" }).click();
    await hamlet.getByLabel("question").fill("Where should we have dinner?");
    await hamlet.getByRole("button", { name: "Save" }).click();
    await othello.locator(".widget-poll h4", { hasText: "Where should we have dinner?" }).waitFor();
    await shots(hamlet, "widgets-poll");
  });

  scenario("a task checked off reaches the other reader; only the author may rename the list", async () => {
    await send("hamlet@zulip.com", "Verona", "release", "/todo Release checklist\nTag: v1.0\nAnnounce");
    const hamlet = await openTopic("hamlet@zulip.com", "release");
    const othello = await openTopic("othello@zulip.com", "release");
    await othello.locator(".widget-todo h4", { hasText: "Release checklist" }).waitFor();
    await eventually("only the author is offered to edit the title", () => othello.getByRole("button", { name: "Edit task list title" }).count(), 0);

    await othello.getByRole("checkbox", { name: "Tag: v1.0" }).check();
    await eventually("Hamlet sees the task done", () => hamlet.getByRole("checkbox", { name: "Tag: v1.0" }).isChecked(), true);

    await othello.getByLabel("New task").fill("Write notes");
    await othello.getByLabel("Description").fill("by Friday");
    await othello.getByRole("button", { name: "Add task" }).click();
    await hamlet.getByRole("checkbox", { name: "Write notes: by Friday" }).waitFor();

    await hamlet.getByRole("button", { name: "Edit task list title" }).click();
    await hamlet.getByLabel("task list title").fill("Release 1.0");
    await hamlet.keyboard.press("Enter");
    await othello.locator(".widget-todo h4", { hasText: "Release 1.0" }).waitFor();
    await shots(othello, "widgets-todo");
  });
});
