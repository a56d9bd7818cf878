/**
 * The web client end to end: a real Confab with Zulip's development organization, and headless
 * Chromium driving the pages people use. Each scenario leaves a screenshot in
 * test/e2e/screenshots/.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { joinPath, readOutbox } from "../helpers/mail.js";
import { devOrganizationInChromium, eventually } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium();
const { call, scenario, send, streamIdOf } = e2e;

/** Signed in on the combined feed (the home view is the Inbox). */
const open = (email: string) => signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD, "#feed");

/** The unread count the left sidebar shows for a channel (0 without a badge). */
async function channelCount(page: Page, channel: string): Promise<number> {
  const badge = page.locator(".channels li.channel", { has: page.locator(".name", { hasText: new RegExp(`^${channel}$`) }) }).locator(":scope > button .count");
  // allInnerTexts does not wait, so a badge that disappears between two reads cannot stall the poll.
  const [text] = await badge.allInnerTexts();
  return text === undefined ? 0 : Number(text);
}

const waitForCount = (page: Page, channel: string, want: number) =>
  eventually(`unread count of ${channel}`, () => channelCount(page, channel), want);

describe("the web client in Chromium", () => {
  scenario("signing in: a wrong password is refused on the form, the right one opens the main view", async () => {
    const context = await e2e.browser.newContext({ baseURL: e2e.srv.url });
    const page = await context.newPage();
    const first = await page.goto("/");
    assert.equal(new URL(first!.url()).pathname, "/login/");
    await page.fill("#username", "hamlet@zulip.com");
    await page.fill("#password", "wrong");
    await page.click("button[type=submit]");
    assert.match(await page.locator("[role=alert]").innerText(), /Your username or password is incorrect/);
    await screenshot(page, "login-error");
    await page.fill("#password", DEV_PASSWORD);
    await page.click("button[type=submit]");
    await page.waitForSelector(".left-sidebar");
    assert.equal(await page.locator(".top .realm").innerText(), "Zulip Dev");
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "sessionid")!;
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, "Lax");
    await screenshot(page, "main-view");
    await page.click("text=Log out");
    await page.waitForURL(/\/login\/$/);
    await context.close();
  });

  scenario("iago sends from the compose box; hamlet sees it live, reads it, and the count drops in both of his tabs", async () => {
    const iago = await open("iago@zulip.com");
    const hamlet = await open("hamlet@zulip.com");
    const hamletTab2 = await hamlet.context.newPage();
    await hamletTab2.goto("/");
    await hamletTab2.waitForSelector(".left-sidebar");
    // Both of hamlet's tabs look at Denmark, where the new message does not show.
    for (const page of [hamlet.page, hamletTab2]) {
      await page.click(".channels >> text=Denmark");
      await page.waitForSelector(".narrow-title >> text=#Denmark");
    }
    const before = await channelCount(hamlet.page, "Verona");

    await iago.page.keyboard.press("c");
    await iago.page.selectOption("#compose-channel", { label: "Verona" });
    await iago.page.fill("#compose-topic", "live test");
    await iago.page.fill("#compose-content", "Hello from **iago** in the browser");
    await iago.page.click(".compose button[type=submit]");
    await iago.page.waitForSelector(".message .content >> text=Hello from iago in the browser");

    await waitForCount(hamlet.page, "Verona", before + 1);
    await waitForCount(hamletTab2, "Verona", before + 1);
    await screenshot(hamletTab2, "unread-before-reading");

    // Opening Verona shows its messages, the new one among them: all are read, in both tabs.
    await hamlet.page.click(".channels >> text=Verona");
    await hamlet.page.waitForSelector(".message .content >> text=Hello from iago in the browser");
    await waitForCount(hamlet.page, "Verona", 0);
    await waitForCount(hamletTab2, "Verona", 0);
    await hamlet.page.click(".topics >> text=live test");
    await hamlet.page.waitForSelector(".narrow-title >> text=live test");
    await screenshot(hamlet.page, "topic-view");

    // Live while in view: the next message appears without reloading.
    await send("iago@zulip.com", "Verona", "live test", "And a second one");
    await hamlet.page.waitForSelector(".message .content >> text=And a second one");
    await iago.context.close();
    await hamlet.context.close();
  });

  scenario("react, edit and delete reach the other person's screen", async () => {
    const id = await send("iago@zulip.com", "Denmark", "reactions", "React to this, please");
    const iago = await open("iago@zulip.com");
    const hamlet = await open("hamlet@zulip.com");
    const hamletRow = hamlet.page.locator(`[data-id="${id}"]`);
    const iagoRow = iago.page.locator(`[data-id="${id}"]`);
    await hamletRow.waitFor();

    await hamletRow.hover();
    await hamletRow.locator("button[aria-label='Add emoji reaction']").click();
    await hamlet.page.fill("#emoji-search", "octopus");
    await hamlet.page.click(".emoji-picker button[data-emoji=octopus]");
    await iagoRow.locator(".reaction", { hasText: "1" }).waitFor();
    assert.match(await iagoRow.locator(".reaction").getAttribute("aria-label") ?? "", /octopus: 1, by King Hamlet/);
    await screenshot(iago.page, "reaction");

    await iagoRow.hover();
    await iagoRow.locator("button[aria-label='Edit message']").click();
    const editor = iago.page.locator(`#edit-${id}`);
    await editor.waitFor();
    await iago.page.waitForFunction((sel) => (document.querySelector(sel) as HTMLTextAreaElement | null)?.value === "React to this, please", `#edit-${id}`);
    await editor.fill("React to this, please (edited)");
    await iago.page.locator(".edit button[type=submit]").click();
    await hamletRow.locator(".content >> text=React to this, please (edited)").waitFor();
    await hamletRow.locator(".edited").waitFor();

    await iagoRow.hover();
    await iagoRow.locator("button[aria-label='Message actions']").click();
    await iago.page.getByRole("menuitem", { name: "Delete message" }).click();
    await iago.page.getByRole("dialog", { name: "Delete message?" }).getByRole("button", { name: "Delete", exact: true }).click();
    await hamletRow.waitFor({ state: "detached" });
    await iago.context.close();
    await hamlet.context.close();
  });

  scenario("compose: Markdown preview (with KaTeX), upload through the file picker, then send", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    await page.click(".channels >> text=sandbox");
    await page.keyboard.press("c");
    await page.fill("#compose-topic", "preview");
    await page.fill("#compose-content", "**bold words** and $$x^2$$ and :octopus:");
    await page.click("text=Preview");
    await page.locator(".compose .preview strong >> text=bold words").waitFor();
    assert.equal(await page.locator(".compose .preview .katex").count(), 1);
    await screenshot(page, "compose-preview");
    await page.click(".compose button:text('Edit')");

    const file = path.join(os.tmpdir(), `confab-e2e-${process.pid}.txt`);
    fs.writeFileSync(file, "uploaded through the browser\n");
    await page.setInputFiles(".compose input[type=file]", file);
    await page.waitForFunction(() => /\]\(\/user_uploads\/\d+\//.test((document.getElementById("compose-content") as HTMLTextAreaElement).value));
    fs.rmSync(file);
    await page.click(".compose button[type=submit]");
    const link = page.locator(`.message .content a[href^="/user_uploads/"]`).last();
    await link.waitFor();
    const href = await link.getAttribute("href");
    // The session cookie alone fetches the upload.
    const body = await page.evaluate(async (url) => (await fetch(url!)).text(), href);
    assert.equal(body, "uploaded through the browser\n");
    await screenshot(page, "compose-sent");
    await context.close();
  });

  scenario("search with Zulip's operators narrows the feed", async () => {
    await send("othello@zulip.com", "Venice", "gondolas", "Searching for the unique word zanzibar");
    await send("iago@zulip.com", "Venice", "gondolas", "Not this one");
    const { context, page } = await open("hamlet@zulip.com");
    await page.keyboard.press("/");
    await page.keyboard.type("channel:Venice sender:othello@zulip.com zanzibar");
    await page.keyboard.press("Enter");
    await page.locator(".message .content >> text=unique word").waitFor();
    await eventually("messages found", () => page.locator(".message").count(), 1);
    assert.match(await page.locator(".narrow-title h2").innerText(), /#Venice.*Messages from .*Search: zanzibar/);
    await screenshot(page, "search");
    await context.close();
  });

  scenario("an administrator changes a channel's description and who may post in settings; a member sees it change", async () => {
    const verona = await streamIdOf("Verona");
    const hamlet = await open("hamlet@zulip.com");
    await hamlet.page.click(".channels >> text=Verona");
    await hamlet.page.waitForSelector(".narrow-title >> text=#Verona");

    const iago = await open("iago@zulip.com");
    await iago.page.click("button[aria-label=Settings]");
    await iago.page.click("role=tab[name=Channels]");
    await iago.page.selectOption("#ch-select", String(verona));
    await iago.page.fill("#ch-description", "Fair **Verona**, where we lay our scene");
    const admins = ((await call("iago@zulip.com", "GET", "/user_groups")) as { user_groups: { id: number; name: string }[] }).user_groups.find((g) => g.name === "role:administrators")!;
    await iago.page.locator("#ch-can_send_message_group option", { hasText: "role: administrators" }).waitFor({ state: "attached" });
    await iago.page.selectOption("#ch-can_send_message_group", String(admins.id));
    await iago.page.click("text=Save channel");
    await iago.page.locator("[role=status] >> text=Saved.").waitFor();
    await screenshot(iago.page, "settings-channel");

    await hamlet.page.locator(".channel-description strong >> text=Verona").waitFor();
    assert.match(await hamlet.page.locator(".channel-description").innerText(), /Fair Verona, where we lay our scene/);
    const stream = (await call("hamlet@zulip.com", "GET", `/streams/${verona}`)) as { stream: { can_send_message_group: unknown } };
    assert.equal(stream.stream.can_send_message_group, admins.id);
    await iago.context.close();
    await hamlet.context.close();
  });

  scenario("an administrator creates a user group and changes its members in settings", async () => {
    const iago = await open("iago@zulip.com");
    await iago.page.click("button[aria-label=Settings]");
    await iago.page.click("role=tab[name='User groups']");
    await iago.page.fill("#f-name", "e2e group");
    await iago.page.fill("#f-members", "hamlet@zulip.com");
    await iago.page.click("text=Create group");
    const row = iago.page.locator(".list li", { hasText: "e2e group" });
    await row.waitFor();
    await row.locator("input").fill("othello@zulip.com, cordelia@zulip.com");
    await row.locator("button:text('Set members')").click();
    await iago.page.locator("[role=status] >> text=Saved.").waitFor();
    const ids = async (...emails: string[]) => {
      const users = ((await call("iago@zulip.com", "GET", "/users")) as { members: { user_id: number; delivery_email: string | null }[] }).members;
      return emails.map((e) => users.find((u) => u.delivery_email === e)!.user_id).sort((a, b) => a - b);
    };
    const groups = ((await call("iago@zulip.com", "GET", "/user_groups")) as { user_groups: { name: string; members: number[] }[] }).user_groups;
    assert.deepEqual(groups.find((g) => g.name === "e2e group")!.members, await ids("othello@zulip.com", "cordelia@zulip.com"));
    await iago.context.close();
  });

  scenario("invitation: sent from settings, emailed, signed up in the browser, and signed in", async () => {
    const iago = await open("iago@zulip.com");
    await iago.page.click("button[aria-label=Settings]");
    await iago.page.click("role=tab[name=Invitations]");
    await iago.page.fill("#invite-emails", "newcomer@example.com");
    await iago.page.click("text=Send invitations");
    await iago.page.locator("[role=status] >> text=Invitations sent.").waitFor();
    await iago.page.locator(".list >> text=newcomer@example.com").waitFor();
    await iago.context.close();

    const mail = (await readOutbox(e2e.srv)).find((m) => m.to === "newcomer@example.com");
    assert.ok(mail, "the invitation is in the outbox");
    const context = await e2e.browser.newContext({ baseURL: e2e.srv.url });
    const page = await context.newPage();
    await page.goto(joinPath(mail));
    await page.fill("#full_name", "New Comer");
    await page.fill("#password", "a long enough password");
    await page.click("button[type=submit]");
    await page.click("text=Open Zulip Dev");
    await page.waitForSelector(".left-sidebar");
    // A new member lands on the Inbox, where the Welcome Bot's direct message waits.
    await page.locator(".inbox-conversation", { hasText: "Welcome Bot" }).click();
    await page.locator(".message .sender >> text=Welcome Bot").first().waitFor();
    await screenshot(page, "after-signup");
    await context.close();
  });

  scenario("keyboard: c and x open the compose box, Esc closes it, j/k move the selection", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    await page.locator(".message").first().waitFor();
    await page.keyboard.press("x");
    await page.locator("#compose-to").waitFor();
    await page.keyboard.press("Escape");
    await page.locator("#compose-to").waitFor({ state: "detached" });
    await page.keyboard.press("c");
    await page.locator("#compose-topic").waitFor();
    await page.keyboard.press("Escape");
    const last = await page.locator(".message.selected").getAttribute("data-id");
    await page.keyboard.press("k");
    const previous = await page.locator(".message.selected").getAttribute("data-id");
    assert.ok(Number(previous) < Number(last));
    await page.keyboard.press("j");
    assert.equal(await page.locator(".message.selected").getAttribute("data-id"), last);
    await page.setViewportSize({ width: 390, height: 800 });
    await screenshot(page, "phone");
    await context.close();
  });
  scenario("typing: hamlet sees that iago is typing in the topic he has open", async () => {
    const verona = await streamIdOf("Verona");
    await send("iago@zulip.com", "Verona", "typing test", "first");
    const hamlet = await open("hamlet@zulip.com");
    await hamlet.page.goto(`/#narrow/channel/${verona}/topic/typing%20test`);
    await hamlet.page.waitForSelector(".message .content >> text=first");
    const iago = await open("iago@zulip.com");
    await iago.page.goto(`/#narrow/channel/${verona}/topic/typing%20test`);
    await iago.page.waitForSelector(".message .content >> text=first");
    await iago.page.keyboard.press("r");
    await iago.page.locator("#compose-content").pressSequentially("I am writ");
    await hamlet.page.locator(".feed-typing >> text=Iago is typing…").waitFor();
    await screenshot(hamlet.page, "typing");
    await iago.page.locator("#compose-content").blur();
    await hamlet.page.locator(".feed-typing").waitFor({ state: "detached" });
    await iago.context.close();
    await hamlet.context.close();
  });

  scenario("a lost event queue (BAD_EVENT_QUEUE_ID) is registered again and live updates go on", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    await page.locator(".message").first().waitFor();
    const hamletId = ((await call("hamlet@zulip.com", "GET", "/users/me")) as { user_id: number }).user_id;
    const queues = await e2e.srv.app.eventQueues.queueIdsOf(hamletId);
    assert.ok(queues.length >= 1);
    for (const queueId of queues) await e2e.srv.app.eventQueues.remove(hamletId, queueId);
    // The client notices on its next poll and registers a new queue.
    const deadline = Date.now() + 10_000;
    while (!(await e2e.srv.app.eventQueues.queueIdsOf(hamletId)).length && Date.now() < deadline) await page.waitForTimeout(100);
    assert.equal((await e2e.srv.app.eventQueues.queueIdsOf(hamletId)).length, 1);
    await send("iago@zulip.com", "Denmark", "after the restart", "Still live after losing the queue");
    await page.locator(".message .content >> text=Still live after losing the queue").waitFor();
    await context.close();
  });

  scenario("drafts, saved snippets and scheduled messages from the compose box", async () => {
    await call("hamlet@zulip.com", "POST", "/saved_snippets", { title: "Greeting", content: "Good morrow, friends." });
    const { context, page } = await open("hamlet@zulip.com");
    await page.click(".channels >> text=Denmark");
    await page.keyboard.press("c");
    await page.fill("#compose-topic", "drafts");
    await page.click(".compose button:text('Snippets')");
    await page.click(".menu >> text=Greeting");
    assert.equal(await page.inputValue("#compose-content"), "Good morrow, friends.");
    // Closing keeps the text as a draft on the server.
    await page.keyboard.press("Escape");
    await page.locator("#compose-content").waitFor({ state: "detached" });
    await page.keyboard.press("c");
    await page.locator(".compose button:text('Drafts (1)')").click();
    await page.click(".menu >> text=Good morrow, friends.");
    assert.equal(await page.inputValue("#compose-content"), "Good morrow, friends.");
    const drafts = (await call("hamlet@zulip.com", "GET", "/drafts")) as { drafts: { content: string }[] };
    assert.deepEqual(drafts.drafts.map((d) => d.content), ["Good morrow, friends."]);

    await page.click(".compose button:text('Schedule')");
    const later = new Date(Date.now() + 3 * 3600 * 1000);
    const local = new Date(later.getTime() - later.getTimezoneOffset() * 60000).toISOString().slice(0, 16);
    await page.fill("#schedule-at", local);
    await page.click("text=Schedule message");
    await page.locator("#schedule-at").waitFor({ state: "detached" });
    const scheduled = (await call("hamlet@zulip.com", "GET", "/scheduled_messages")) as { scheduled_messages: { content: string; topic: string }[] };
    assert.deepEqual(scheduled.scheduled_messages.map((m) => [m.topic, m.content]), [["drafts", "Good morrow, friends."]]);
    await screenshot(page, "compose-menus");
    await context.close();
  });

  scenario("muting a channel (from another client, then unmuting here) takes its unread messages out of the counts", async () => {
    const { context, page } = await open("hamlet@zulip.com");
    await page.click(".channels >> text=Verona");
    await page.waitForSelector(".narrow-title >> text=#Verona");
    await send("iago@zulip.com", "Denmark", "muting", "one for the counts");
    await waitForCount(page, "Denmark", 1);
    const denmark = await streamIdOf("Denmark");
    await call("hamlet@zulip.com", "POST", "/users/me/subscriptions/properties", {
      subscription_data: JSON.stringify([{ stream_id: denmark, property: "is_muted", value: true }]),
    });
    await waitForCount(page, "Denmark", 0);
    assert.equal(await page.locator(".channels li.channel.muted > button .name").innerText(), "Denmark");
    await page.click(".channels >> text=Denmark");
    await page.click("text=Unmute channel");
    // Quoted: an exact match, which "Unmute channel" is not.
    await page.locator('text="Mute channel"').waitFor();
    await page.locator(".channels li.channel.muted").waitFor({ state: "detached" });
    await context.close();
  });
});
