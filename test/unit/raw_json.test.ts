import { test } from "node:test";
import assert from "node:assert/strict";
import { RawJson, stringifyWithRaw } from "../../src/http/raw_json.js";

test("top-level RawJson values are placed as they are, everything else serialized as usual", () => {
  const body = { a: 1, users: new RawJson('[{"x":1},{"y":"\\u0000"}]'), text: "he said \"hi\"\u0000", b: new RawJson("{}") };
  const out = stringifyWithRaw(body);
  assert.deepEqual(JSON.parse(out), { a: 1, users: [{ x: 1 }, { y: "\u0000" }], text: 'he said "hi"\u0000', b: {} });
  // The body given is left as it was.
  assert.ok(body.users instanceof RawJson);
});

test("a string that looks like a placeholder stays a string", () => {
  const out = stringifyWithRaw({ fake: "\u0000raw-json:00000000-0000-0000-0000-000000000000:0", real: new RawJson("[1]") });
  assert.deepEqual(JSON.parse(out), { fake: "\u0000raw-json:00000000-0000-0000-0000-000000000000:0", real: [1] });
});

test("without RawJson it is JSON.stringify", () => {
  const body = { a: [1, { b: null }], c: "d" };
  assert.equal(stringifyWithRaw(body), JSON.stringify(body));
});
