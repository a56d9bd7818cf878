import { test, describe } from "node:test";
import assert from "node:assert/strict";
import { P, parseParams, rawParams, unusedParameters } from "../../src/http/params.js";
import { ZulipError } from "../../src/http/errors.js";

const parse = <S extends Record<string, any>>(specs: S, body: Record<string, string>, query: Record<string, string> = {}) =>
  parseParams(rawParams(body, query), specs);

function fails(fn: () => unknown, msg: string, code = "BAD_REQUEST") {
  assert.throws(fn, (e: unknown) => e instanceof ZulipError && e.msg === msg && e.code === code);
}

describe("parameter parsing", () => {
  test("missing required parameter", () => {
    fails(() => parse({ name: P.string() }, {}), "Missing 'name' argument", "REQUEST_VARIABLE_MISSING");
  });

  test("body wins over query string; query string is read too", () => {
    assert.deepEqual(parse({ a: P.string(), b: P.string() }, { a: "body" }, { a: "query", b: "q" }), { a: "body", b: "q" });
  });

  test("strings are verbatim, JSON types are decoded strictly", () => {
    assert.deepEqual(
      parse({ s: P.string(), i: P.int(), b: P.bool(), l: P.intList() }, { s: '"x"', i: "5", b: "true", l: "[1,2]" }),
      { s: '"x"', i: 5, b: true, l: [1, 2] },
    );
    fails(() => parse({ i: P.int() }, { i: "abc" }), "i is not valid JSON");
    fails(() => parse({ i: P.int() }, { i: '"5"' }), "i is not an integer");
    fails(() => parse({ i: P.int() }, { i: "1.5" }), "i is not an integer");
    fails(() => parse({ b: P.bool() }, { b: "1" }), "b is not a boolean");
    fails(() => parse({ b: P.bool() }, { b: "True" }), "b is not valid JSON");
    fails(() => parse({ l: P.intList() }, { l: "{}" }), "l is not a list");
    fails(() => parse({ l: P.intList() }, { l: '[1,"x"]' }), "l[1] is not an integer");
    fails(() => parse({ o: P.json((z) => z.object({ a: z.string() })) }, { o: "[]" }), "o is not a dict");
    fails(() => parse({ o: P.json((z) => z.strictObject({ a: z.string() })) }, { o: '{"a":"x","b":1}' }), 'Argument "b" at o["b"] is unexpected');
    fails(() => parse({ o: P.json((z) => z.object({ a: z.string() })) }, { o: '{"a":1}' }), 'o["a"] is not a string');
  });

  test("limits", () => {
    fails(() => parse({ s: P.string({ maxLength: 3 }) }, { s: "abcd" }), "s is too long (limit: 3 characters)");
    fails(() => parse({ s: P.string({ nonBlank: true }) }, { s: "   " }), "s cannot be blank");
    assert.deepEqual(parse({ s: P.string({ nonBlank: true }) }, { s: "  x " }), { s: "x" });
    fails(() => parse({ i: P.int({ min: 1 }) }, { i: "0" }), "i is too small");
    fails(() => parse({ i: P.int({ max: 1 }) }, { i: "2" }), "i is too large");
    fails(() => parse({ e: P.oneOf(["a", "b"]) }, { e: "c" }), "Invalid e");
  });

  test("optional, default, nullable and JSON null", () => {
    assert.deepEqual(parse({ i: P.int().optional(), j: P.int().default(7) }, {}), { i: undefined, j: 7 });
    assert.deepEqual(parse({ j: P.int().default(7) }, { j: "null" }), { j: 7 });
    assert.deepEqual(parse({ f: P.int().nullable() }, { f: "null" }), { f: null });
    assert.deepEqual(parse({ f: P.int().nullable() }, {}), { f: undefined });
  });

  test("aliases, and sending two of them at once", () => {
    assert.deepEqual(parse({ topic: P.string().alias("subject") }, { subject: "t" }), { topic: "t" });
    fails(
      () => parse({ topic: P.string().alias("subject") }, { topic: "a", subject: "b" }),
      "Can't decide between 'topic' and 'subject' arguments",
      "REQUEST_CONFUSING_VAR",
    );
  });

  test("unused parameters are sorted and exclude client", () => {
    const raw = rawParams({ b: "1", a: "1", client: "x" }, { c: "1", keep: "1" });
    assert.deepEqual(unusedParameters(raw, { keep: P.string() }), ["a", "b", "c"]);
  });
});
