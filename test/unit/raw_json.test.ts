import { test } from "node:test";
import assert from "node:assert/strict";
import { RawJson, extendRawObject, serializeWithRaw } from "../../src/http/raw_json.js";

test("top-level RawJson values are placed as they are, everything else serialized as usual", () => {
  const body = { a: 1, users: new RawJson('[{"x":1},{"y":"\\u0000"}]'), text: "he said \"hi\"\u0000", b: new RawJson("{}") };
  const out = serializeWithRaw(body);
  assert.ok(Buffer.isBuffer(out));
  assert.deepEqual(JSON.parse(out.toString()), { a: 1, users: [{ x: 1 }, { y: "\u0000" }], text: 'he said "hi"\u0000', b: {} });
  // The body given is left as it was.
  assert.ok(body.users instanceof RawJson);
});

test("a string that looks like a placeholder stays a string", () => {
  const out = serializeWithRaw({ fake: "\u0000raw-json:00000000-0000-0000-0000-000000000000:0", real: new RawJson("[1]") });
  assert.deepEqual(JSON.parse(out.toString()), { fake: "\u0000raw-json:00000000-0000-0000-0000-000000000000:0", real: [1] });
});

test("without RawJson it is JSON.stringify, as a string", () => {
  const body = { a: [1, { b: null }], c: "d" };
  assert.equal(serializeWithRaw(body), JSON.stringify(body));
  assert.equal(serializeWithRaw(body, "\n"), JSON.stringify(body) + "\n");
});

test("raw values in several pieces, with text outside ASCII, are laid end to end", () => {
  const pieces = [Buffer.from('[{"name":"Zoë'), Buffer.from('"},{"name":"李"}'), Buffer.from("]")];
  const out = serializeWithRaw({ before: "é", users: new RawJson(pieces), after: "ü" }, "\n");
  assert.ok(Buffer.isBuffer(out));
  assert.ok(out.toString().endsWith("}\n"));
  assert.deepEqual(JSON.parse(out.toString()), { before: "é", users: [{ name: "Zoë" }, { name: "李" }], after: "ü" });
});

test("a raw object's members follow the given fields", () => {
  const raw = new RawJson('{"a":1,"b":"ß"}');
  assert.deepEqual(JSON.parse(extendRawObject({ result: "success" }, raw, "\n").toString()), { result: "success", a: 1, b: "ß" });
  assert.ok(extendRawObject({ x: 1 }, raw, "\n").toString().endsWith("}\n"));
  assert.deepEqual(JSON.parse(extendRawObject({ result: "success" }, new RawJson("{}")).toString()), { result: "success" });
});
