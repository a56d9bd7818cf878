/**
 * Slack → Zulip conversion rules, against the cases Zulip's own importer tests use
 * (../shared/conformance/import/slack, read at test time; skipped when absent) and inline data.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import {
  SlackBotEmails,
  renderBlocksAndAttachments,
  ThreadTopicNames,
  convertSlackReactions,
  convertSlackText,
  slackEmojiCode,
  slackUserEmail,
  slackUserFullName,
  slackUserRole,
  slackUserTimezone,
  type SlackUser,
} from "../../src/importers/slack/convert.js";
import { SlackWorkspace, type SlackFile } from "../../src/importers/slack/workspace.js";

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../shared/conformance/import/slack");
const skip = fs.existsSync(FIXTURES) ? false : `Slack fixtures not found at ${FIXTURES}`;
const fixture = (name: string) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), "utf8"));

const noContext = { users: new Map<string, SlackUser>(), channels: new Map<string, string>(), userIds: new Map<string, number>() };

test("mrkdwn conversion: Zulip's slack_message_conversion cases", { skip }, () => {
  const cases = fixture("slack_message_conversion.json").regular_tests as { name: string; input: string; conversion_output: string }[];
  assert.equal(cases.length, 17);
  for (const c of cases) assert.equal(convertSlackText(c.input, noContext).content, c.conversion_output, c.name);
});

test("mentions: users by full name with their ids, channels by name, workspace mentions as @**all**", () => {
  const john: SlackUser = { id: "U08RGD1RD", name: "john", real_name: "John Doe", deleted: false, profile: {} };
  const gone: SlackUser = { id: "U0DELETED", name: "olduser", real_name: "Old User", deleted: true, profile: {} };
  const ctx = {
    users: new Map([
      [john.id, john],
      [gone.id, gone],
    ]),
    channels: new Map([["general", "C5Z73A7RA"]]),
    userIds: new Map([
      ["U08RGD1RD", 540],
      ["U0DELETED", 541],
    ]),
  };
  const r = convertSlackText("Hi <@U08RGD1RD|john>: How are you? <#C5Z73A7RA|general>", ctx);
  assert.equal(r.content, "Hi @**John Doe**: How are you? #**general**");
  assert.deepEqual(r.mentionedUserIds, [540]);
  assert.equal(convertSlackText("<@U0DELETED> left", ctx).content, "@**olduser** left");
  // A label that is not the user's handle leaves the text as it is.
  const mismatch = convertSlackText("Hi <@U08RGD1RD|jane>", ctx);
  assert.equal(mismatch.content, "Hi <@U08RGD1RD|jane>");
  assert.deepEqual(mismatch.mentionedUserIds, []);
  assert.equal(convertSlackText("<!everyone> <!channel> <!here>", ctx).content, "@**all** @**all** @**all**");
});

test("links: bare, labelled and mailto links set has_link; other brackets stay", () => {
  const link = convertSlackText("<http://journals.plos.org/plosone/article>", noContext);
  assert.deepEqual([link.content, link.hasLink], ["http://journals.plos.org/plosone/article", true]);
  assert.equal(convertSlackText("<https://foo.com|foo>", noContext).content, "[foo](https://foo.com)");
  const mail = convertSlackText("<mailto:foo@foo.com>", noContext);
  assert.deepEqual([mail.content, mail.hasLink], ["mailto:foo@foo.com", true]);
  const none = convertSlackText("no link <ipfs://Qm> here", noContext);
  assert.deepEqual([none.content, none.hasLink], ["no link <ipfs://Qm> here", false]);
  // Bounded work on hostile input: a long run without a closing bracket.
  const long = "<" + "a.".repeat(20_000);
  assert.equal(convertSlackText(long, noContext).content, long);
});

test("users: roles, names, time zones and addresses as Zulip's Slack importer gives them", () => {
  const base = { id: "U1", name: "handle", profile: {} } as SlackUser;
  assert.equal(slackUserRole({ ...base, is_primary_owner: true }), 100);
  assert.equal(slackUserRole({ ...base, is_owner: true }), 100);
  assert.equal(slackUserRole({ ...base, is_admin: true }), 200);
  assert.equal(slackUserRole({ ...base, is_restricted: true }), 600);
  assert.equal(slackUserRole({ ...base, is_ultra_restricted: true, is_admin: true }), 600);
  assert.equal(slackUserRole(base), 400);
  assert.equal(slackUserTimezone(base), "America/New_York");
  assert.equal(slackUserTimezone({ ...base, tz: null }), "America/New_York");
  assert.equal(slackUserTimezone({ ...base, tz: "Europe/Amsterdam" }), "Europe/Amsterdam");
  assert.equal(slackUserFullName({ ...base, deleted: false, real_name: "Real" }), "Real");
  assert.equal(slackUserFullName({ ...base, deleted: true, real_name: "Real" }), "handle");
  assert.equal(slackUserFullName({ ...base, is_mirror_dummy: true, profile: { real_name: "Matt Perry" } }), "Matt Perry");

  const bots = new SlackBotEmails();
  const bot = (id: string, name: string) => ({ ...base, profile: { bot_id: id, real_name_normalized: name } });
  assert.equal(slackUserEmail(bot("B1", "Real Bot"), "example.com", bots), "real-bot@example.com");
  assert.equal(slackUserEmail(bot("B2", "Real Bot"), "example.com", bots), "real-bot-2@example.com");
  assert.equal(slackUserEmail(bot("B1", "Real Bot"), "example.com", bots), "real-bot@example.com");
  assert.equal(slackUserEmail(bot("B3", "Real Bot"), "example.com", bots), "real-bot-3@example.com");
  assert.equal(slackUserEmail({ ...base, profile: { bot_id: "B4", first_name: "Other Name" } }, "example.com", bots), "othername-bot@example.com");
  assert.equal(
    slackUserEmail({ ...base, name: "matt.perry", is_mirror_dummy: true, team_domain: "foreignteam" }, "example.com", bots),
    "matt.perry@foreignteam.slack.com",
  );
  assert.equal(slackUserEmail({ ...base, name: "slackbot", deleted: false, real_name: "slackbot" }, "example.com", bots), "imported-slackbot-bot@example.com");
});

test("workspace: malformed addresses are refused all at once, by Zulip's message", () => {
  const ws = new SlackWorkspace("example.com", 1_700_000_000);
  const users: SlackUser[] = [
    { id: "U1", name: "jon", deleted: false, profile: { email: "jon@gmail,com" } },
    { id: "U2", name: "jane", deleted: false, profile: { email: "jane@gmail.m" } },
  ];
  assert.throws(() => ws.addUsers(users), { message: "Invalid email format, please fix the following email(s) and try again: jon@gmail,com, jane@gmail.m" });
});

test("emoji: Slack's names map to code points through iamcal's data", () => {
  assert.equal(slackEmojiCode("thinking_face"), "1f914");
  assert.equal(slackEmojiCode("tophat"), "1f3a9");
  assert.equal(slackEmojiCode("dog2"), "1f415");
  assert.equal(slackEmojiCode("dog"), "1f436");
  assert.equal(slackEmojiCode("toString"), undefined);
});

test("reactions: one per user, skin tones merged, Zulip's emoji names, unknown emoji and users skipped", () => {
  const ids = new Map([
    ["U1", 1],
    ["U2", 2],
  ]);
  const out = convertSlackReactions(
    [
      { name: "grinning", users: ["U1", "U2"] },
      { name: "clap::skin-tone-2", users: ["U1"] },
      { name: "clap::skin-tone-3", users: ["U1", "U2", "UGONE"] },
      { name: "no_such_emoji", users: ["U1"] },
      { name: "partyparrot", users: ["U2"] },
    ],
    ids,
    new Map([["partyparrot", 7]]),
  );
  assert.deepEqual(
    out.map((r) => [r.userId, r.emojiName, r.emojiCode, r.reactionType]),
    [
      [1, "grinning", "1f600", "unicode_emoji"],
      [2, "grinning", "1f600", "unicode_emoji"],
      [1, "clap", "1f44f", "unicode_emoji"],
      [2, "clap", "1f44f", "unicode_emoji"],
      [2, "partyparrot", "7", "realm_emoji"],
    ],
  );
});

test("thread topic names: date and text, cut to 60 characters, numbered on collision", () => {
  const names = new ThreadTopicNames();
  const day = Date.UTC(2015, 7, 18, 3) / 1000;
  const first = names.next("random message but it is too long for the thread topic name", day);
  assert.equal([...first].length, 60);
  assert.ok(first.endsWith("…"));
  assert.equal(names.next("random message but it is too long for the thread two electric boogaloo", day), "2015-08-18 random message but it is too long for the th… (2)");
  assert.equal(names.next("short", day), "2015-08-18 short");
  assert.equal(names.next("short", day), "2015-08-18 short (2)");
  assert.equal(names.next("short", day + 86400), "2015-08-19 short");
});

/** Zulip's newer thread tests: a fixture's messages converted in order into channel "random". */
async function convertFixture(...files: string[]): Promise<{ topic: string; content: string }[]> {
  const ws = new SlackWorkspace("example.com", 1_700_000_000);
  const users = fixture("exported_messages_fixtures/users.json") as SlackUser[];
  ws.addUsers(users.map((u) => ({ ...u, profile: { email: `${u.id.toLowerCase()}@example.com`, ...(u.profile ?? {}) } })));
  ws.addChannels([{ id: "C1", name: "random", members: users.map((u) => u.id) }], false);
  const stored: SlackFile[] = [];
  const out: { topic: string; content: string }[] = [];
  for (const file of files) {
    for (const m of fixture(`exported_messages_fixtures/${file}`)) {
      const converted = await ws.convertMessage(m, { channel: "random" }, async (f) => (stored.push(f), true));
      if (converted) out.push({ topic: converted.message.subject as string, content: converted.message.content as string });
    }
  }
  return out;
}

