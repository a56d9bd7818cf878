import { test } from "node:test";
import assert from "node:assert/strict";
import { MessageCache, type CachedMessage } from "../../src/store/message_cache.js";

function message(id: number, version: number, content = "words"): CachedMessage {
  return {
    row: {
      id,
      version,
      realm_id: 1,
      sender_id: 1,
      recipient_id: 1,
      stream_id: 1,
      topic: "t",
      dm_key: null,
      content,
      rendered_content: `<p>${content}</p>`,
      client: "test",
      date_sent: 0,
      last_edit_time: null,
      last_moved_time: null,
      edit_history: null,
    },
    reactions: [],
  };
}

const text = (s: string) => Buffer.from(s);

test("a message is kept at the version it was read at", () => {
  const cache = new MessageCache(100_000);
  const m = message(1, 3);
  cache.set(m);
  assert.equal(cache.get(1, 3), m);
  assert.equal(cache.get(1, 4), undefined);
  assert.equal(cache.get(2, 3), undefined);
  const newer = message(1, 4);
  cache.set(newer);
  assert.equal(cache.get(1, 3), undefined);
  assert.equal(cache.get(1, 4), newer);
});

test("JSON texts are kept per form, under one context, and only beside the version they were made from", () => {
  const cache = new MessageCache(100_000);
  cache.keepJson(1, 0, "c1", "100", text("nothing kept"));
  assert.equal(cache.json(1, 0, "c1", "100"), undefined, "no text without its message");

  cache.set(message(1, 0));
  cache.keepJson(1, 1, "c1", "100", text("another version"));
  assert.equal(cache.json(1, 1, "c1", "100"), undefined);
  assert.equal(cache.json(1, 0, "c1", "100"), undefined);

  cache.keepJson(1, 0, "c1", "100", text("html"));
  cache.keepJson(1, 0, "c1", "000", text("markdown"));
  assert.equal(cache.json(1, 0, "c1", "100")?.toString(), "html");
  assert.equal(cache.json(1, 0, "c1", "000")?.toString(), "markdown");
  assert.equal(cache.json(1, 0, "c2", "100"), undefined, "made under other versions of the context");

  cache.keepJson(1, 0, "c2", "100", text("html again"));
  assert.equal(cache.json(1, 0, "c2", "100")?.toString(), "html again");
  assert.equal(cache.json(1, 0, "c1", "000"), undefined, "texts of the older context are dropped");
  assert.equal(cache.json(1, 0, "c2", "000"), undefined);

  cache.set(message(1, 1));
  assert.equal(cache.json(1, 1, "c2", "100"), undefined, "a new version of the message starts without texts");
});

test("the bound counts the texts kept beside the messages, oldest message out first", () => {
  const one = 2 * "words".length + 7 + 1 + 200; // sizeOf: content, rendered content, topic and a share
  const cache = new MessageCache(3 * one + 50);
  for (const id of [1, 2, 3]) cache.set(message(id, 0));
  assert.ok(cache.get(1, 0) && cache.get(3, 0));
  cache.keepJson(3, 0, "c", "100", text("x".repeat(40)));
  assert.ok(cache.get(1, 0), "within the bound");
  cache.keepJson(3, 0, "c", "000", text("x".repeat(40)));
  assert.equal(cache.get(1, 0), undefined, "the oldest message made room");
  assert.ok(cache.get(2, 0) && cache.get(3, 0));
  // Replacing the texts by a new context gives back their room.
  cache.keepJson(3, 0, "d", "100", text("x"));
  cache.set(message(4, 0));
  assert.ok(cache.get(2, 0), "room for a fourth without losing the second");
  assert.ok(cache.get(3, 0) && cache.get(4, 0));
  // A text larger than everything empties the cache, its own message with it.
  cache.keepJson(4, 0, "d", "100", text("x".repeat(5 * one)));
  assert.equal(cache.get(4, 0), undefined);
  assert.equal(cache.get(2, 0), undefined);
  cache.set(message(5, 0));
  assert.ok(cache.get(5, 0), "the room is all back");
});
