import { test } from "node:test";
import assert from "node:assert/strict";
import { FLAG_BITS } from "../../src/domain/message_flags.js";
import {
  MAX_UNREAD_MESSAGES,
  addUnreadMessage,
  aggregateUnreads,
  buildUnreads,
  isTopicMuted,
  removeUnreadMessages,
  topicPolicyKey,
  topicPolicyMap,
  type UnreadRow,
} from "../../src/domain/unreads.js";

const ME = 10;
const row = (messageId: number, extra: Partial<UnreadRow>): UnreadRow => ({
  messageId,
  streamId: null,
  topic: "",
  dmKey: null,
  flags: 0,
  ...extra,
});

test("groups channel messages by channel and topic (case-insensitively), sorted", () => {
  const raw = buildUnreads(
    ME,
    [
      row(5, { streamId: 2, topic: "Lunch" }),
      row(4, { streamId: 1, topic: "b" }),
      row(3, { streamId: 2, topic: "lunch" }),
      row(2, { streamId: 1, topic: "a" }),
    ],
    [],
  );
  const u = aggregateUnreads(raw, "general chat");
  assert.deepEqual(u.streams, [
    { stream_id: 1, topic: "a", unread_message_ids: [2] },
    { stream_id: 1, topic: "b", unread_message_ids: [4] },
    { stream_id: 2, topic: "lunch", unread_message_ids: [3, 5] },
  ]);
  assert.equal(u.count, 4);
});

test("direct messages: one other person (or oneself) is a pm, more is a huddle", () => {
  const raw = buildUnreads(
    ME,
    [row(9, { dmKey: "3,10,12" }), row(8, { dmKey: "10" }), row(7, { dmKey: "3,10" }), row(6, { dmKey: "3,10" })],
    [],
  );
  const u = aggregateUnreads(raw, null);
  assert.deepEqual(u.pms, [
    { other_user_id: 3, sender_id: 3, unread_message_ids: [6, 7] },
    { other_user_id: 10, sender_id: 10, unread_message_ids: [8] },
  ]);
  assert.deepEqual(u.huddles, [{ user_ids_string: "3,10,12", unread_message_ids: [9] }]);
  assert.equal(u.count, 4);
});

test("muted channels are listed but not counted; wildcard mentions there are not mentions", () => {
  const raw = buildUnreads(
    ME,
    [
      row(1, { streamId: 7, topic: "t", flags: FLAG_BITS.stream_wildcard_mentioned }),
      row(2, { streamId: 7, topic: "t", flags: FLAG_BITS.mentioned }),
      row(3, { streamId: 8, topic: "t", flags: FLAG_BITS.topic_wildcard_mentioned }),
      row(4, { dmKey: "3,10", flags: FLAG_BITS.stream_wildcard_mentioned }),
    ],
    [7],
  );
  const u = aggregateUnreads(raw, null);
  assert.equal(u.count, 2);
  assert.deepEqual(u.mentions, [2, 3, 4]);
  assert.deepEqual(
    u.streams.map((s) => s.unread_message_ids),
    [[1, 2], [3]],
  );
});

test("empty topics show the display name unless the client handles them", () => {
  const raw = buildUnreads(ME, [row(1, { streamId: 1, topic: "" })], []);
  assert.equal(aggregateUnreads(raw, "general chat").streams[0].topic, "general chat");
  assert.equal(aggregateUnreads(raw, null).streams[0].topic, "");
});

test("old_unreads_missing is set when the limit was reached", () => {
  assert.equal(aggregateUnreads(buildUnreads(ME, [], []), null).old_unreads_missing, false);
  const many = Array.from({ length: MAX_UNREAD_MESSAGES }, (_, i) => row(i + 1, { dmKey: "3,10" }));
  assert.equal(aggregateUnreads(buildUnreads(ME, many, []), null).old_unreads_missing, true);
});

test("message events add unread messages; read ones and read-marking remove them", () => {
  const raw = buildUnreads(ME, [], [5]);
  addUnreadMessage(raw, ME, { id: 20, type: "stream", stream_id: 1, subject: "x" }, ["mentioned"]);
  addUnreadMessage(raw, ME, { id: 21, type: "stream", stream_id: 5, subject: "x" }, ["stream_wildcard_mentioned"]);
  addUnreadMessage(raw, ME, { id: 22, type: "private", display_recipient: [{ id: 3 }, { id: ME }] }, []);
  addUnreadMessage(raw, ME, { id: 23, type: "private", display_recipient: [{ id: 3 }, { id: ME }, { id: 4 }] }, []);
  addUnreadMessage(raw, ME, { id: 24, type: "stream", stream_id: 1, subject: "x" }, ["read"]);
  let u = aggregateUnreads(raw, null);
  assert.deepEqual(u.mentions, [20]);
  assert.equal(u.count, 3);
  assert.deepEqual(u.pms, [{ other_user_id: 3, sender_id: 3, unread_message_ids: [22] }]);
  assert.deepEqual(u.huddles, [{ user_ids_string: "3,4,10", unread_message_ids: [23] }]);
  removeUnreadMessages(raw, [20, 22]);
  u = aggregateUnreads(raw, null);
  assert.deepEqual(u.mentions, []);
  assert.equal(u.count, 1);
});

test("policies are keyed by channel and topic, the topic's case folded", () => {
  const policies = topicPolicyMap([
    { stream_id: 5, topic_name: "Loud", visibility_policy: 2 },
    { stream_id: 6, topic_name: "Loud", visibility_policy: 1 },
    { stream_id: 5, topic_name: "", visibility_policy: 3 },
  ]);
  assert.equal(policies.size, 3);
  assert.equal(policies.get(topicPolicyKey(5, "lOUD")), 2);
  assert.equal(policies.get(topicPolicyKey(6, "loud")), 1);
  assert.equal(policies.get(topicPolicyKey(5, "")), 3);
  assert.equal(policies.get(topicPolicyKey(7, "loud")), undefined);
  assert.equal(isTopicMuted(new Set(), policies, 6, "LOUD"), true);
  assert.equal(isTopicMuted(new Set([5]), policies, 5, "loud"), false);
});

test("a topic's visibility policy overrides its channel's muting, either way", () => {
  const muted = new Set([5]);
  const policies = new Map([
    [topicPolicyKey(5, "Loud"), 2],
    [topicPolicyKey(5, "followed"), 3],
    [topicPolicyKey(1, "Quiet"), 1],
    [topicPolicyKey(1, "inherit"), 0],
  ]);
  assert.equal(isTopicMuted(muted, policies, 5, "other"), true);
  assert.equal(isTopicMuted(muted, policies, 5, "loud"), false);
  assert.equal(isTopicMuted(muted, policies, 5, "FOLLOWED"), false);
  assert.equal(isTopicMuted(muted, policies, 1, "quiet"), true);
  assert.equal(isTopicMuted(muted, policies, 1, "inherit"), false);
  assert.equal(isTopicMuted(muted, policies, 1, "other"), false);

  const raw = buildUnreads(
    ME,
    [row(4, { streamId: 5, topic: "loud" }), row(3, { streamId: 5, topic: "x" }), row(2, { streamId: 1, topic: "quiet" }), row(1, { streamId: 1, topic: "y" })],
    muted,
    policies,
  );
  assert.deepEqual([...raw.unmutedStreamMessages].sort(), [1, 4]);
  assert.equal(aggregateUnreads(raw, null).count, 2);
});
