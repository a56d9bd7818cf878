import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { FLAG_BITS, HISTORICAL_FLAGS, clampFlagRange, flagChangeRefusal, messagesToChange } from "../../src/domain/message_flags.js";
import { buildUnreads, unreadMessageDetails } from "../../src/domain/unreads.js";
import { highlightHtml, searchWords } from "../../src/domain/search_highlight.js";
import { porterStem } from "../../src/domain/porter_stem.js";

describe("flagChangeRefusal", () => {
  test("read, starred and collapsed may be added and removed", () => {
    for (const flag of ["read", "starred", "collapsed"]) {
      assert.deepEqual(flagChangeRefusal(flag, "add"), { flag, adding: true });
      assert.deepEqual(flagChangeRefusal(flag, "remove"), { flag, adding: false });
    }
  });

  test("flags are checked before the operation, known before editable", () => {
    assert.deepEqual(flagChangeRefusal("nope", "nope"), { refusal: "Invalid flag: 'nope'" });
    assert.deepEqual(flagChangeRefusal("mentioned", "nope"), { refusal: "Flag not editable: 'mentioned'" });
    assert.deepEqual(flagChangeRefusal("read", "nope"), { refusal: "Invalid message flag operation: 'nope'" });
    assert.deepEqual(flagChangeRefusal("force_collapse", "add"), { refusal: "Flag not editable: 'force_collapse'" });
    assert.deepEqual(flagChangeRefusal("is_private", "add"), { refusal: "Invalid flag: 'is_private'" });
    assert.deepEqual(flagChangeRefusal("wildcard_mentioned", "add"), { refusal: "Invalid flag: 'wildcard_mentioned'" });
    assert.deepEqual(flagChangeRefusal("toString", "add"), { refusal: "Invalid flag: 'toString'" });
  });
});

describe("messagesToChange", () => {
  const own = new Map([
    [1, 0],
    [2, FLAG_BITS.read | FLAG_BITS.starred],
  ]);
  test("keeps messages whose flag differs, once each, in request order", () => {
    assert.deepEqual(messagesToChange([2, 1, 1], own, "read", true), [1]);
    assert.deepEqual(messagesToChange([2, 1], own, "starred", false), [2]);
  });
  test("a message without a row counts as read and historical", () => {
    assert.equal(HISTORICAL_FLAGS, FLAG_BITS.read | FLAG_BITS.historical);
    assert.deepEqual(messagesToChange([3], own, "read", true), []);
    assert.deepEqual(messagesToChange([3], own, "read", false), [3]);
    assert.deepEqual(messagesToChange([3], own, "starred", true), [3]);
    assert.deepEqual(messagesToChange([3], own, "collapsed", false), []);
  });
});

describe("clampFlagRange", () => {
  test("leaves ranges within 5000 alone", () => {
    assert.deepEqual(clampFlagRange(10, 20), { numBefore: 10, numAfter: 20 });
    assert.deepEqual(clampFlagRange(5000, 0), { numBefore: 5000, numAfter: 0 });
  });
  test("cuts larger ranges to 5000, keeping at least half before the anchor", () => {
    assert.deepEqual(clampFlagRange(100000, 100000), { numBefore: 2500, numAfter: 2500 });
    assert.deepEqual(clampFlagRange(100000, 1000), { numBefore: 4000, numAfter: 1000 });
    assert.deepEqual(clampFlagRange(1000, 100000), { numBefore: 1000, numAfter: 4000 });
    assert.deepEqual(clampFlagRange(0, 9000), { numBefore: 0, numAfter: 5000 });
  });
});

describe("unreadMessageDetails", () => {
  test("describes channel and direct messages the way update_message_flags does", () => {
    const raw = buildUnreads(
      1,
      [
        { messageId: 14, streamId: 7, topic: "muted", dmKey: null, flags: FLAG_BITS.stream_wildcard_mentioned },
        { messageId: 13, streamId: 5, topic: "t", dmKey: null, flags: FLAG_BITS.mentioned },
        { messageId: 12, streamId: null, topic: "", dmKey: "1,2,3", flags: 0 },
        { messageId: 11, streamId: null, topic: "", dmKey: "1", flags: 0 },
        { messageId: 10, streamId: null, topic: "", dmKey: "1,2", flags: FLAG_BITS.mentioned },
      ],
      [7],
    );
    assert.deepEqual(unreadMessageDetails(raw, 1), {
      "10": { type: "private", user_ids: [2], mentioned: true },
      "11": { type: "private", user_ids: [] },
      "12": { type: "private", user_ids: [2, 3] },
      "13": { type: "stream", stream_id: 5, topic: "t", unmuted_stream_msg: true, mentioned: true },
      // A wildcard mention in a muted channel is not a mention.
      "14": { type: "stream", stream_id: 7, topic: "muted", unmuted_stream_msg: false },
    });
  });
});

describe("search highlighting", () => {
  const words = searchWords([
    { operator: "search", operand: "Lunch  time", negated: false },
    { operator: "search", operand: "never", negated: true },
    { operator: "channel", operand: "x", negated: false },
  ]);
  test("takes the words of non-negated search terms", () => {
    assert.deepEqual(words, ["lunch", "time"]);
  });
  test("wraps words with the search word's stem in text, any case, never inside tags or entities", () => {
    assert.equal(
      highlightHtml('<p><a href="/lunch">Lunches</a> at lunchtime &amp; time</p>', words),
      '<p><a href="/lunch"><span class="highlight">Lunches</span></a> at lunchtime &amp; <span class="highlight">time</span></p>',
    );
    assert.equal(highlightHtml("&lt;time&gt;", ["lt", "time"]), '&lt;<span class="highlight">time</span>&gt;');
    assert.equal(highlightHtml("no match", words), "no match");
    assert.equal(highlightHtml("x", []), "x");
    assert.equal(highlightHtml("the walker walked", ["the", "walking"]), 'the walker <span class="highlight">walked</span>');
  });
  test("phrases and unspaced scripts are highlighted as written; overlapping matches make one span", () => {
    assert.deepEqual(searchWords([{ operator: "search", operand: '"Ab c" 東京', negated: false }]), ['"ab c"', "東京"]);
    assert.equal(highlightHtml("xab cd", ['"ab c"', '"b cd"']), 'x<span class="highlight">ab cd</span>');
    assert.equal(highlightHtml("<p>東京タワー</p>", ["東京"]), '<p><span class="highlight">東京</span>タワー</p>');
  });
});

describe("porter stemming", () => {
  test("stems as SQLite's porter tokenizer does", () => {
    const cases: [string, string][] = [
      ["caresses", "caress"], ["ponies", "poni"], ["cats", "cat"], ["agreed", "agre"], ["plastered", "plaster"],
      ["motoring", "motor"], ["hopping", "hop"], ["filing", "file"], ["happy", "happi"], ["relational", "relat"],
      ["generalization", "gener"], ["hopeful", "hope"], ["replacement", "replac"], ["adoption", "adopt"],
      ["controlling", "control"], ["running", "run"], ["東京", "東京"],
    ];
    for (const [word, stem] of cases) assert.equal(porterStem(word), stem, word);
  });
});
