import { test } from "node:test";
import assert from "node:assert/strict";
import { VisibilityPolicy, mergeTopicHistory, readEmptyTopicDisplayName, topicKey, visibilityPolicyAfterMerge } from "../../src/domain/topics.js";

const { INHERIT, MUTED, UNMUTED, FOLLOWED } = VisibilityPolicy;

test("visibility policies have Zulip's values", () => {
  assert.deepEqual([INHERIT, MUTED, UNMUTED, FOLLOWED], [0, 1, 2, 3]);
});

test("merging policies keeps the more visible one", () => {
  const order = [FOLLOWED, UNMUTED, INHERIT, MUTED];
  for (const a of order) {
    for (const b of order) {
      const expected = order[Math.min(order.indexOf(a), order.indexOf(b))];
      assert.equal(visibilityPolicyAfterMerge(a, b), expected, `${a} + ${b}`);
    }
  }
});

test("topics compare case-insensitively; only the display name reads as the empty topic", () => {
  assert.equal(topicKey("Ärger IM Büro"), "ärger im büro");
  assert.equal(readEmptyTopicDisplayName("general chat"), "");
  assert.equal(readEmptyTopicDisplayName("General Chat"), "General Chat");
  assert.equal(readEmptyTopicDisplayName("(no topic)"), "(no topic)");
});

test("topic history: newest first, spellings merged under the newest, empty topic shown as asked", () => {
  const rows = [
    { topic: "Lunch", max_id: 10 },
    { topic: "lunch", max_id: 30 },
    { topic: "LUNCH", max_id: 20 },
    { topic: "", max_id: 25 },
    { topic: "dinner", max_id: 5 },
  ];
  assert.deepEqual(mergeTopicHistory(rows, false), [
    { name: "lunch", max_id: 30 },
    { name: "general chat", max_id: 25 },
    { name: "dinner", max_id: 5 },
  ]);
  assert.deepEqual(mergeTopicHistory(rows, true)[1], { name: "", max_id: 25 });
  assert.deepEqual(mergeTopicHistory([], true), []);
});
