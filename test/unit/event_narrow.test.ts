import { test } from "node:test";
import assert from "node:assert/strict";
import { messageMatchesNarrow, unsupportedNarrowOperator, type NarrowTerm } from "../../src/domain/event_narrow.js";

const channelMessage = { type: "stream", display_recipient: "Denmark", subject: "Castle", sender_email: "Hamlet@zulip.com" };
const dm = { type: "private", display_recipient: [{ id: 1 }], subject: "", sender_email: "iago@zulip.com" };

const matches = (narrow: NarrowTerm[], message: object, flags: string[] = []) =>
  messageMatchesNarrow(narrow, message as never, flags);

test("only channel, topic, sender and is are supported", () => {
  assert.equal(unsupportedNarrowOperator([["stream", "x"], ["channel", "x"], ["topic", "t"], ["sender", "s"], ["is", "dm"]]), undefined);
  assert.equal(unsupportedNarrowOperator([["stream", "x"], ["search", "y"]]), "search");
  assert.equal(unsupportedNarrowOperator([["channels", "public"]]), "channels");
});

test("an empty narrow matches everything", () => {
  assert.equal(matches([], channelMessage), true);
  assert.equal(matches([], dm), true);
});

test("channel and its legacy alias compare names case-insensitively", () => {
  assert.equal(matches([["channel", "denmark"]], channelMessage), true);
  assert.equal(matches([["stream", "DENMARK"]], channelMessage), true);
  assert.equal(matches([["channel", "Verona"]], channelMessage), false);
  assert.equal(matches([["channel", "Denmark"]], dm), false);
});

test("topic applies to channel messages only", () => {
  assert.equal(matches([["topic", "castle"]], channelMessage), true);
  assert.equal(matches([["topic", "other"]], channelMessage), false);
  assert.equal(matches([["topic", ""]], dm), false);
});

test("sender compares emails case-insensitively", () => {
  assert.equal(matches([["sender", "hamlet@zulip.com"]], channelMessage), true);
  assert.equal(matches([["sender", "iago@zulip.com"]], channelMessage), false);
});

test("is: operands read the message type and the recipient's flags", () => {
  assert.equal(matches([["is", "dm"]], dm), true);
  assert.equal(matches([["is", "private"]], dm), true);
  assert.equal(matches([["is", "dm"]], channelMessage), false);
  assert.equal(matches([["is", "starred"]], channelMessage, ["starred"]), true);
  assert.equal(matches([["is", "starred"]], channelMessage, []), false);
  assert.equal(matches([["is", "unread"]], channelMessage, []), true);
  assert.equal(matches([["is", "unread"]], channelMessage, ["read"]), false);
  assert.equal(matches([["is", "mentioned"]], channelMessage, ["mentioned"]), true);
  assert.equal(matches([["is", "alerted"]], channelMessage, ["has_alert_word"]), false);
  assert.equal(matches([["is", "resolved"]], { ...channelMessage, subject: "✔ Castle" }), true);
  assert.equal(matches([["is", "resolved"]], channelMessage), false);
  assert.equal(matches([["is", "followed"]], channelMessage), true);
});

test("every term must hold", () => {
  assert.equal(matches([["channel", "Denmark"], ["topic", "Castle"]], channelMessage), true);
  assert.equal(matches([["channel", "Denmark"], ["topic", "Other"]], channelMessage), false);
});
