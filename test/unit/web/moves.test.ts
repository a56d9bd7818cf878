import { test } from "node:test";
import assert from "node:assert/strict";
import { narrowAfterMove } from "../../../web/src/state/moves.js";
import type { Narrow } from "../../../web/src/state/narrow.js";

const topicNarrow = (stream: number, topic: string): Narrow => [
  { operator: "channel", operand: stream },
  { operator: "topic", operand: topic },
];

test("a renamed or resolved topic takes the view with it when the whole topic moves", () => {
  const narrow = topicNarrow(1, "lunch");
  assert.deepEqual(narrowAfterMove(narrow, { stream_id: 1, orig_subject: "lunch", subject: "✔ lunch", propagate_mode: "change_all", message_ids: [5] }, 9), topicNarrow(1, "✔ lunch"));
  assert.deepEqual(narrowAfterMove(narrow, { stream_id: 1, orig_subject: "Lunch", new_stream_id: 4, propagate_mode: "change_all", message_ids: [5] }, 9), topicNarrow(4, "lunch"));
  assert.deepEqual(narrowAfterMove(narrow, { stream_id: 1, orig_subject: "lunch", new_stream_id: 4, subject: "food", propagate_mode: "change_all" }, 9), topicNarrow(4, "food"));
});

test("moving the rest of a topic follows only when the message in view went; moving one message never does", () => {
  const narrow = topicNarrow(1, "lunch");
  const later = { stream_id: 1, orig_subject: "lunch", subject: "dinner", propagate_mode: "change_later" as const, message_ids: [7, 8] };
  assert.deepEqual(narrowAfterMove(narrow, later, 8), topicNarrow(1, "dinner"));
  assert.equal(narrowAfterMove(narrow, later, 3), undefined);
  assert.equal(narrowAfterMove(narrow, { ...later, propagate_mode: "change_one" }, 8), undefined);
});

test("other narrows, other topics, and content edits stay where they are", () => {
  const move = { stream_id: 1, orig_subject: "lunch", subject: "dinner", propagate_mode: "change_all" as const };
  assert.equal(narrowAfterMove(topicNarrow(1, "breakfast"), move, 1), undefined);
  assert.equal(narrowAfterMove(topicNarrow(2, "lunch"), move, 1), undefined);
  assert.equal(narrowAfterMove([{ operator: "channel", operand: 1 }], move, 1), undefined);
  assert.equal(narrowAfterMove([{ operator: "channel", operand: 1 }, { operator: "topic", operand: "lunch", negated: true }], move, 1), undefined);
  assert.equal(narrowAfterMove(topicNarrow(1, "lunch"), { stream_id: 1 }, 1), undefined);
});

test("terms besides the channel and topic are kept", () => {
  const narrow: Narrow = [...topicNarrow(1, "lunch"), { operator: "is", operand: "starred" }];
  assert.deepEqual(narrowAfterMove(narrow, { stream_id: 1, orig_subject: "lunch", subject: "dinner", propagate_mode: "change_all" }, 0), [...topicNarrow(1, "dinner"), { operator: "is", operand: "starred" }]);
});
