import { test, describe } from "node:test";
import assert from "node:assert/strict";
import {
  alertWordSearchText,
  buildAlertWordMatcher,
  cleanAlertWords,
  newAlertWords,
} from "../../src/domain/alert_words.js";

const matcher = (words: Record<number, string[]>) =>
  buildAlertWordMatcher(new Map(Object.entries(words).map(([u, w]) => [Number(u), w])));

/** The users alerted by `content` when user 1 has `words`. */
const alerted = (words: string[], content: string) => [...matcher({ 1: words })(content)];
const hits = (words: string[], content: string) => alerted(words, content).length === 1;

describe("alert word matching", () => {
  test("no words, no users", () => {
    assert.deepEqual([...buildAlertWordMatcher(new Map())("anything")], []);
    assert.deepEqual([...matcher({ 1: [""] })("anything")], []);
  });

  test("is case-insensitive both ways", () => {
    assert.ok(hits(["Deploy"], "DEPLOY now"));
    assert.ok(hits(["deploy"], "Deploy now"));
    assert.ok(hits(["CAFÉ"], "au café ce soir"));
  });

  test("the whole text, and words at its very start and end", () => {
    assert.ok(hits(["alert"], "alert"));
    assert.ok(hits(["alert"], "alert is at the start"));
    assert.ok(hits(["alert"], "at the end: alert"));
  });

  test("each character Zulip allows before a word", () => {
    for (const before of [" ", "\n", "(", '"', ".", ",", "'", ";", "[", "*", "`", ">"]) {
      assert.ok(hits(["word"], `x${before}word`), JSON.stringify(before));
    }
  });

  test("each character Zulip allows after a word", () => {
    for (const after of [" ", "\n", ")", "?", ":", ".", ",", "'", ";", "]", "!", "*", "`"]) {
      assert.ok(hits(["word"], `word${after}x`), JSON.stringify(after));
    }
  });

  test("other neighbours do not count, nor does a double quote after the word", () => {
    for (const before of ["a", "1", "_", "-", "#", "@", "/", ":", "<", "{", "é", "\u00a0", "~"]) {
      assert.ok(!hits(["word"], `${before}word`), `before ${JSON.stringify(before)}`);
    }
    for (const after of ["a", "1", "_", "-", "#", "@", "/", "(", "[", "{", '"', "~", "é"]) {
      assert.ok(!hits(["word"], `word${after}`), `after ${JSON.stringify(after)}`);
    }
    assert.ok(!hits(["word"], 'he said "word"'));
    assert.ok(!hits(["word"], 'he said "word", twice'));
  });

  test("the second character of the text is no exception", () => {
    assert.ok(!hits(["foo"], "xfoo"));
    assert.ok(!hits(["foo"], "xfoo bar"));
  });

  test("an invalid occurrence does not hide a valid later one", () => {
    assert.ok(hits(["foo"], "xfoo foo"));
    assert.ok(hits(["foo"], "foox (foo)"));
    assert.ok(!hits(["foo"], "xfoo foox food"));
  });

  test("phrases with spaces and punctuation", () => {
    assert.ok(hits(["release train"], "The Release Train leaves."));
    assert.ok(!hits(["release train"], "release trains"));
    assert.ok(hits(["c++"], "we use C++."));
    assert.ok(hits(["node.js"], "(node.js)"));
  });

  test("words that overlap or contain each other", () => {
    assert.deepEqual(alerted(["he", "she", "hers"], "ushers"), []);
    assert.ok(hits(["he", "she", "hers"], "she"));
    assert.ok(hits(["he", "she", "hers"], "(he)"));
    assert.ok(hits(["he", "she", "hers"], "hers!"));
    assert.ok(hits(["abc", "bc"], "abc"));
    assert.ok(!hits(["bc"], "abc"));
    assert.ok(hits(["aa"], "aaa aa"));
    assert.ok(!hits(["aa"], "aaa"));
  });

  test("users sharing a word, and users with several words", () => {
    const m = matcher({ 1: ["Zebra", "lion"], 2: ["zebra"], 3: ["tiger"], 4: ["LION", "tiger"] });
    assert.deepEqual([...m("a zebra")].sort(), [1, 2]);
    assert.deepEqual([...m("lion and tiger")].sort(), [1, 3, 4]);
    assert.deepEqual([...m("zebralion")], []);
    assert.deepEqual([...matcher({ 7: ["dup", "DUP", "Dup"] })("dup")], [7]);
  });

  test("characters outside the Basic Multilingual Plane", () => {
    assert.ok(hits(["🎉party"], "let's 🎉party!"));
    assert.ok(!hits(["party"], "🎉party"));
  });

  test("line endings and tabs are normalized before matching", () => {
    assert.ok(hits(["foo"], "bar\r\nfoo"));
    assert.ok(hits(["foo"], "bar\rfoo"));
    assert.ok(hits(["foo"], "bar\tfoo"));
    assert.ok(hits(["foo"], "foo\tbar"));
  });
});