test("threads: the reply joins its thread's topic; unthreaded messages go to 'imported from Slack'", { skip }, async () => {
  const out = await convertFixture("normal_messages.json", "normal_thread.json");
  assert.deepEqual(out, [
    { topic: "imported from Slack", content: "@**Jane**: hey!" },
    { topic: "2015-06-12 message body text", content: "message body text" },
    { topic: "2015-06-12 message body text", content: "random" },
  ]);
});

test("threads: long names are cut and colliding ones numbered", { skip }, async () => {
  const long = await convertFixture("thread_with_long_topic_name.json");
  assert.equal(long[0].topic, long[1].topic);
  assert.equal([...long[0].topic].length, 60);
  assert.equal(long[2].topic, "2015-08-18 random message but it is too long for the th… (2)");
  assert.equal(long[3].topic, long[2].topic);

  const colliding = await convertFixture("threads_with_colliding_topic_names.json");
  assert.deepEqual(
    colliding.map((m) => m.topic),
    ["2015-06-12 message body text", "2015-06-12 message body text", "2015-06-12 message body text (2)", "2015-06-12 message body text (2)", "1974-07-27 message body text", "1974-07-27 message body text"],
  );
});

test("threads: topics keep converted mentions, file links and formatting", { skip }, async () => {
  assert.equal((await convertFixture("thread_with_mention_syntax_in_topic_name.json"))[0].topic, "2015-07-17 @**Jon** please reply to this message");
  const file = await convertFixture("thread_with_file_link_formatting_in_topic_name.json");
  assert.ok(file[0].topic.startsWith("2018-09-16 Look!\n[Apple](/user_uploads/"), file[0].topic);
  assert.match(file[0].content, /^Look!\n\[Apple\]\(\/user_uploads\/1\/[0-9a-f]+\/[\w-]+\/apple\.png\)$/);
  assert.equal(file[1].topic, file[0].topic);
  const formatted = await convertFixture("thread_with_text_formattings_in_topic_name.json");
  assert.equal(formatted[0].topic, "2019-01-10 **foo** *bar* ~~baz~~ [qux](https://chat.zulip.o…");
});

