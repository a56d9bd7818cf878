/**
 * The Drafts and Scheduled messages overlays end to end in Chromium: drafts and scheduled
 * messages made through the API appear live; a draft restores into the compose box (and sending
 * it deletes the draft) or is deleted, by button or key; `d` opens and closes the drafts; a
 * scheduled message shows its time in the reader's hour format, is rescheduled (a past time is
 * refused with the server's words), edited through the compose box and cancelled.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { call, scenario, streamIdOf } = e2e;

const userIdOf = async (email: string) => ((await call(email, "GET", "/users/me")) as { user_id: number }).user_id;

interface ApiDraft {
  id: number;
  content: string;
}
interface ApiScheduled {
  scheduled_message_id: number;
  content: string;
  scheduled_delivery_timestamp: number;
}
const drafts = async (email: string) => ((await call(email, "GET", "/drafts")) as { drafts: ApiDraft[] }).drafts;
const scheduled = async (email: string) => ((await call(email, "GET", "/scheduled_messages")) as { scheduled_messages: ApiScheduled[] }).scheduled_messages;

async function createDraft(email: string, draft: { type: string; to: number[]; topic: string; content: string; timestamp?: number }) {
  const r = (await call(email, "POST", "/drafts", { drafts: JSON.stringify([{ timestamp: Math.floor(Date.now() / 1000), ...draft }]) })) as { ids: number[] };
  return r.ids[0];
}

/** Signed in at a place, once it shows. */
async function open(email: string, hash = "#feed") {
  const signed = await signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD, hash);
  await signed.page.locator(".feed[aria-busy=false], .inbox, .recent").first().waitFor();
  return signed;
}

/** Screenshots of what is on screen at a desktop and a phone size, light and dark. */
async function shots(page: Page, name: string, reopen: () => Promise<void>) {
  for (const theme of ["light", "dark"] as const) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    await page.setViewportSize({ width: 1280, height: 800 });
    await screenshot(page, `${name}-${theme}`);
    await page.setViewportSize({ width: 390, height: 844 });
    await reopen();
    await screenshot(page, `${name}-${theme}-phone`);
  }
  await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** A moment as a datetime-local input's value in the browser's zone ("2026-01-15T15:05"; Swedish dates are ISO-like). */
