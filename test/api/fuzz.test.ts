/**
 * Walks every operation of Zulip's API description with malformed values, one parameter at a
 * time (the others keep the spec's examples, so that the malformed one is the one read): wrong
 * types, ids beyond every column range, NUL bytes, 1 MB strings, 100,000-element lists, deeply
 * nested JSON. Whatever the input, the answer must be Zulip's envelope and never a 5xx.
 * Then the same for what reaches the server before any route: URLs, headers and bodies.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { basicAuth, encodeParams, type Credentials } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { ok } from "../helpers/channels.js";
import { Api } from "../helpers/client.js";
import { operations, parameters, type Operation } from "../helpers/openapi.js";

/** Operations left out, each with the reason. */
const SKIPPED: Record<string, string> = {
  "real-time": "documentation, not an endpoint",
  "rest-error-handling": "documentation, not an endpoint",
  "zulip-outgoing-webhook": "documentation, not an endpoint",
  "deactivate-own-user": "has no parameters to fuzz and would end the caller's access",
};

/** Operations that answer with a page, not JSON, when something is missing (as Zulip's do). */
const PAGE_ANSWERS = new Set(["get-file-temporary-url", "get-file"]);

const deep = (depth: number, open: string, close: string, inner = "1") => open.repeat(depth) + inner + close.repeat(depth);

/** Small malformed values, sent as the raw text of a form field or query parameter. */
const MALFORMED: string[] = [
  "",
  "x",
  "{",
  "[",
  "null",
  "true",
  "-1",
  "0",
  "1.5",
  "1e308",
  "2147483648",
  "-2147483649",
  "9223372036854775808",
  "99999999999999999999999999",
  "\u0000",
  "a\u0000b",
  JSON.stringify("a\u0000b"),
  JSON.stringify(["a\u0000b"]),
  JSON.stringify({ "a\u0000": "b\u0000" }),
  JSON.stringify([2147483648, 9223372036854775807]),
  JSON.stringify([-1, 0]),
  JSON.stringify([["channel", "a\u0000"]]),
  JSON.stringify([{ operator: "search", operand: "a\u0000" }]),
  JSON.stringify({ new: 2147483648, old: -1 }),
  JSON.stringify({ direct_members: [2147483648], direct_subgroups: [-5] }),
  '"\\ud800"',
];

/**
 * Large values, each sent to the parameters of a type it could pass for (a huge value of the
 * wrong type fails like a small one, which the values above cover).
 */
function largeValues(type: string | undefined, bytes: number): [label: string, value: string][] {
  const n = bytes / 10;
  const out: [string, string][] = [];
  if (type === undefined || type === "string") out.push([`${bytes}-character string`, "a".repeat(bytes)]);
  if (type === undefined || type === "array") {
    out.push([`${n} ids`, JSON.stringify(Array.from({ length: n }, (_, i) => i + 1))]);
    out.push([`${n} strings`, JSON.stringify(Array.from({ length: n }, (_, i) => `w${i}`))]);
  }
  if (type === undefined || type === "array" || type === "object") {
    out.push(["nested lists", deep(Math.min(n * 5, 5000), "[", "]")]);
    out.push(["nested objects", deep(Math.min(n * 1.5, 5000), '{"a":', "}")]);
  }
  return out;
}
// GET parameters travel in the URL, which the HTTP server caps at 16 KB (tested below).
const largeFor = (o: Operation, type: string | undefined) => largeValues(type, o.method === "GET" ? 2_000 : 1_000_000);

const PATH_VALUES = ["0", "2147483648", "9223372036854775808", "99999999999999999999999", "-1", "abc", "%00", "a".repeat(300)];

let srv: TestServer;
let t: TestRealm;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  const owner = new Api(srv.url, t.owner);
  await ok(owner.post("/channels/create", { name: "fuzz", subscribers: [t.owner.id, t.member.id] }));
  await ok(owner.post("/messages", { type: "stream", to: "fuzz", topic: "t", content: "hello" }));
});
after(() => srv.close());

interface Answer {
  status: number;
  text: string;
}

/** A request with the exact bytes given: no client library normalizes anything on the way. */
function send(method: string, pathAndQuery: string, opts: { body?: string | Buffer; headers?: Record<string, string>; auth?: Credentials } = {}): Promise<Answer> {
  const url = new URL(srv.url);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...opts.headers };
    if (opts.auth !== undefined) headers.authorization = basicAuth(opts.auth);
    if (opts.body !== undefined) {
      headers["content-type"] ??= "application/x-www-form-urlencoded";
      headers["content-length"] = Buffer.byteLength(opts.body);
    }
    const req = httpRequest({ host: url.hostname, port: url.port, method, path: pathAndQuery, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }));
    });
    req.on("error", reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/**
 * Zulip's envelope: success, or an error with a message and a code, under 500. (Zulip's 405
 * alone has no code: it lists the allowed methods instead.)
 */
function envelopeProblem(a: Answer, o?: Operation): string | null {
  if (a.status >= 500) return `status ${a.status}: ${a.text.slice(0, 300)}`;
  if (o && PAGE_ANSWERS.has(o.operationId)) return null;
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(a.text);
  } catch {
    return `status ${a.status}, not JSON: ${a.text.slice(0, 300)}`;
  }
  if (body.result === "success" && a.status === 200) return null;
  if (a.status === 405 && body.msg === "Method Not Allowed" && Array.isArray(body.allowed_methods)) return null;
  if (body.result !== "error" || typeof body.msg !== "string" || typeof body.code !== "string") {
    return `status ${a.status}, not Zulip's error envelope: ${a.text.slice(0, 300)}`;
  }
  return null;
}

