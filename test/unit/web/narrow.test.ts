/** The search box's text as narrows, and what of a search result shows highlighted. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { narrowToSearch, parseSearch, searchHighlight } from "../../../web/src/state/narrow.js";

const channel = (n: string) => ({ verona: 1, "core team": 7 })[n.toLowerCase()];
const user = (e: string) => ({ "iago@zulip.com": 5, me: 10 })[e.toLowerCase()];

test("search text: operators and their old names, quoted operands, the rest a text search", () => {
  assert.deepEqual(parseSearch('stream:"core team" subject:lunch from:iago@zulip.com castle walls', channel, user), [
    { operator: "channel", operand: 7 },
    { operator: "topic", operand: "lunch" },
    { operator: "sender", operand: 5 },
    { operator: "search", operand: "castle walls" },
  ]);
  assert.deepEqual(parseSearch("dm-including:iago@zulip.com -is:starred id:42 near:7", channel, user), [
    { operator: "dm-including", operand: 5 },
    { operator: "is", operand: "starred", negated: true },
    { operator: "id", operand: 42 },
    { operator: "near", operand: "7" },
  ]);
  assert.deepEqual(parseSearch("sender:nobody@x.org unknown:thing", channel, user), [
    { operator: "sender", operand: "nobody@x.org" },
    { operator: "search", operand: "unknown:thing" },
  ]);
});

test("a narrow as search text", () => {
  const email = (id: number) => ({ 5: "iago@zulip.com" })[id] ?? String(id);
  assert.equal(
    narrowToSearch(
      [
        { operator: "channel", operand: 7 },
        { operator: "dm-including", operand: 5 },
        { operator: "search", operand: "castle" },
      ],
      () => "core team",
      email,
    ),
    'channel:"core team" dm-including:iago@zulip.com castle',
  );
});

test("a search result shows the server's highlighting while it reads as it was found", () => {
  const match = { content: '<p>the <span class="highlight">castle</span></p>', subject: '<span class="highlight">castle</span> walls', foundContent: "<p>the castle</p>", foundSubject: "castle walls" };
  assert.deepEqual(searchHighlight({ content: "<p>the castle</p>", subject: "castle walls" }, match), { content: match.content, subject: match.subject });
  assert.deepEqual(searchHighlight({ content: "<p>the castle, edited</p>", subject: "castle walls" }, match), { content: undefined, subject: match.subject }, "an edit shows the new text");
  assert.deepEqual(searchHighlight({ content: "<p>the castle</p>", subject: "moved" }, match), { content: match.content, subject: undefined }, "a move shows the new topic");
  assert.deepEqual(searchHighlight({ content: "<p>x</p>", subject: "y" }, undefined), {}, "outside a search, nothing");
});