describe("fenced blocks", () => {
  test("words inside code and math fences do not count", () => {
    assert.ok(!hits(["secret"], "```\nsecret\n```"));
    assert.ok(!hits(["secret"], "~~~\nsecret\n~~~"));
    assert.ok(!hits(["secret"], "```python\nsecret = 1\n```"));
    assert.ok(!hits(["secret"], "``` {.py}\nsecret\n```"));
    assert.ok(!hits(["secret"], "```math\nsecret\n```"));
    assert.ok(hits(["secret"], "```\ncode\n```\nsecret"));
  });

  test("inline code still counts", () => {
    assert.ok(hits(["secret"], "use `secret` here"));
  });

  test("quote and spoiler fences are Markdown, so words in them count", () => {
    assert.ok(hits(["secret"], "```quote\nthe secret\n```"));
    assert.ok(hits(["secret"], "```Quoted\nthe secret\n```"));
    assert.ok(hits(["secret"], "```spoiler Title\nthe secret\n```"));
    assert.ok(hits(["secret"], "```spoiler The secret\nbody\n```"));
  });

  test("a code fence inside a quote fence hides its words", () => {
    assert.ok(!hits(["secret"], "````quote\n```\nsecret\n```\n````"));
    assert.ok(hits(["secret"], "````quote\n```\ncode\n```\nsecret\n````"));
  });

  test("a fence closes only with the same fence, and an unclosed fence runs to the end", () => {
    assert.ok(!hits(["secret"], "````\n```\nsecret\n````"));
    assert.ok(!hits(["secret"], "```\nno end\nsecret"));
    assert.ok(!hits(["secret"], "~~~\n```\nsecret\n~~~"));
    assert.ok(hits(["secret"], "```\ncode\n```   \nsecret"));
  });

  test("only lines that are wholly a fence open one", () => {
    assert.ok(hits(["secret"], "  ```\nsecret\n```"));
    assert.ok(hits(["secret"], "```x`\nsecret"));
    assert.ok(hits(["secret"], "``\nsecret\n``"));
  });

  test("the language may contain Zulip's odd characters, including a comma", () => {
    assert.ok(!hits(["secret"], "```c++,v2\nsecret\n```"));
  });

  test("search text is lowercase with code blocks emptied", () => {
    assert.equal(alertWordSearchText("A\n```\nB\n```\nC"), "a\n\n\nc");
    assert.equal(alertWordSearchText("X\tY"), "x   y");
  });
});

describe("many words", () => {
  // A deterministic pseudo-random source, so failures reproduce.
  function rng(seed: number) {
    let s = seed >>> 0;
    return () => {
      s = (s * 1664525 + 1013904223) >>> 0;
      return s / 2 ** 32;
    };
  }

  const BEFORE = ` \n(".,';[*\`>`;
  const AFTER = ` \n)?:.,';]!*\``;

  /** The rule, written the slow obvious way. */
  function naive(wordsByUser: Map<number, string[]>, content: string): Set<number> {
    const text = content.toLowerCase();
    const out = new Set<number>();
    for (const [user, words] of wordsByUser) {
      for (const word of words) {
        const w = word.toLowerCase();
        for (let i = text.indexOf(w); w && i >= 0; i = text.indexOf(w, i + 1)) {
          const end = i + w.length;
          if ((i === 0 || BEFORE.includes(text[i - 1])) && (end === text.length || AFTER.includes(text[end]))) {
            out.add(user);
          }
        }
      }
    }
    return out;
  }

  test("agrees with the obvious rule on random texts over a small alphabet", () => {
    const next = rng(42);
    const alphabet = "abAB .,\"'(-";
    const pick = (n: number) => Array.from({ length: n }, () => alphabet[Math.floor(next() * alphabet.length)]).join("");
    for (let round = 0; round < 300; round++) {
      const words = new Map<number, string[]>();
      for (let u = 1; u <= 5; u++) words.set(u, Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(1 + Math.floor(next() * 3))));
      const content = pick(Math.floor(next() * 40));
      assert.deepEqual(
        [...buildAlertWordMatcher(words)(content)].sort(),
        [...naive(words, content)].sort(),
        JSON.stringify({ words: [...words], content }),
      );
    }
  });

  test("thousands of words across hundreds of users", () => {
    const next = rng(7);
    const letters = "abcdefghijklmnopqrstuvwxyz";
    const word = () => Array.from({ length: 4 + Math.floor(next() * 6) }, () => letters[Math.floor(next() * 26)]).join("");
    const words = new Map<number, string[]>();
    for (let u = 1; u <= 500; u++) words.set(u, Array.from({ length: 10 }, word));
    const m = buildAlertWordMatcher(words);
    const target = words.get(321)![4];
    const content = Array.from({ length: 2000 }, word).join(" ") + ` ${target.toUpperCase()}!`;
    assert.deepEqual(m(content), naive(words, content));
    assert.ok(m(content).has(321));
  });
});

describe("cleaning requested words", () => {
  test("strips whitespace and drops empty words", () => {
    assert.deepEqual(cleanAlertWords(["  a ", "", "   ", "\tb\n", "c d"]), ["a", "b", "c d"]);
  });

  test("keeps only case-insensitively new words; the last spelling wins in the first position", () => {
    assert.deepEqual(newAlertWords(["Alpha"], ["alpha", "ALPHA", "beta"]), ["beta"]);
    assert.deepEqual(newAlertWords([], ["one", "Two", "ONE", "two", "three"]), ["ONE", "two", "three"]);
    assert.deepEqual(newAlertWords(["x"], []), []);
  });
});
