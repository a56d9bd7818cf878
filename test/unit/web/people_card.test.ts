/** What a user card says: role or a bot's owner, the visible email, local time, last activity. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { byName, lastActive, localTime, presenceState, roleLine, visibleEmail, type CardUser } from "../../../web/src/views/people/card.js";

const person = (over: Partial<CardUser> = {}): CardUser => ({ user_id: 7, email: "hamlet@zulip.com", full_name: "King Hamlet", role: 400, is_bot: false, is_active: true, ...over });
const names: Record<number, string> = { 1: "Iago", 2: "cordelia", 3: "Othello", 4: "Aaron", 5: "Iago" };

test("the role line names Zulip's roles, and a bot's owner instead", () => {
  assert.deepEqual(
    [100, 200, 300, 400, 600].map((role) => roleLine(person({ role }), () => undefined)),
    ["Organization owner", "Organization administrator", "Moderator", "Member", "Guest"],
  );
  assert.equal(roleLine(person({ is_bot: true, bot_owner_id: 1 }), (id) => names[id]), "Bot owned by Iago");
  assert.equal(roleLine(person({ is_bot: true, bot_owner_id: 99 }), (id) => names[id]), "Bot", "an owner the viewer cannot see");
  assert.equal(roleLine(person({ is_bot: true, is_system_bot: true }), () => undefined), "System bot");
});

test("the email shown is the real one when shared, never the stand-in of a hidden address", () => {
  assert.equal(visibleEmail(person()), "hamlet@zulip.com");
  assert.equal(visibleEmail(person({ email: "user7@zulip.example", delivery_email: "hamlet@zulip.com" })), "hamlet@zulip.com");
  assert.equal(visibleEmail(person({ email: "user7@zulip.example", delivery_email: null })), "");
  assert.equal(visibleEmail(person({ email: "user70@zulip.example" })), "user70@zulip.example", "only the person's own stand-in is hidden");
});

test("local time in the person's time zone, 12- or 24-hour by the reader's setting", () => {
  const at = Date.UTC(2026, 0, 15, 15, 5);
  assert.equal(localTime("Asia/Kolkata", at, false, "en-US"), "8:35 PM local time");
  assert.equal(localTime("America/New_York", at, true, "en-US"), "10:05 local time");
  assert.equal(localTime("", at, true, "en-US"), "", "no time zone set");
  assert.equal(localTime("Mars/Olympus_Mons", at, true, "en-US"), "", "a zone the browser does not know");
});

test("presence and last activity from the presence timestamps", () => {
  const now = 1_800_000_000;
  assert.equal(presenceState(undefined, now), "offline");
  assert.equal(presenceState({ active_timestamp: now - 60, idle_timestamp: now - 60 }, now), "active");
  assert.equal(presenceState({ active_timestamp: now - 600, idle_timestamp: now - 30 }, now), "idle");
  assert.equal(lastActive({ active_timestamp: now - 10, idle_timestamp: now - 10 }, now), "Active now");
  assert.equal(lastActive({ active_timestamp: now - 600, idle_timestamp: now - 30 }, now), "Idle");
  assert.equal(lastActive({ active_timestamp: now - 150, idle_timestamp: 0 }, now), "Active 2 minutes ago");
  assert.equal(lastActive({ active_timestamp: now - 3 * 3600, idle_timestamp: 0 }, now), "Active 3 hours ago");
  assert.equal(lastActive({ active_timestamp: now - 86400, idle_timestamp: 0 }, now), "Active 1 day ago");
  assert.equal(lastActive({ active_timestamp: now - 400 * 86400, idle_timestamp: 0 }, now), "Not active in the last year");
  assert.equal(lastActive(undefined, now), "", "never seen");
});

test("people sorted by name, case aside, ties by id", () => {
  assert.deepEqual(byName([3, 5, 2, 1, 4], (id) => names[id]), [4, 2, 1, 5, 3]);
});
