/**
 * `server_emoji_data_url` from register serves Zulip's emoji data, as the mobile app's
 * ServerEmojiData parses it: `code_to_names`, each code's names with the canonical one first,
 * fetched without credentials.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { Api } from "../helpers/client.js";
import { emojiCodeForName, emojiNameForCode } from "../../src/markdown/emoji.js";

let srv: TestServer;
let t: TestRealm;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
});
after(() => srv.close());

test("the URL register gives serves every emoji code with its names, canonical first, to anyone", async () => {
  const state = await new Api(srv.url, t.member).post("/register", { fetch_event_types: ["realm"] });
  // The organization's URL is not this test server's address; the path is what the server serves.
  const url = new URL(String(state.body.server_emoji_data_url));
  assert.equal(url.pathname, "/static/generated/emoji/emoji_api.json");
  const res = await fetch(`${srv.url}${url.pathname}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/json/);
  const body = (await res.json()) as { code_to_names: Record<string, string[]> };
  assert.deepEqual(Object.keys(body), ["code_to_names"]);
  const entries = Object.entries(body.code_to_names);
  assert.ok(entries.length > 1000);
  for (const [code, names] of entries) {
    assert.ok(Array.isArray(names) && names.length > 0 && names.every((n) => typeof n === "string"), code);
    assert.equal(names[0], emojiNameForCode(code), `${code}'s canonical name comes first`);
    for (const name of names) assert.equal(emojiCodeForName(name), code, `${name} names ${code}`);
    assert.equal(new Set(names).size, names.length, `${code} lists each name once`);
  }
  assert.equal(body.code_to_names["1f44d"]![0], emojiNameForCode("1f44d"));
  assert.ok(body.code_to_names["1f44d"]!.includes("+1"), "aliases are listed too");
});