const localInputValue = (page: Page, ms: number) =>
  page.evaluate((at) => new Date(at).toLocaleString("sv-SE", { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" }).replace(" ", "T"), ms);

const focusedRowId = (page: Page) => page.evaluate(() => (document.activeElement as HTMLElement | null)?.closest<HTMLElement>(".ov-row")?.dataset.id ?? "");

describe("drafts and scheduled messages overlays in Chromium", () => {
  scenario("drafts appear live, newest first; d opens and closes; arrows move; Backspace and Delete remove; Restore fills the compose box and sending deletes the draft", async () => {
    const email = "hamlet@zulip.com";
    const denmark = await streamIdOf("Denmark");
    const othello = await userIdOf("othello@zulip.com");
    const { context, page } = await open(email);
    const overlay = page.locator("dialog.drafts-overlay");
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));

    // `d` opens it, empty at first.
    await page.keyboard.press("d");
    await overlay.waitFor();
    await overlay.locator(".ov-empty").waitFor();
    await page.keyboard.press("d");
    await overlay.waitFor({ state: "detached" });

    // The sidebar's Drafts opens it too; drafts made elsewhere appear while it is open.
    await page.click(".left-sidebar .drafts-view button");
    await overlay.waitFor();
    const hour = Math.floor(Date.now() / 1000) - 3600;
    const older = await createDraft(email, { type: "stream", to: [denmark], topic: "castle walls", content: "The ghost walks **tonight**", timestamp: hour });
    const row = (id: number) => overlay.locator(`.ov-row[data-id="${id}"]`);
    await row(older).waitFor();
    assert.equal(await row(older).locator(".ov-target").innerText(), "#Denmark › castle walls");
    assert.match(await row(older).locator(".draft-content").innerText(), /The ghost walks \*\*tonight\*\*/);
    const newer = await createDraft(email, { type: "private", to: [othello], topic: "", content: "A word about Desdemona" });
    await row(newer).waitFor();
    assert.equal(await row(newer).locator(".ov-target").innerText(), "DM with Othello, the Moor of Venice");
    const third = await createDraft(email, { type: "stream", to: [denmark], topic: "", content: "Something is rotten", timestamp: hour - 60 });
    await row(third).waitFor();
    assert.deepEqual(
      await overlay.locator(".ov-row").evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.id))),
      [newer, older, third],
      "newest first",
    );
    assert.equal(await row(third).locator(".ov-target").innerText(), "#Denmark › general chat");
    await page.locator(".left-sidebar .drafts-view .view-tally", { hasText: "3" }).waitFor();
    await shots(page, "drafts-overlay", async () => {
      if (!(await overlay.isVisible())) await page.keyboard.press("d");
    });

    // The keyboard: the first row has the focus; arrows move; Escape closes without leaving the view.
    await overlay.locator(".ov-row").first().focus();
    assert.equal(await focusedRowId(page), String(newer));
    await page.keyboard.press("ArrowDown");
    assert.equal(await focusedRowId(page), String(older));
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    assert.equal(await focusedRowId(page), String(third), "stays on the last row");
    await page.keyboard.press("ArrowUp");
    assert.equal(await focusedRowId(page), String(older));
    await page.keyboard.press("Escape");
    await overlay.waitFor({ state: "detached" });
    assert.match(page.url(), /#feed$/, "Escape closed the overlay only");

    // Backspace deletes the focused draft; the focus stays in the list.
    await page.keyboard.press("d");
    await overlay.waitFor();
    await row(newer).focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    assert.equal(await focusedRowId(page), String(third));
    await page.keyboard.press("Backspace");
    await row(third).waitFor({ state: "detached" });
    assert.equal(await focusedRowId(page), String(older), "the focus moved to a remaining row");
    assert.deepEqual((await drafts(email)).map((d) => d.id).sort(), [newer, older].sort());
    // The Delete button too.
    await row(newer).getByRole("button", { name: /^Delete/ }).click();
    await row(newer).waitFor({ state: "detached" });
    assert.deepEqual((await drafts(email)).map((d) => d.id), [older]);
    // Deleted elsewhere: it leaves live.
    const gone = await createDraft(email, { type: "stream", to: [denmark], topic: "brief", content: "Brevity is the soul of wit" });
    await row(gone).waitFor();
    await call(email, "DELETE", `/drafts/${gone}`);
    await row(gone).waitFor({ state: "detached" });

    // Enter restores: the compose box holds the draft, in its conversation.
    await row(older).focus();
    await page.keyboard.press("Enter");
    await overlay.waitFor({ state: "detached" });
    await page.locator(".narrow-title h2", { hasText: "castle walls" }).waitFor();
    assert.equal(await page.inputValue("#compose-content"), "The ghost walks **tonight**");
    assert.equal(await page.inputValue("#compose-channel"), String(denmark));
    assert.equal(await page.inputValue("#compose-topic"), "castle walls");
    await page.waitForFunction(() => document.activeElement?.id === "compose-content");
    await screenshot(page, "drafts-restored");
    // Sending it sends the message and deletes the draft.
    await page.fill("#compose-content", "The ghost walks tonight, restored");
    await page.click(".compose button[type=submit]");
    await page.locator(".message", { hasText: "The ghost walks tonight, restored" }).waitFor();
    for (let i = 0; i < 50 && (await drafts(email)).length; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(await drafts(email), [], "the restored draft was deleted when sent");
    await page.locator(".left-sidebar .drafts-view .view-tally").waitFor({ state: "detached" });

    // The drafts of the conversation in view come first, apart.
    await page.keyboard.press("Escape");
    const elsewhere = await createDraft(email, { type: "private", to: [othello], topic: "", content: "Elsewhere" });
    const here = await createDraft(email, { type: "stream", to: [denmark], topic: "Castle Walls", content: "Here, in another case", timestamp: hour });
    await page.locator(".left-sidebar .drafts-view .view-tally", { hasText: "2" }).waitFor();
    await page.keyboard.press("d");
    await overlay.waitFor();
    assert.equal(await overlay.locator("section[aria-label='Drafts from this conversation'] .ov-row").getAttribute("data-id"), String(here));
    assert.equal(await overlay.locator("section[aria-label='Other drafts'] .ov-row").getAttribute("data-id"), String(elsewhere));
    assert.equal(await focusedRowId(page), String(here), "the focus starts on the first row");
    await page.keyboard.press("d");
    await overlay.waitFor({ state: "detached" });
    assert.deepEqual(errors, []);
    await context.close();
  });

  scenario("scheduled messages appear live with their time; reschedule (a past time refused), edit through the compose box, delete", async () => {
    const email = "cordelia@zulip.com";
    const verona = await streamIdOf("Verona");
    const { context, page } = await open(email);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await call(email, "PATCH", "/settings", { twenty_four_hour_time: "false" });
    const entry = page.locator(".left-sidebar .scheduled-view");
    assert.equal(await entry.count(), 0, "no entry without scheduled messages");

    // Made elsewhere: the sidebar entry appears with the count.
    const at = Math.floor(Date.now() / 1000) + 2 * 86400;
    const first = ((await call(email, "POST", "/scheduled_messages", { type: "stream", to: verona, topic: "plans", content: "Meet at the **gate**", scheduled_delivery_timestamp: at })) as { scheduled_message_id: number })
      .scheduled_message_id;
    await entry.locator(".view-tally", { hasText: "1" }).waitFor();
    await entry.locator("button").click();
    const overlay = page.locator("dialog.scheduled-overlay");
    await overlay.waitFor();
    const row = (id: number) => overlay.locator(`.ov-row[data-id="${id}"]`);
    await row(first).waitFor();
    assert.equal(await row(first).locator(".ov-target").innerText(), "#Verona › plans");
    assert.equal(await row(first).locator(".scheduled-content strong").innerText(), "gate", "rendered Markdown");
    const shown = await row(first).locator(".scheduled-time").innerText();
    const expected = await page.evaluate((ms) => new Date(ms).toLocaleTimeString("en-US", { hour: "numeric", minute: "2-digit", hour12: true }), at * 1000);
    assert.equal(shown.replace(/\s/g, " "), expected.replace(/\s/g, " "));
    // The hour format follows the setting, live.
    await call(email, "PATCH", "/settings", { twenty_four_hour_time: "true" });
    await row(first).locator(".scheduled-time", { hasText: /^\d{2}:\d{2}$/ }).waitFor();

    // A second one, made while the overlay is open, sorts by its time: sooner first.
    const sooner = ((await call(email, "POST", "/scheduled_messages", {
      type: "direct",
      to: JSON.stringify([await userIdOf("othello@zulip.com")]),
      content: "A private reminder",
      scheduled_delivery_timestamp: at - 86400,
    })) as { scheduled_message_id: number }).scheduled_message_id;
    await row(sooner).waitFor();
    assert.deepEqual(await overlay.locator(".ov-row").evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.id))), [sooner, first]);
    assert.equal(await overlay.locator(".ov-section h3").first().textContent(), "Tomorrow");
    await shots(page, "scheduled-overlay", async () => {
      if (await overlay.isVisible()) return;
      await page.click(".only-narrow[aria-label=Channels]");
      await entry.locator("button").click();
    });

    // Reschedule: a past time is refused with the server's message; a later one is saved.
    await row(first).getByRole("button", { name: /^Reschedule/ }).click();
    const input = row(first).locator("input[type=datetime-local]");
    await input.waitFor();
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("type")), "datetime-local");
    const past = await localInputValue(page, Date.now() - 3 * 3600_000);
    // Escape there closes the time picker, not the overlay.
    await page.keyboard.press("Escape");
    await input.waitFor({ state: "detached" });
    assert.ok(await overlay.isVisible());
    assert.equal(await focusedRowId(page), String(first));
    await row(first).getByRole("button", { name: /^Reschedule/ }).click();
    await input.fill(past);
    await row(first).getByRole("button", { name: "Save time" }).click();
    await row(first).locator(".ov-error[role=alert]", { hasText: "Scheduled delivery time must be in the future." }).waitFor();
    await screenshot(page, "scheduled-reschedule-error");
    const later = at + 3 * 86400;
    const laterValue = await localInputValue(page, later * 1000);
    await input.fill(laterValue);
    await row(first).getByRole("button", { name: "Save time" }).click();
    await input.waitFor({ state: "detached" });
    const wantSeconds = Math.floor(later / 60) * 60;
    assert.equal((await scheduled(email)).find((s) => s.scheduled_message_id === first)?.scheduled_delivery_timestamp, wantSeconds);
    await row(first).locator(".ov-error").waitFor({ state: "detached" });

    // Edit: the compose box opens with it; Save updates it (no new message is sent).
    await row(first).getByRole("button", { name: /^Edit/ }).click();
    await overlay.waitFor({ state: "detached" });
    assert.equal(await page.inputValue("#compose-content"), "Meet at the **gate**");
    assert.equal(await page.inputValue("#compose-topic"), "plans");
    await page.locator(".compose .compose-scheduled-note").waitFor();
    await screenshot(page, "scheduled-edit-compose");
    await page.fill("#compose-content", "Meet at the **bridge** instead");
    await page.click(".compose button[type=submit]");
    await page.locator(".compose .compose-scheduled-note").waitFor({ state: "detached" });
    const edited = (await scheduled(email)).find((s) => s.scheduled_message_id === first);
    assert.equal(edited?.content, "Meet at the **bridge** instead");
    assert.equal(edited?.scheduled_delivery_timestamp, wantSeconds, "the time was kept");
    assert.equal((await scheduled(email)).length, 2);
    const sent = (await call(email, "GET", "/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: "channel", operand: verona }, { operator: "topic", operand: "plans" }]) })) as {
      messages: unknown[];
    };
    assert.equal(sent.messages.length, 0, "nothing was sent now");
    await page.keyboard.press("Escape");

    // Delete: the row leaves, and with the last one the sidebar entry.
    await entry.locator("button").click();
    await overlay.waitFor();
    await row(first).locator(".scheduled-content", { hasText: "Meet at the bridge instead" }).waitFor();
    await row(first).getByRole("button", { name: /^Delete/ }).click();
    await row(first).waitFor({ state: "detached" });
    assert.deepEqual((await scheduled(email)).map((s) => s.scheduled_message_id), [sooner]);
    // Backspace on a focused row deletes it too.
    await row(sooner).focus();
    await page.keyboard.press("Backspace");
    await row(sooner).waitFor({ state: "detached" });
    await overlay.locator(".ov-empty").waitFor();
    assert.deepEqual(await scheduled(email), []);
    await entry.waitFor({ state: "detached" });
    await page.keyboard.press("Escape");
    await overlay.waitFor({ state: "detached" });
    assert.deepEqual(errors, []);
    await context.close();
  });
});
