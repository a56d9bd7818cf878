/**
 * Compressed answers: brotli or gzip as the client's Accept-Encoding prefers, only above 1 KB,
 * the same JSON once inflated; a compressed request body is not inflated.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { brotliDecompressSync, gunzipSync, gzipSync } from "node:zlib";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";

let srv: TestServer;
let t: TestRealm;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
});
after(() => srv.close());

interface Raw {
  status: number;
  encoding: string | undefined;
  vary: string | undefined;
  body: Buffer;
}

/** One request with exactly the headers given (fetch would add and undo its own Accept-Encoding). */
function raw(u: TestUser, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Raw> {
  const auth = "Basic " + Buffer.from(`${u.email}:${u.apiKey}`).toString("base64");
  return new Promise((resolve, reject) => {
    const req = http.request(`${srv.url}/api/v1${path}`, { method, headers: { authorization: auth, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode!,
          encoding: res.headers["content-encoding"],
          vary: res.headers.vary as string | undefined,
          body: Buffer.concat(chunks),
        }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

const form = { "content-type": "application/x-www-form-urlencoded" };

test("a large answer comes as brotli or gzip, whichever the client prefers, and inflates to the same JSON", async () => {
  const plain = await raw(t.member, "POST", "/register", { ...form, "accept-encoding": "identity" }, Buffer.from("fetch_event_types=[\"realm_user\",\"subscription\"]"));
  assert.equal(plain.status, 200);
  assert.equal(plain.encoding, undefined);
  const expected = JSON.parse(plain.body.toString());
  assert.ok(plain.body.length > 1024, "register answers more than the threshold");

  for (const [accept, want, inflate] of [
    ["gzip, deflate, br", "br", brotliDecompressSync],
    ["gzip;q=1.0, br;q=0.5", "gzip", gunzipSync],
    ["gzip", "gzip", gunzipSync],
  ] as const) {
    const r = await raw(t.member, "POST", "/register", { ...form, "accept-encoding": accept }, Buffer.from("fetch_event_types=[\"realm_user\",\"subscription\"]"));
    assert.equal(r.encoding, want, accept);
    assert.match(r.vary ?? "", /accept-encoding/i);
    assert.ok(r.body.length < plain.body.length / 2, `${want} is at least halved`);
    const got = JSON.parse(inflate(r.body).toString());
    assert.deepEqual({ ...got, queue_id: null }, { ...expected, queue_id: null });
  }
});

test("small answers and errors under 1 KB go out as they are", async () => {
  const me = await raw(t.member, "GET", "/users/me/alert_words", { "accept-encoding": "br, gzip" });
  assert.equal(me.status, 200);
  assert.equal(me.encoding, undefined);
  assert.deepEqual(JSON.parse(me.body.toString()), { result: "success", msg: "", alert_words: [] });
  const bad = await raw(t.member, "GET", "/messages/999999999", { "accept-encoding": "br, gzip" });
  assert.equal(bad.encoding, undefined);
  assert.equal(JSON.parse(bad.body.toString()).result, "error");
});

test("a gzip-encoded request body is not inflated: its parameters are not read", async () => {
  const body = gzipSync(Buffer.from("alert_words=[\"zipped\"]"));
  const r = await raw(t.member, "POST", "/users/me/alert_words", { ...form, "content-encoding": "gzip" }, body);
  assert.equal(r.status, 400);
  const got = await raw(t.member, "GET", "/users/me/alert_words", {});
  assert.deepEqual(JSON.parse(got.body.toString()).alert_words, []);
});
