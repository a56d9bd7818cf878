import { test } from "node:test";
import assert from "node:assert/strict";
import { noteDirectMessage, participantsKey, recentConversationList, type RecentConversationsByKey } from "../../src/domain/recent_conversations.js";

test("participants are keyed like messages.dm_key: sorted, deduplicated, comma-joined", () => {
  assert.equal(participantsKey([12, 3, 12, 7]), "3,7,12");
  assert.equal(participantsKey([5]), "5");
});

test("a conversation keeps its newest message id, and noting a message twice changes nothing", () => {
  const byKey: RecentConversationsByKey = new Map();
  noteDirectMessage(byKey, "1,2", 10);
  noteDirectMessage(byKey, "1,2", 7);
  noteDirectMessage(byKey, "1,2", 10);
  assert.deepEqual([...byKey], [["1,2", 10]]);
});

test("the list names the other participants, none for notes to self, newest conversation first", () => {
  const byKey: RecentConversationsByKey = new Map([
    ["1,2", 10],
    ["1", 30],
    ["1,2,3", 20],
  ]);
  assert.deepEqual(recentConversationList(byKey, 1), [
    { max_message_id: 30, user_ids: [] },
    { max_message_id: 20, user_ids: [2, 3] },
    { max_message_id: 10, user_ids: [2] },
  ]);
});
