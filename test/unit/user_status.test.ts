import { test } from "node:test";
import assert from "node:assert/strict";
import { applyUserStatusEvent, type StatusMap } from "../../src/domain/user_status.js";

const CAR = { emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" };

test("a status event sets the fields it carries and keeps the others", () => {
  const all: StatusMap = { "7": { status_text: "busy" } };
  applyUserStatusEvent(all, { type: "user_status", user_id: 7, ...CAR });
  applyUserStatusEvent(all, { type: "user_status", user_id: 9, away: true });
  assert.deepEqual(all, { "7": { status_text: "busy", ...CAR }, "9": { away: true } });
});

test("default values remove fields, and an empty status removes the user", () => {
  const all: StatusMap = { "7": { status_text: "busy", away: true, ...CAR } };
  applyUserStatusEvent(all, { type: "user_status", user_id: 7, emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" });
  assert.deepEqual(all, { "7": { status_text: "busy", away: true } });
  applyUserStatusEvent(all, { type: "user_status", user_id: 7, status_text: "" });
  applyUserStatusEvent(all, { type: "user_status", user_id: 7, away: false });
  assert.deepEqual(all, {});
});
