import { test } from "node:test";
import assert from "node:assert/strict";
import { directTypingParticipants, typingSettingOn } from "../../src/domain/typing.js";

test("typing settings are on unless explicitly false", () => {
  assert.equal(typingSettingOn({}, "receives_typing_notifications"), true);
  assert.equal(typingSettingOn({ receives_typing_notifications: true }, "receives_typing_notifications"), true);
  assert.equal(typingSettingOn({ receives_typing_notifications: false }, "receives_typing_notifications"), false);
  assert.equal(typingSettingOn({ send_stream_typing_notifications: false }, "send_private_typing_notifications"), true);
});

test("the sender joins the direct participants last, unless named", () => {
  assert.deepEqual(directTypingParticipants(5, [9, 3]), [9, 3, 5]);
  assert.deepEqual(directTypingParticipants(5, [9, 5, 3]), [9, 5, 3]);
  assert.deepEqual(directTypingParticipants(5, [5]), [5]);
});
