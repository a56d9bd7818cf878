import { test } from "node:test";
import assert from "node:assert/strict";
import { checkTopicAllowed, displayTopic, effectiveTopicsPolicy, normalizeTopic, truncateTopic } from "../../src/domain/topics.js";
import { FLAG_BITS, flagMask, flagsForApi, hasFlag } from "../../src/domain/message_flags.js";
import { checkChannelName, historyPublicToSubscribersFor, permissionPolicy, streamPostPolicy } from "../../src/domain/channels.js";
import { decodeNarrow } from "../../src/domain/narrow.js";
import { ZulipError } from "../../src/http/errors.js";

const msgOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as ZulipError).msg;
  }
  return null;
};

test("topics are stripped, aliases of the empty topic read as empty, long ones truncated", () => {
  assert.equal(normalizeTopic("  hello "), "hello");
  assert.equal(normalizeTopic("(no topic)"), "");
  assert.equal(normalizeTopic("general chat"), "");
  assert.equal(normalizeTopic(""), "");
  assert.equal(normalizeTopic("x".repeat(60)), "x".repeat(60));
  assert.equal(truncateTopic("x".repeat(61)), "x".repeat(57) + "...");
  assert.equal([...truncateTopic("é".repeat(70))].length, 60);
  assert.equal(msgOf(() => normalizeTopic("a\u0000b")), "Invalid character in topic, at position 2!");
  assert.equal(msgOf(() => normalizeTopic("ok\uFFFE")), "Invalid character in topic, at position 3!");
});

test("topics policy: the channel's unless it inherits the organization's", () => {
  assert.equal(effectiveTopicsPolicy("allow_empty_topic", "inherit"), "allow_empty_topic");
  assert.equal(effectiveTopicsPolicy("disable_empty_topic", "inherit"), "disable_empty_topic");
  assert.equal(effectiveTopicsPolicy("disable_empty_topic", "empty_topic_only"), "empty_topic_only");
  assert.equal(msgOf(() => checkTopicAllowed("disable_empty_topic", "")), "Sending messages to the general chat topic is not allowed in this channel.");
  assert.equal(msgOf(() => checkTopicAllowed("disable_empty_topic", "t")), null);
  assert.equal(msgOf(() => checkTopicAllowed("empty_topic_only", "t")), "Only the general chat topic is allowed in this channel.");
  assert.equal(msgOf(() => checkTopicAllowed("empty_topic_only", "")), null);
  assert.equal(msgOf(() => checkTopicAllowed("allow_empty_topic", "")), null);
  assert.equal(displayTopic("", false), "general chat");
  assert.equal(displayTopic("", true), "");
  assert.equal(displayTopic("t", false), "t");
});

test("message flags: bitmask round trip and the API list", () => {
  assert.deepEqual(flagsForApi(0), []);
  assert.deepEqual(flagsForApi(flagMask(["read", "starred"])), ["read", "starred"]);
  assert.deepEqual(flagsForApi(flagMask(["stream_wildcard_mentioned"])), ["stream_wildcard_mentioned", "wildcard_mentioned"]);
  assert.deepEqual(flagsForApi(flagMask(["topic_wildcard_mentioned", "stream_wildcard_mentioned"])), [
    "stream_wildcard_mentioned",
    "topic_wildcard_mentioned",
    "wildcard_mentioned",
  ]);
  assert.deepEqual(flagsForApi(flagMask(["is_private", "group_mentioned", "active_mobile_push_notification", "historical"])), ["historical"]);
  assert.equal(hasFlag(FLAG_BITS.mentioned | FLAG_BITS.read, "read"), true);
  assert.equal(hasFlag(FLAG_BITS.mentioned, "read"), false);
});

test("channel names and privacy", () => {
  assert.equal(msgOf(() => checkChannelName("")), "Channel name can't be empty.");
  assert.equal(msgOf(() => checkChannelName("   ")), "Channel name can't be empty.");
  assert.equal(msgOf(() => checkChannelName("x".repeat(61))), "Channel name too long (limit: 60 characters).");
  assert.equal(msgOf(() => checkChannelName("ab\u0007")), "Invalid character in channel name, at position 3.");
  assert.equal(msgOf(() => checkChannelName("ok name ✓")), null);
  assert.equal(historyPublicToSubscribersFor(false, false), true);
  assert.equal(historyPublicToSubscribersFor(true, undefined), false);
  assert.equal(historyPublicToSubscribersFor(true, true), true);
  assert.equal(permissionPolicy({ inviteOnly: false, isWebPublic: true, historyPublicToSubscribers: true }), "web_public");
  assert.equal(permissionPolicy({ inviteOnly: true, isWebPublic: false, historyPublicToSubscribers: false }), "private_protected_history");
  assert.equal(streamPostPolicy("role:administrators"), 2);
  assert.equal(streamPostPolicy("role:fullmembers"), 3);
  assert.equal(streamPostPolicy("role:moderators"), 4);
  assert.equal(streamPostPolicy(null), 1);
});

test("narrow terms: both forms, aliases and operand validation", () => {
  assert.deepEqual(decodeNarrow([["stream", "Denmark"], { operator: "topic", operand: "(no topic)", negated: true }]), [
    { operator: "channel", operand: "Denmark", negated: false },
    { operator: "topic", operand: "", negated: true },
  ]);
  assert.deepEqual(decodeNarrow([{ operator: "pm-with", operand: [3, 4] }]), [{ operator: "dm", operand: [3, 4], negated: false }]);
  assert.equal(msgOf(() => decodeNarrow({})), "narrow is not a list");
  assert.equal(msgOf(() => decodeNarrow([["a"]])), "Invalid narrow[0]: element is not a string pair");
  assert.equal(msgOf(() => decodeNarrow([5])), "Invalid narrow[0]: dict or list required");
  assert.equal(msgOf(() => decodeNarrow([{ operator: "x" }])), "Invalid narrow[0]: operand is missing");
  assert.equal(msgOf(() => decodeNarrow([{ operand: "x" }])), "Invalid narrow[0]: operator is missing");
  assert.equal(msgOf(() => decodeNarrow([{ operator: "topic", operand: 5 }])), "operand is not a string");
  assert.equal(msgOf(() => decodeNarrow([{ operator: "sender", operand: [1] }])), "operand is not a string or an integer");
  assert.equal(msgOf(() => decodeNarrow([{ operator: "dm", operand: ["a"] }])), "operand is not a string or integer list");
  assert.equal(msgOf(() => decodeNarrow([{ operator: "search", operand: " " }])), "operand cannot be blank");
  assert.equal(msgOf(() => decodeNarrow([{ operator: "is", operand: "dm", negated: "yes" }])), "negated is not a boolean");
});
