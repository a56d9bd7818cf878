import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { decide, parseRuleOverrides, type Rule } from "../../src/domain/rate_limits.js";
import { MemoryRateLimitStore } from "../../src/security/rate_limiter.js";

describe("decide", () => {
  const rules: Rule[] = [
    [10, 2],
    [100, 3],
  ];

  test("allowed while every rule has room; remaining counts this request", () => {
    assert.deepEqual(decide([], rules, 1000), { limited: false, retryAfter: 0, limit: 2, remaining: 1, resetAt: 1100 });
    assert.deepEqual(decide([999], rules, 1000), { limited: false, retryAfter: 0, limit: 2, remaining: 0, resetAt: 1099 });
  });

  test("the shorter rule limits first; the wait is until its oldest counted request leaves the window", () => {
    assert.deepEqual(decide([995, 998], rules, 1000), { limited: true, retryAfter: 5, limit: 2, remaining: 0, resetAt: 1095 });
  });

  test("the longer rule limits once the short window is clear", () => {
    assert.deepEqual(decide([901, 950, 970], rules, 1000), { limited: true, retryAfter: 1, limit: 2, remaining: 0, resetAt: 1001 });
    assert.equal(decide([900, 950, 970], rules, 1000).limited, false, "a request exactly one window old no longer counts");
  });

  test("requests older than a window do not count in it", () => {
    assert.equal(decide([980, 985], rules, 1000).limited, false);
  });
});

describe("the in-memory store", () => {
  test("records only allowed requests, and forgets what no window needs", async () => {
    const store = new MemoryRateLimitStore();
    const rules: Rule[] = [[10, 2]];
    assert.equal((await store.attempt("k", rules, 0, true)).limited, false);
    assert.equal((await store.attempt("k", rules, 1, true)).limited, false);
    assert.equal((await store.attempt("k", rules, 2, true)).limited, true);
    assert.equal((await store.attempt("k", rules, 10.5, true)).limited, false, "the first request has left the window");
    await store.attempt("other", rules, 100, false);
    assert.equal(store.size(), 1, "a check alone stores nothing, and expired keys go");
  });

  test("attacker-chosen keys cannot grow it without bound", async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 100_010; i++) await store.record(`ip${i}`, [[60, 1]], 0);
    assert.equal(store.size(), 100_000);
  });
});

describe("rule overrides", () => {
  test("known domains with [[seconds, requests]] rules", () => {
    assert.deepEqual(parseRuleOverrides('{"api_by_ip": [[1, 2], [3, 4]]}'), { api_by_ip: [[1, 2], [3, 4]] });
    for (const bad of ['{"nope": [[1, 2]]}', '{"api_by_ip": []}', '{"api_by_ip": [[0, 2]]}', '{"api_by_ip": [[1.5, 2]]}', "[]"]) {
      assert.throws(() => parseRuleOverrides(bad), Error, bad);
    }
  });
});
