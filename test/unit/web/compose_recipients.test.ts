/** The direct-message "To" field's typeahead and its reading of typed or pasted addresses. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { matchRecipients, splitTyped, type Candidate } from "../../../web/src/views/compose/recipients.js";

const people: Candidate[] = [
  { user_id: 1, full_name: "Iago", email: "iago@zulip.com", is_active: true },
  { user_id: 2, full_name: "Cordelia, Lear's daughter", email: "cordelia@zulip.com", is_active: true },
  { user_id: 3, full_name: "King Hamlet", email: "hamlet@zulip.com", is_active: true },
  { user_id: 4, full_name: "Prospero from The Tempest", email: "prospero@zulip.com", is_active: false },
  { user_id: 5, full_name: "aaron", email: "user5@zulip.example", delivery_email: "AARON@zulip.com", is_active: true },
  { user_id: 6, full_name: "Othello, the Moor of Venice", email: "othello@zulip.com", is_active: true },
  { user_id: 7, full_name: "Horatio", email: "horatio@zulip.com", is_active: true },
  { user_id: 8, full_name: "Polonius", email: "hpolonius@zulip.com", is_active: true },
];
const ids = (us: Candidate[]) => us.map((u) => u.user_id);

test("names starting with the query first, then a later word of the name, then emails", () => {
  assert.deepEqual(ids(matchRecipients(people, "h", [])), [7, 3, 8]);
  assert.deepEqual(ids(matchRecipients(people, "HAM", [])), [3]);
  assert.deepEqual(ids(matchRecipients(people, "com", [])), [], "not inside an address");
  assert.deepEqual(ids(matchRecipients(people, "user5", [])), [], "not by the stand-in of a hidden address");
  assert.deepEqual(ids(matchRecipients(people, "aaron@", [])), [5], "by the real email, case aside");
});

test("deactivated people and those already chosen are not offered; nothing for an empty query", () => {
  assert.deepEqual(ids(matchRecipients(people, "pro", [])), []);
  assert.deepEqual(ids(matchRecipients(people, "h", [7, 1])), [3, 8]);
  assert.deepEqual(matchRecipients(people, "  ", []), []);
  assert.deepEqual(ids(matchRecipients(people, "h", [], 2)), [7, 3], "at most the limit");
});

test("typed or pasted addresses: the finished ones become people, the unknown and the unfinished stay as text", () => {
  const find = (who: string) => people.find((u) => [u.email, u.full_name].includes(who.trim()));
  assert.deepEqual(splitTyped("iago@zulip.com, nobody@x, ham", find), { found: [people[0]], rest: "nobody@x, ham" });
  assert.deepEqual(splitTyped("iago@zulip.com, hamlet@zulip.com", find, true), { found: [people[0], people[2]], rest: "" });
  assert.deepEqual(splitTyped("prospero@zulip.com,", find), { found: [], rest: "prospero@zulip.com" }, "a deactivated person stays text");
});
