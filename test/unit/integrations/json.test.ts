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
