import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  directMessageKey,
  draftContent,
  draftTimestamp,
  draftTopic,
  formatDraft,
  type StoredDraft,
} from "../../src/domain/drafts.js";
import { ZulipError } from "../../src/http/errors.js";

function fails(fn: () => unknown, msg: string) {
  assert.throws(fn, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.status === 400);
}

describe("draft content", () => {
  test("is kept as sent up to 10000 characters", () => {
    const text = "é".repeat(10000);
    assert.equal(draftContent(text), text);
  });

  test("longer content is cut, ending with Zulip's marker, to exactly 10000 characters", () => {
    const cut = draftContent("😀".repeat(10001));
    assert.equal([...cut].length, 10000);
    assert.ok(cut.endsWith("\n[message truncated]"));
    assert.ok(cut.startsWith("😀".repeat(9980)));
  });

  test("null bytes are refused", () => {
    fails(() => draftContent("a\u0000b"), "Message must not contain null bytes");
  });
});

describe("draft topic", () => {
  test("is cut to 60 characters ending in ...", () => {
    assert.equal(draftTopic("t".repeat(60)), "t".repeat(60));
    assert.equal(draftTopic("t".repeat(61)), "t".repeat(57) + "...");
    assert.equal(draftTopic(" spaced "), " spaced ");
  });

  test("null bytes are refused, unless truncation removed them", () => {
    fails(() => draftTopic("a\u0000"), "Topic must not contain null bytes");
    assert.equal(draftTopic("t".repeat(70) + "\u0000"), "t".repeat(57) + "...");
  });
});

describe("draft timestamp", () => {
  test("defaults to now and keeps microseconds", () => {
    assert.equal(draftTimestamp(undefined, 1700000000.25), 1700000000.25);
    assert.equal(draftTimestamp(null, 5), 5);
    assert.equal(draftTimestamp(1595479019.1234567, 0), 1595479019.123457);
  });

  test("negative and unrepresentable times are refused", () => {
    fails(() => draftTimestamp(-10.1, 0), "Timestamp must not be negative.");
    assert.equal(draftTimestamp(-0.0000001, 0), -0);
    assert.equal(draftTimestamp(253402300799, 0), 253402300799);
    fails(() => draftTimestamp(253402300800, 0), "Timestamp is out of range.");
  });
});

describe("draft recipients", () => {
  test("a conversation key is the sorted distinct participant ids", () => {
    assert.equal(directMessageKey([9, 2, 9, 10]), "2,9,10");
    assert.equal(directMessageKey([4]), "4");
  });

  const stored = (over: Partial<StoredDraft>): StoredDraft => ({
    id: 3,
    stream_id: null,
    dm_key: null,
    topic: "",
    content: "c",
    last_edit_time: 1595479019.9,
    ...over,
  });

  test("are shown by type, with the edit time in whole seconds", () => {
    assert.deepEqual(formatDraft(stored({ stream_id: 8, topic: "t" }), 5), {
      id: 3,
      type: "stream",
      to: [8],
      topic: "t",
      content: "c",
      timestamp: 1595479019,
    });
    assert.deepEqual(formatDraft(stored({}), 5).to, []);
    assert.equal(formatDraft(stored({}), 5).type, "");
  });

  test("a direct-message draft lists the other participants, or the owner when alone", () => {
    assert.deepEqual(formatDraft(stored({ dm_key: "2,5" }), 5), { ...formatDraft(stored({}), 5), type: "private", to: [2] });
    assert.deepEqual(formatDraft(stored({ dm_key: "2,5,7" }), 5).to, [2, 7]);
    assert.deepEqual(formatDraft(stored({ dm_key: "5" }), 5).to, [5]);
  });
});