test("integration bots: blocks and attachments become Markdown; buttons and rich text are dropped", () => {
  const markdown = renderBlocksAndAttachments({
    blocks: [
      { type: "header", text: { type: "plain_text", text: "Deploy" } },
      { type: "section", text: { type: "mrkdwn", text: "*done*" }, fields: [{ type: "mrkdwn", text: "a|b" }, { type: "mrkdwn", text: "c\nd" }, { type: "mrkdwn", text: "e" }] },
      { type: "divider" },
      { type: "context", elements: [{ type: "image", image_url: "https://x.org/i.png", alt_text: "icon" }, { type: "mrkdwn", text: "by bot" }] },
      { type: "actions", elements: [{ type: "button" }] },
      { type: "rich_text", elements: [] },
    ],
    attachments: [{ title: "Build 7", title_link: "https://ci.example/7", text: "passed", fields: [{ title: "Branch", value: "main" }, { title: "Only title" }], footer: "CI", ts: 1700000000 }],
  });
  assert.equal(
    markdown,
    [
      "## Deploy",
      "*done*\n\n| | |\n|-|-|\n| a b | c d |\n| e |  |",
      "----",
      "[icon](https://x.org/i.png)\n\nby bot",
      "## [Build 7](https://ci.example/7)\n\npassed\n\n*Branch*: main\n*Only title*\n\nCI\n\n<time:2023-11-14T22:13:20+00:00>",
    ].join("\n"),
  );
});

test("workspace: an integration's message is posted by a bot user made from its profile", async () => {
  const ws = new SlackWorkspace("example.com", 1_700_000_000);
  ws.addUsers([{ id: "U1", name: "ann", deleted: false, profile: { email: "ann@example.com" } }]);
  ws.addChannels([{ id: "C1", name: "general", members: ["U1"] }], false);
  const converted = await ws.convertMessage(
    { type: "message", subtype: "bot_message", bot_id: "B77", text: "", ts: "1700000000.000100", bot_profile: { name: "ClickUp" }, attachments: [{ text: "Task done" }] },
    { channel: "general" },
    async () => true,
  );
  assert.equal(converted!.message.content, "Task done");
  const bot = (ws.realm.zerver_userprofile as Record<string, unknown>[]).find((u) => u.id === converted!.message.sender)!;
  assert.deepEqual([bot.full_name, bot.email, bot.is_bot, bot.bot_type, bot.is_mirror_dummy], ["ClickUp", "clickup-bot@example.com", true, 1, false]);
});
