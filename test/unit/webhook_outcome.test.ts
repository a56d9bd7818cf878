import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { globMatch, eventWanted, messagesToPost } from "../../src/integrations/outcome.js";

describe("globMatch (Python's fnmatch, case-sensitive)", () => {
  test("literal, * and ?", () => {
    assert.ok(globMatch("push", "push"));
    assert.ok(!globMatch("push", "pushed"));
    assert.ok(globMatch("*", ""));
    assert.ok(globMatch("*", "anything at all"));
    assert.ok(globMatch("pull_request*", "pull_request_review"));
    assert.ok(globMatch("*_opened", "issue_opened"));
    assert.ok(!globMatch("*_opened", "issue_closed"));
    assert.ok(globMatch("p?sh", "push"));
    assert.ok(!globMatch("p?sh", "psh"));
    assert.ok(globMatch("a*b*c", "aXXbYYc"));
    assert.ok(!globMatch("a*b*c", "aXXbYY"));
    assert.ok(!globMatch("Push", "push"), "case-sensitive");
  });

  test("character sets, negated sets and ranges", () => {
    assert.ok(globMatch("[ab]x", "ax"));
    assert.ok(!globMatch("[ab]x", "cx"));
    assert.ok(globMatch("[!ab]x", "cx"));
    assert.ok(!globMatch("[!ab]x", "ax"));
    assert.ok(globMatch("v[0-9]", "v7"));
    assert.ok(!globMatch("v[0-9]", "vx"));
    assert.ok(globMatch("[]]", "]"), "a ] first in the set is literal");
    assert.ok(globMatch("[", "["), "an unclosed [ is literal");
    assert.ok(globMatch("a[", "a["));
  });

  test("other regular-expression characters are literal", () => {
    assert.ok(globMatch("a.b", "a.b"));
    assert.ok(!globMatch("a.b", "aXb"));
    assert.ok(globMatch("(x)+", "(x)+"));
  });

  test("hostile patterns stay fast", () => {
    const started = Date.now();
    assert.ok(!globMatch("*a".repeat(100) + "b", "a".repeat(5000)));
    assert.ok(Date.now() - started < 2000);
  });
});

describe("eventWanted", () => {
  test("no event type: the filters do not apply", () => {
    assert.ok(eventWanted(undefined, { only_events: '["x"]' }));
  });
  test("only_events keeps matching events; exclude_events drops matching ones", () => {
    assert.ok(eventWanted("push", {}));
    assert.ok(eventWanted("push", { only_events: '["push", "issues"]' }));
    assert.ok(!eventWanted("star", { only_events: '["push", "issues"]' }));
    assert.ok(eventWanted("pull_request_opened", { only_events: '["pull_request*"]' }));
    assert.ok(!eventWanted("push", { exclude_events: '["push"]' }));
    assert.ok(eventWanted("issues", { exclude_events: '["push"]' }));
    assert.ok(!eventWanted("push", { only_events: '["*"]', exclude_events: '["p*"]' }), "both apply");
    assert.ok(!eventWanted("push", { only_events: "[]" }), "an empty only list keeps nothing");
  });
});

describe("messagesToPost", () => {
  const outcome = { event: "push", messages: [{ topic: "repo / main", content: "pushed" }] };
  test("the URL's topic replaces the integration's", () => {
    assert.deepEqual(messagesToPost(outcome, { topic: "mine" }), [{ topic: "mine", content: "pushed" }]);
    assert.deepEqual(messagesToPost(outcome, {}), outcome.messages);
  });
  test("a filtered event posts nothing", () => {
    assert.deepEqual(messagesToPost(outcome, { exclude_events: '["push"]' }), []);
  });
});
