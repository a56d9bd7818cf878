/**
 * The message actions menu ("⋮" on a message) and the topic menu (in a recipient header) end to
 * end: a real Confab with Zulip's development organization and headless Chromium, often two
 * people at once to see an action reach the other live. Screenshots, at a desktop's and a
 * phone's size, land in test/e2e/screenshots/.
 */
import { describe } from "node:test";
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { DEV_PASSWORD } from "../../src/dev/seed.js";
import { screenshot, signedIn } from "../helpers/browser.js";
import { devOrganizationInChromium, eventually } from "../helpers/e2e.js";

const e2e = devOrganizationInChromium(async () => {
  const principals = JSON.stringify(await Promise.all([IAGO, HAMLET].map(async (email) => (await call<{ user_id: number }>(email, "GET", "/users/me")).user_id)));
  for (const name of [CHANNEL, OTHER_CHANNEL]) await call(IAGO, "POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name }]), principals });
  channelId = await streamIdOf(CHANNEL);
  otherChannelId = await streamIdOf(OTHER_CHANNEL);
});
const { call, scenario, send, streamIdOf } = e2e;

const IAGO = "iago@zulip.com";
const HAMLET = "hamlet@zulip.com";
const CHANNEL = "menu tests";
const OTHER_CHANNEL = "menu tests moved";

/** Zulip's hash encoding of an operand: percent-encoding with `.` for `%`. */
const hashEncode = (s: string) => encodeURIComponent(s).replace(/\./g, "%2E").replace(/%/g, ".");
const channelUrl = (id: number) => `/#narrow/channel/${id}`;
const topicUrl = (id: number, topic: string) => `/#narrow/channel/${id}/topic/${hashEncode(topic)}`;

async function open(email: string, url: string) {
  const s = await signedIn(e2e.browser, e2e.srv.url, email, DEV_PASSWORD);
  await s.page.goto(url);
  return s;
}

const row = (page: Page, id: number) => page.locator(`[data-id="${id}"]`);
const menu = (page: Page) => page.locator(".popover[role=menu]");
const item = (page: Page, name: string) => menu(page).getByRole("menuitem", { name, exact: true });
const dialog = (page: Page, name: string) => page.getByRole("dialog", { name });

async function openMessageMenu(page: Page, id: number) {
  const r = row(page, id);
  await r.hover();
  await r.locator("button[aria-label='Message actions']").click();
  await menu(page).waitFor();
}

async function openTopicMenu(page: Page, topic: string) {
  const header = page.locator(".recipient-header", { has: page.locator("button.link", { hasText: new RegExp(`^${topic}$`) }) }).first();
  await header.locator("button[aria-label='Topic actions']").click();
  await menu(page).waitFor();
}

/** The menu's items, in order. */
const items = async (page: Page) => menu(page).getByRole("menuitem").allInnerTexts();

/** How many of a topic's messages are unread for someone, by the server's count. */
async function unreadInTopic(email: string, streamId: number, topic: string): Promise<number> {
  const narrow = JSON.stringify([
    { operator: "channel", operand: streamId },
    { operator: "topic", operand: topic },
    { operator: "is", operand: "unread" },
  ]);
  return (await call<{ messages: unknown[] }>(email, "GET", "/messages", { anchor: "newest", num_before: 100, num_after: 0, narrow })).messages.length;
}

/** The unread count the left sidebar shows for a channel (0 without a badge). */
async function sidebarCount(page: Page, channel: string): Promise<number> {
  const badge = page.locator(".channels li.channel", { has: page.locator(".name", { hasText: new RegExp(`^${channel}$`) }) }).locator(":scope > button .count");
  const [text] = await badge.allInnerTexts();
  return text === undefined ? 0 : Number(text);
}

async function topicPolicy(email: string, streamId: number, topic: string): Promise<number> {
  const r = await call<{ user_topics: { stream_id: number; topic_name: string; visibility_policy: number }[] }>(email, "POST", "/register", { fetch_event_types: JSON.stringify(["user_topic"]) });
  return r.user_topics.find((t) => t.stream_id === streamId && t.topic_name === topic)?.visibility_policy ?? 0;
}

/** A screenshot at a desktop's size and another at a phone's. */
async function screenshots(page: Page, name: string) {
  for (const [suffix, width, height] of [["desktop", 1440, 900], ["phone", 390, 844]] as const) {
    await page.setViewportSize({ width, height });
    await page.waitForTimeout(150);
    await screenshot(page, `${name}-${suffix}`);
  }
}

let channelId = 0;
let otherChannelId = 0;

describe("message and topic actions in Chromium", () => {
  scenario("the menu offers what the reader may do: edit and delete for one's own message, report for another's", async () => {
    const theirs = await send(IAGO, CHANNEL, "permissions", "Iago's message");
    const mine = await send(HAMLET, CHANNEL, "permissions", "Hamlet's message");
    const { context, page } = await open(HAMLET, topicUrl(channelId, "permissions"));
    await row(page, mine).waitFor();

    await openMessageMenu(page, theirs);
    const onTheirs = await items(page);
    assert.ok(onTheirs.includes("Report message"));
    assert.ok(!onTheirs.includes("Edit message") && !onTheirs.includes("Delete message"), onTheirs.join(", "));
    await screenshots(page, "message-menu");
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    await screenshots(page, "message-menu-dark");
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.keyboard.press("Escape");
    await menu(page).waitFor({ state: "detached" });

    await openMessageMenu(page, mine);
    const onMine = await items(page);
    assert.ok(onMine.includes("Edit message") && onMine.includes("Delete message"), onMine.join(", "));
    assert.ok(!onMine.includes("Report message"));
    await context.close();
  });

  scenario("keyboard: i opens the selected message's menu, arrows move, Escape gives the focus back", async () => {
    const id = await send(IAGO, CHANNEL, "keys", "Keyboard me");
    const { context, page } = await open(HAMLET, topicUrl(channelId, "keys"));
    await row(page, id).click();
    await page.keyboard.press("i");
    await menu(page).waitFor();
    const names = await items(page);
    const focused = () => page.evaluate(() => document.activeElement?.textContent);
    assert.equal(await focused(), names[0]);
    await page.keyboard.press("ArrowDown");
    assert.equal(await focused(), names[1]);
    await page.keyboard.press("ArrowUp");
    await page.keyboard.press("ArrowUp");
    assert.equal(await focused(), names.at(-1), "the focus wraps to the last item");
    await page.keyboard.press("Escape");
    await menu(page).waitFor({ state: "detached" });
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("aria-label")), "Message actions");
    // Enter on the focused button opens the menu again, and the keys star the message.
    await page.keyboard.press("Enter");
    await menu(page).waitFor();
    for (let i = 0; i < names.indexOf("Star message"); i++) await page.keyboard.press("ArrowDown");
    assert.equal(await focused(), "Star message");
    await page.keyboard.press("Enter");
    await row(page, id).locator("button[aria-label='Unstar this message']").waitFor();
    await context.close();
  });

  scenario("quote and reply: the raw Markdown, quoted as Zulip quotes it, in a reply to the conversation", async () => {
    const raw = "Some **bold** words\n```\ncode inside\n```";
    const id = await send(IAGO, CHANNEL, "quotes", raw);
    const { context, page } = await open(HAMLET, topicUrl(channelId, "quotes"));
    await row(page, id).waitFor();
    await openMessageMenu(page, id);
    await item(page, "Quote and reply").click();
    await page.waitForFunction(() => (document.getElementById("compose-content") as HTMLTextAreaElement | null)?.value.includes("quote"));
    const iagoId = (await call<{ user_id: number }>(IAGO, "GET", "/users/me")).user_id;
    const link = `${e2e.srv.url}/#narrow/channel/${channelId}-menu-tests/topic/quotes/near/${id}`;
    assert.equal(await page.inputValue("#compose-content"), `@_**Iago|${iagoId}** [said](${link}):\n\`\`\`\`quote\n${raw}\n\`\`\`\`\n`);
    assert.equal(await page.inputValue("#compose-topic"), "quotes");
    await screenshots(page, "quote-and-reply");
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.click(".compose button[type=submit]");
    await page.locator(".message .content blockquote >> text=Some").waitFor();
    await context.close();
  });

  scenario("copy link: to the clipboard, or shown to copy by hand where the page has no clipboard", async () => {
    const id = await send(IAGO, CHANNEL, "links", "Link to me");
    const { context, page } = await open(HAMLET, topicUrl(channelId, "links"));
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: e2e.srv.url });
    const link = `${e2e.srv.url}/#narrow/channel/${channelId}-menu-tests/topic/links/near/${id}`;
    await openMessageMenu(page, id);
    await item(page, "Copy link to message").click();
    await menu(page).locator("[role=status] >> text=Link copied to the clipboard").waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
    await menu(page).waitFor({ state: "detached" });

    await page.evaluate(() => Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true }));
    await openMessageMenu(page, id);
    await item(page, "Copy link to message").click();
    await dialog(page, "Link to message").waitFor();
    assert.equal(await page.inputValue("#message-link"), link);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "message-link");
    await page.keyboard.press("Escape");
    await dialog(page, "Link to message").waitFor({ state: "detached" });

    // The link opens the message in its topic.
    const other = await context.newPage();
    await other.goto(link);
    await row(other, id).waitFor();
    await context.close();
  });

  scenario("mark as unread from here: the counts go up and stay up while the messages are on screen; the topic menu reads them", async () => {
    const ids: number[] = [];
    for (const n of [1, 2, 3]) ids.push(await send(IAGO, CHANNEL, "unread", `Unread number ${n}`));
    await call(HAMLET, "POST", "/mark_all_as_read");
    const { context, page } = await open(HAMLET, topicUrl(channelId, "unread"));
    await row(page, ids[2]).waitFor();
    await eventually("read on sight", () => unreadInTopic(HAMLET, channelId, "unread"), 0);
    await eventually("sidebar count", () => sidebarCount(page, CHANNEL), 0);

    await openMessageMenu(page, ids[1]);
    await item(page, "Mark as unread from here").click();
    await eventually("unread on the server", () => unreadInTopic(HAMLET, channelId, "unread"), 2);
    await eventually("sidebar count", () => sidebarCount(page, CHANNEL), 2);
    await eventually("unread rows", () => page.locator(".message.unread").count(), 2);
    // Being on screen does not read them again.
    await page.waitForTimeout(1000);
    assert.equal(await unreadInTopic(HAMLET, channelId, "unread"), 2);
    await screenshots(page, "marked-unread");
    await page.setViewportSize({ width: 1440, height: 900 });

    await openTopicMenu(page, "unread");
    await item(page, "Mark topic as read").click();
    await eventually("topic read", () => unreadInTopic(HAMLET, channelId, "unread"), 0);
    await eventually("sidebar count", () => sidebarCount(page, CHANNEL), 0);
    await context.close();
  });

  scenario("view source shows the raw Markdown", async () => {
    const raw = "A *source* with `code` and a [link](https://example.com)";
    const id = await send(IAGO, CHANNEL, "source", raw);
    const { context, page } = await open(HAMLET, topicUrl(channelId, "source"));
    await openMessageMenu(page, id);
    await item(page, "View message source").click();
    const d = dialog(page, "Message source");
    await d.locator("pre.source").waitFor();
    assert.equal(await d.locator("pre.source").innerText(), raw);
    await screenshots(page, "view-source");
    await d.getByRole("button", { name: "Close" }).click();
    await d.waitFor({ state: "detached" });
    // Escape, even after a click on the text, closes the dialog and leaves the view as it was.
    await openMessageMenu(page, id);
    await item(page, "View message source").click();
    await d.locator("pre.source").click();
    await page.keyboard.press("Escape");
    await d.waitFor({ state: "detached" });
    await row(page, id).waitFor();
    await context.close();
  });

  scenario("edit history lists every version: the original, the edit, and the topic move, with who and when", async () => {
    const id = await send(IAGO, CHANNEL, "history", "The first version");
    await call(IAGO, "PATCH", `/messages/${id}`, { content: "The second version" });
    await call(IAGO, "PATCH", `/messages/${id}`, { topic: "history moved", propagate_mode: "change_one", send_notification_to_old_thread: "false", send_notification_to_new_thread: "false" });
    const { context, page } = await open(HAMLET, topicUrl(channelId, "history moved"));
    await openMessageMenu(page, id);
    await item(page, "View edit history").click();
    const versions = dialog(page, "Message edit history").locator(".history > li");
    await eventually("versions", () => versions.count(), 3);
    assert.match(await versions.nth(0).innerText(), /Posted by Iago[\s\S]*The first version/);
    assert.match(await versions.nth(1).innerText(), /Edited by Iago[\s\S]*The second version/);
    assert.match(await versions.nth(2).innerText(), /Moved by Iago[\s\S]*Topic: history → history moved/);
    await screenshots(page, "edit-history");
    await page.emulateMedia({ colorScheme: "dark" });
    await page.waitForFunction(() => document.documentElement.dataset.theme === "dark");
    await screenshot(page, "edit-history-dark-phone");
    await context.close();
  });

  scenario("delete, from the sender's menu, after confirming, disappears for the other person too", async () => {
    const id = await send(IAGO, CHANNEL, "deleting", "Delete me");
    const iago = await open(IAGO, topicUrl(channelId, "deleting"));
    const hamlet = await open(HAMLET, topicUrl(channelId, "deleting"));
    await row(hamlet.page, id).waitFor();
    await openMessageMenu(iago.page, id);
    await item(iago.page, "Delete message").click();
    const d = dialog(iago.page, "Delete message?");
    await d.waitFor();
    await screenshots(iago.page, "delete-confirm");
    await iago.page.setViewportSize({ width: 1440, height: 900 });
    await d.getByRole("button", { name: "Delete", exact: true }).click();
    await row(iago.page, id).waitFor({ state: "detached" });
    await row(hamlet.page, id).waitFor({ state: "detached" });
    await iago.context.close();
    await hamlet.context.close();
  });

  scenario("star and unstar from the menu; a refusal stays in the menu", async () => {
    const id = await send(IAGO, CHANNEL, "stars", "Star me");
    const { context, page } = await open(HAMLET, topicUrl(channelId, "stars"));
    await page.route("**/api/v1/messages/flags", (route) =>
      route.fulfill({ status: 400, contentType: "application/json", body: JSON.stringify({ result: "error", msg: "Starring is broken today", code: "BAD_REQUEST" }) }),
    );
    await openMessageMenu(page, id);
    await item(page, "Star message").click();
    await menu(page).locator("[role=alert] >> text=Starring is broken today").waitFor();
    await screenshots(page, "menu-error");
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.keyboard.press("Escape");
    await page.unroute("**/api/v1/messages/flags");

    await openMessageMenu(page, id);
    await item(page, "Star message").click();
    await row(page, id).locator("button[aria-label='Unstar this message']").waitFor();
    const flags = async () => (await call<{ message: { flags: string[] } }>(HAMLET, "GET", `/messages/${id}`)).message.flags.includes("starred");
    assert.equal(await flags(), true);
    await openMessageMenu(page, id);
    await item(page, "Unstar message").click();
    await row(page, id).locator("button[aria-label='Star this message']").waitFor();
    assert.equal(await flags(), false);
    await context.close();
  });

  scenario("report: a refusal is shown in the dialog; a report reaches the moderators' channel", async () => {
    const id = await send(IAGO, CHANNEL, "reports", "Something rude");
    const { context, page } = await open(HAMLET, topicUrl(channelId, "reports"));
    await openMessageMenu(page, id);
    await item(page, "Report message").click();
    const d = dialog(page, "Report message");
    await d.waitFor();
    // Spaces are not an explanation: the server refuses, and says so in the dialog.
    await page.selectOption("#report-reason", "other");
    await page.fill("#report-description", "   ");
    await d.getByRole("button", { name: "Report", exact: true }).click();
    await d.locator("[role=alert] >> text=An explanation is required.").waitFor();
    await screenshots(page, "report-error");
    await page.setViewportSize({ width: 1440, height: 900 });

    await page.selectOption("#report-reason", "norms");
    await page.fill("#report-description", "Not how we talk here");
    await d.getByRole("button", { name: "Report", exact: true }).click();
    await d.locator("[role=status] >> text=The moderators have been told").waitFor();
    const coreTeam = await streamIdOf("core team");
    const latest = await call<{ messages: { content: string; sender_full_name: string }[] }>(IAGO, "GET", "/messages", {
      anchor: "newest",
      num_before: 1,
      num_after: 0,
      narrow: JSON.stringify([{ operator: "channel", operand: coreTeam }]),
      apply_markdown: "false",
    });
    assert.match(latest.messages[0].content, /Not how we talk here/);
    await context.close();
  });

  scenario("resolving a topic, then unresolving it, shows live in another person's feed", async () => {
    const id = await send(IAGO, CHANNEL, "resolve me", "Is this done?");
    const iago = await open(IAGO, channelUrl(channelId));
    const hamlet = await open(HAMLET, channelUrl(channelId));
    await row(hamlet.page, id).waitFor();
    await openTopicMenu(iago.page, "resolve me");
    await screenshots(iago.page, "topic-menu");
    await iago.page.setViewportSize({ width: 1440, height: 900 });
    await item(iago.page, "Mark as resolved").click();
    const header = (page: Page, topic: string) => page.locator(".recipient-header button.link", { hasText: new RegExp(`^${topic}$`) });
    await header(hamlet.page, "✔ resolve me").waitFor();
    await screenshot(hamlet.page, "topic-resolved-live");

    await openTopicMenu(iago.page, "✔ resolve me");
    await item(iago.page, "Mark as unresolved").click();
    await header(hamlet.page, "resolve me").waitFor();
    assert.equal(await header(hamlet.page, "✔ resolve me").count(), 0);
    await iago.context.close();
    await hamlet.context.close();
  });

  scenario("moving a topic to another channel and name shows live in another person's feed", async () => {
    const id = await send(IAGO, CHANNEL, "moving day", "Pack the boxes");
    // The combined feed opens at the first unread message: with none, at this newest one.
    await call(HAMLET, "POST", "/mark_all_as_read");
    const iago = await open(IAGO, channelUrl(channelId));
    const hamlet = await open(HAMLET, "/#feed");
    await row(hamlet.page, id).waitFor();
    await openTopicMenu(iago.page, "moving day");
    await item(iago.page, "Move topic").click();
    const d = dialog(iago.page, "Move topic “moving day”");
    await d.waitFor();
    await iago.page.selectOption("#move-channel", String(otherChannelId));
    await iago.page.fill("#move-topic", "moved here");
    assert.equal(await iago.page.inputValue("#move-mode"), "change_all");
    await screenshots(iago.page, "move-topic");
    await iago.page.setViewportSize({ width: 1440, height: 900 });
    await d.getByRole("button", { name: "Confirm" }).click();
    await d.waitFor({ state: "detached" });

    const group = hamlet.page.locator(".message-group", { has: row(hamlet.page, id) });
    await group.locator(".recipient-header >> text=moved here").waitFor();
    assert.match(await group.locator(".recipient-header").innerText(), new RegExp(`#${OTHER_CHANNEL}`));
    const moved = await call<{ message: { stream_id: number; subject: string } }>(HAMLET, "GET", `/messages/${id}`);
    assert.deepEqual([moved.message.stream_id, moved.message.subject], [otherChannelId, "moved here"]);
    await screenshot(hamlet.page, "topic-moved-live");
    await iago.context.close();
    await hamlet.context.close();
  });

  scenario("someone reading a topic that is renamed goes with it: the address and the title follow, Back does not return to the old name", async () => {
    const id = await send(IAGO, CHANNEL, "old name", "Rename this topic");
    const hamlet = await open(HAMLET, channelUrl(channelId));
    await hamlet.page.goto(topicUrl(channelId, "old name"));
    await row(hamlet.page, id).waitFor();
    await call(IAGO, "PATCH", `/messages/${id}`, { topic: "new name", propagate_mode: "change_all" });
    await hamlet.page.waitForURL((url) => url.hash.startsWith(`#narrow/channel/${channelId}-`) && url.hash.includes("/topic/new.20name/"));
    await hamlet.page.locator(".narrow-title >> text=new name").waitFor();
    await row(hamlet.page, id).waitFor();
    await hamlet.page.goBack();
    await hamlet.page.waitForURL((url) => url.hash === channelUrl(channelId).slice(1));
    await hamlet.page.locator(".message-group", { has: row(hamlet.page, id) }).locator(".recipient-header >> text=new name").waitFor();
    await hamlet.context.close();
  });

  scenario("messages moved into the topic in view join it in order, without a reload", async () => {
    const early = await send(IAGO, CHANNEL, "merge source", "Written first, elsewhere");
    const target = await send(IAGO, CHANNEL, "merge target", "Already here");
    const hamlet = await open(HAMLET, topicUrl(channelId, "merge source"));
    await row(hamlet.page, early).waitFor();
    await hamlet.page.goto(topicUrl(channelId, "merge target"));
    await row(hamlet.page, target).waitFor();
    await call(IAGO, "PATCH", `/messages/${early}`, { topic: "merge target", propagate_mode: "change_all" });
    await row(hamlet.page, early).waitFor();
    const order = await hamlet.page.locator(".feed .message").evaluateAll((rows) => rows.map((r) => Number(r.getAttribute("data-id"))));
    // After them, the notice of the move that Zulip posts in the topic that received it.
    assert.deepEqual(order.slice(0, 2), [early, target]);
    assert.equal(await row(hamlet.page, early).locator(".edited").innerText(), "(moved)");
    assert.equal(await row(hamlet.page, target).locator(".edited").count(), 0);
    await hamlet.context.close();
  });

  scenario("when the organization keeps moving and resolving to administrators, a member's topic menu stops offering them, live", async () => {
    const id = await send(IAGO, CHANNEL, "restricted", "Who may move me?");
    const { context, page } = await open(HAMLET, topicUrl(channelId, "restricted"));
    await openTopicMenu(page, "restricted");
    assert.ok((await items(page)).includes("Move topic"));
    await page.keyboard.press("Escape");
    const groups = (await call<{ user_groups: { id: number; name: string }[] }>(IAGO, "GET", "/user_groups")).user_groups;
    const admins = groups.find((g) => g.name === "role:administrators")!.id;
    const everyone = groups.find((g) => g.name === "role:everyone")!.id;
    const members = groups.find((g) => g.name === "role:members")!.id;
    const restrict = (topics: number, channels: number, resolve: number) =>
      call(IAGO, "PATCH", "/realm", {
        can_move_messages_between_topics_group: JSON.stringify({ new: topics }),
        can_move_messages_between_channels_group: JSON.stringify({ new: channels }),
        can_resolve_topics_group: JSON.stringify({ new: resolve }),
      });
    await restrict(admins, admins, admins);
    try {
      await eventually("items", async () => {
        await openTopicMenu(page, "restricted");
        const names = await items(page);
        await page.keyboard.press("Escape");
        return names.filter((n) => ["Move topic", "Mark as resolved"].includes(n));
      }, []);
      await openMessageMenu(page, id);
      assert.ok(!(await items(page)).includes("Move messages"));
    } finally {
      await restrict(everyone, members, everyone);
    }
    await context.close();
  });

  scenario("follow, unfollow, mute and unmute a topic", async () => {
    await send(IAGO, CHANNEL, "policies", "Follow me");
    const { context, page } = await open(HAMLET, topicUrl(channelId, "policies"));
    const badge = page.locator(".recipient-header .topic-policy");
    await openTopicMenu(page, "policies");
    await item(page, "Follow topic").click();
    await badge.filter({ hasText: "followed" }).waitFor();
    assert.equal(await topicPolicy(HAMLET, channelId, "policies"), 3);
    await openTopicMenu(page, "policies");
    await item(page, "Unfollow topic").click();
    await badge.waitFor({ state: "detached" });
    assert.equal(await topicPolicy(HAMLET, channelId, "policies"), 0);

    await openTopicMenu(page, "policies");
    await item(page, "Mute topic").click();
    await badge.filter({ hasText: "muted" }).waitFor();
    assert.equal(await topicPolicy(HAMLET, channelId, "policies"), 1);
    await screenshots(page, "topic-muted");
    await page.setViewportSize({ width: 1440, height: 900 });
    await openTopicMenu(page, "policies");
    await item(page, "Unmute topic").click();
    await badge.waitFor({ state: "detached" });
    assert.equal(await topicPolicy(HAMLET, channelId, "policies"), 0);
    await context.close();
  });
});
