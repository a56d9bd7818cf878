import { test } from "node:test";
import assert from "node:assert/strict";
import { checkNewViewName, checkViewRename } from "../../src/domain/navigation_views.js";
import { joinNames, reportTopic, unusedFence } from "../../src/domain/message_report.js";
import { normalizeReminderNote, reminderContent } from "../../src/domain/reminders.js";
import { messageHistory } from "../../src/domain/message_history.js";
import { messageUrl } from "../../src/domain/message_links.js";
import { LIMITS } from "../../src/domain/limits.js";

const refuses = (fn: () => void, msg: string) => assert.throws(fn, (e: { msg?: string }) => e.msg === msg);

test("navigation views: built-in views take no name, custom ones need one", () => {
  refuses(() => checkNewViewName("inbox", "Box"), "Built-in views cannot have a custom name.");
  refuses(() => checkNewViewName("narrow/is/dm", undefined), "Custom views must have a valid name.");
  checkNewViewName("inbox", undefined);
  checkNewViewName("narrow/is/dm", "DMs");
  refuses(() => checkViewRename("narrow/is/starred", "Stars"), "Built-in views cannot have a custom name.");
  checkViewRename("narrow/is/starred", undefined);
});

test("reports: names are listed as Zulip lists them, fences outgrow the content's, topics follow the channel", () => {
  assert.equal(joinNames(["a"]), "a");
  assert.equal(joinNames(["a", "b"]), "a and b");
  assert.equal(joinNames(["a", "b", "c"]), "a, b, and c");
  assert.equal(unusedFence("plain"), "```");
  assert.equal(unusedFence("x\n   ````\ny"), "`````");
  assert.equal(unusedFence("    ``````"), "```", "an indented code line is not a fence");
  assert.equal(reportTopic({ id: 1, fullName: "Iago" }, "allow_empty_topic"), "Iago moderation");
  assert.equal(reportTopic({ id: 1, fullName: "Iago" }, "empty_topic_only"), "");
});

test("reminders: notes are stripped and capped; widgets are named, not quoted; long messages are cut to fit", () => {
  assert.equal(normalizeReminderNote("\n\n  note  \n"), "  note");
  refuses(() => normalizeReminderNote("é".repeat(1001)), "Maximum reminder note length: 1000 characters");
  normalizeReminderNote("é".repeat(1000));
  const sender = { id: 5, fullName: "Zoe" };
  const channel = { id: 7, name: "Den mark", topic: "a.b" };
  const poll = reminderContent("https://x", { id: 9, content: "/poll Lunch?", sender, channel }, "");
  assert.equal(
    poll,
    "You requested a reminder for the following message.\n\n@_**Zoe|5** [sent](https://x/#narrow/channel/7-Den-mark/topic/a.2Eb/near/9) a poll in #**Den mark>a.b@9**.",
  );
  const todo = reminderContent("https://x", { id: 9, content: "/todo", sender, participants: [sender] }, "");
  assert.ok(todo.endsWith("a todo list to @_**Zoe|5**."), todo);
  const long = reminderContent("https://x", { id: 9, content: "w".repeat(LIMITS.maxMessageLength), sender, channel }, "n");
  assert.equal([...long].length, LIMITS.maxMessageLength);
  assert.ok(long.endsWith("w\n[message truncated]\n```"));
});

test("message links: direct-message slugs list sorted ids, marked -group from three people", () => {
  assert.equal(messageUrl("u", { id: 1, participantIds: [9, 3] }), "u/#narrow/dm/3,9/near/1");
  assert.equal(messageUrl("u", { id: 1, participantIds: [4] }), "u/#narrow/dm/4/near/1");
  assert.equal(messageUrl("u", { id: 1, participantIds: [9, 3, 5] }), "u/#narrow/dm/3,5,9-group/near/1");
});

test("history: moves_only keeps moves, strips content from edits that also moved, drops pure content edits", () => {
  const message = { content: "c3", renderedContent: "<p>c3</p>", topic: "t2", isChannelMessage: true, senderId: 1, dateSent: 100 };
  const stored = [
    { user_id: 2, timestamp: 130, prev_stream: 4, stream: 5 },
    { user_id: 2, timestamp: 120, prev_content: "c2", prev_rendered_content: "<p>c2</p>", prev_topic: "t1", topic: "t2" },
    { user_id: 1, timestamp: 110, prev_content: "c1", prev_rendered_content: "<p>c1</p>" },
  ];
  const all = messageHistory(message, structuredClone(stored), false, "all");
  assert.deepEqual(all.map((e) => [e.timestamp, e.content, e.topic]), [[100, "c1", "t1"], [110, "c2", "t1"], [120, "c3", "t2"], [130, "c3", "t2"]]);
  const moves = messageHistory(message, structuredClone(stored), false, "moves_only");
  assert.deepEqual(moves.map((e) => e.timestamp), [100, 120, 130]);
  assert.deepEqual(Object.keys(moves[1]).sort(), ["content", "prev_topic", "rendered_content", "timestamp", "topic", "user_id"]);
});