function fillPath(o: Operation, values: Record<string, string>): string {
  return o.path.replace(/\{([^}]+)\}/g, (_, name: string) => values[name] ?? "1");
}

function exampleText(example: unknown): string | undefined {
  if (example === undefined) return undefined;
  return typeof example === "string" ? example : JSON.stringify(example);
}

async function call(o: Operation, path: string, params: Record<string, string>): Promise<Answer> {
  const form = encodeParams(params).toString();
  const route = `/api/v1${path}`;
  if (o.method === "GET") return send("GET", form ? `${route}?${form}` : route, { auth: t.owner });
  return send(o.method, route, { body: form, auth: t.owner });
}

const fuzzed = () => operations().filter((o) => !(o.operationId in SKIPPED));

describe("every operation, every parameter, malformed values", () => {
  test("path parameters out of range or of the wrong shape are Zulip errors", async () => {
    const problems: string[] = [];
    for (const o of fuzzed()) {
      const names = parameters(o.op).filter((p) => p.in === "path").map((p) => p.name);
      for (const name of names) {
        for (const value of PATH_VALUES) {
          const a = await call(o, fillPath(o, { [name]: value }), {});
          const problem = envelopeProblem(a, o);
          if (problem) problems.push(`${o.method} ${o.path} ${name}=${value.slice(0, 20)}: ${problem}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  test("small malformed values in each parameter are Zulip errors", async () => {
    const problems: string[] = [];
    for (const o of fuzzed()) {
      const params = parameters(o.op).filter((p) => p.in !== "path");
      const examples = Object.fromEntries(params.flatMap((p) => (exampleText(p.example) === undefined ? [] : [[p.name, exampleText(p.example)!]])));
      for (const p of params) {
        for (const value of MALFORMED) {
          const a = await call(o, fillPath(o, {}), { ...examples, [p.name]: value });
          const problem = envelopeProblem(a, o);
          if (problem) problems.push(`${o.method} ${o.path} ${p.name}=${JSON.stringify(value).slice(0, 40)}: ${problem}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  test("huge strings, huge lists and deep nesting in each parameter are Zulip errors", async () => {
    const problems: string[] = [];
    for (const o of fuzzed()) {
      const params = parameters(o.op).filter((p) => p.in !== "path");
      const examples = Object.fromEntries(params.flatMap((p) => (exampleText(p.example) === undefined ? [] : [[p.name, exampleText(p.example)!]])));
      for (const p of params) {
        for (const [label, value] of largeFor(o, p.type)) {
          const a = await call(o, fillPath(o, {}), { ...examples, [p.name]: value });
          const problem = envelopeProblem(a, o);
          if (problem) problems.push(`${o.method} ${o.path} ${p.name}=${label}: ${problem}`);
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  test("the organization's owner can still work after the walk", async () => {
    await ok(new Api(srv.url, t.owner).get("/users/me"));
  });
});

describe("input that fails before any route", () => {
  const cases: [label: string, method: string, path: string, opts: Parameters<typeof send>[2]][] = [
    ["bad percent-encoding in the path", "GET", "/api/v1/users/%E0%A4%A", {}],
    ["bad percent-encoding in the query", "GET", "/api/v1/messages?anchor=%E0%A4%A", {}],
    ["an over-long path parameter", "GET", `/api/v1/users/${"9".repeat(5000)}`, {}],
    ["a 16 KB query string", "GET", `/api/v1/users/me?${"a=b&".repeat(4096)}`, {}],
    ["a 20 KB header", "GET", "/api/v1/users/me", { headers: { "x-filler": "a".repeat(20 * 1024) } }],
    ["multipart without a boundary", "POST", "/api/v1/messages", { body: "x", headers: { "content-type": "multipart/form-data" } }],
    ["a truncated multipart body", "POST", "/api/v1/messages", { body: "--b\r\ncontent-disposition: form-data; name=\"a\"\r\n\r\nx", headers: { "content-type": "multipart/form-data; boundary=b" } }],
    ["a form body in a charset nobody uses", "POST", "/api/v1/messages", { body: "a=b", headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-77" } }],
    ["bad percent-encoding in a form body", "POST", "/api/v1/messages", { body: "type=%E0%A4%A&to=%" }],
    ["a JSON body", "POST", "/api/v1/messages", { body: "{\"type\":", headers: { "content-type": "application/json" } }],
    ["an unknown route", "GET", "/api/v1/no/such/route", {}],
    ["an unknown route with a huge query", "GET", `/api/v1/nowhere?${"a".repeat(12000)}`, {}],
  ];
  for (const [label, method, path, opts] of cases) {
    test(`${label}: Zulip's error envelope, without echoing the URL`, async () => {
      const a = await send(method, path, { auth: t.owner, ...opts });
      assert.equal(envelopeProblem(a), null);
      assert.ok(a.status >= 400, `status ${a.status}`);
      assert.ok(a.text.length < 1000, `a ${a.text.length}-character answer`);
    });
  }
});
