import { test } from "node:test";
import assert from "node:assert/strict";
import { json, pythonJsonDumps } from "../../../src/integrations/json.js";
import { testWebhookCases } from "../../helpers/webhook_cases.js";

testWebhookCases(json);

test("the payload as Python's json.dumps(indent=2) writes it", () => {
  assert.equal(pythonJsonDumps({ a: [], b: {}, c: [1, "é", null, true], d: 1.5 }, 2), '{\n  "a": [],\n  "b": {},\n  "c": [\n    1,\n    "\\u00e9",\n    null,\n    true\n  ],\n  "d": 1.5\n}');
  assert.equal(pythonJsonDumps(1e21, 2), "1e+21");
  assert.equal(pythonJsonDumps("😀", 2), '"\\ud83d\\ude00"');
});

test("from the body's text: integers exactly, floats as Python prints them, members in the order sent", () => {
  const body = '{"b": 1, "2": 20, "big": 1420452374669001603, "f": [1.0, 1e5, 1.5e-7, 1e16, -0], "b": 3}';
  const [m] = json.handle({ json: JSON.parse(body), form: {}, headers: {}, params: {}, body }).messages;
  assert.equal(
    m!.content,
    '```json\n{\n  "b": 3,\n  "2": 20,\n  "big": 1420452374669001603,\n  "f": [\n    1.0,\n    100000.0,\n    1.5e-07,\n    1e+16,\n    0\n  ]\n}\n```',
  );
});

test("nesting past 1,024 levels is Malformed JSON, as Zulip's parser has it", () => {
  const deep = (n: number) => `{"a": ${"[".repeat(n)}${"]".repeat(n)}}`;
  const [m] = json.handle({ json: { a: [] }, form: {}, headers: {}, params: {}, body: deep(1000) }).messages;
  assert.ok(m!.content.length > 1000);
  assert.throws(() => json.handle({ json: { a: [] }, form: {}, headers: {}, params: {}, body: deep(100_000) }), /Malformed JSON/);
});

test("a payload that is not an object is refused as Zulip's typed body is", () => {
  assert.throws(() => json.handle({ json: [1], form: {}, headers: {}, params: {}, body: "[1]" }), /payload is not a dict/);
});
