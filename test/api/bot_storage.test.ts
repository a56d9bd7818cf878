/**
 * /bot_storage as the zulip_bots framework's StateHandler uses it: only bots, each with a store
 * of its own; Zulip's errors, the size limit, and all-or-nothing writes and removals.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { expectError, expectSuccess } from "../helpers/expect.js";
import { USER_STATE_SIZE_LIMIT } from "../../src/domain/bots.js";

let srv: TestServer;
let api: Api;
let t: TestRealm;
let other: TestRealm;

before(async () => {
  srv = await startTestServer();
  api = new Api(srv.url);
  t = await createTestRealm(srv.app);
  other = await createTestRealm(srv.app, "other");
});
after(() => srv.close());

const as = (u: TestUser) => api.as(u);
async function ok(r: Promise<ApiResponse>): Promise<Record<string, any>> {
  const res = await r;
  expectSuccess(res);
  return res.body;
}
const storageOf = async (u: TestUser) => (await ok(as(u).get("/bot_storage"))).storage;
const put = (u: TestUser, storage: Record<string, unknown>) => as(u).call("PUT", "/bot_storage", { storage: JSON.stringify(storage) });

test("people of every role are refused: only bots have a storage", async () => {
  for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest]) {
    expectError(await put(u, {}), "Must be a bot user");
    expectError(await as(u).get("/bot_storage"), "Must be a bot user");
    expectError(await as(u).delete("/bot_storage"), "Must be a bot user");
  }
});

test("a bot stores, reads, updates and removes entries; another organization's bot has its own store", async () => {
  await ok(put(t.bot, { "key 1": "value 1", "key 2": "value 2", "key 3": "value 3" }));
  assert.deepEqual((await ok(as(t.bot).get("/bot_storage", { keys: JSON.stringify(["key 1", "key 3"]) }))).storage, { "key 1": "value 1", "key 3": "value 3" });
  await ok(put(t.bot, { "key 1": "new value", "key 4": "value 4" }));
  assert.deepEqual(await storageOf(t.bot), { "key 1": "new value", "key 2": "value 2", "key 3": "value 3", "key 4": "value 4" });
  assert.deepEqual(await storageOf(other.bot), {});

  expectError(await as(t.bot).get("/bot_storage", { keys: JSON.stringify(["key 1", "nonexistent key"]) }), "Key does not exist.");
  expectError(await as(t.bot).get("/bot_storage", { keys: "key 1" }), "keys is not valid JSON");
  expectError(await put(t.bot, { foo: [1, 2, 3] }), 'storage["foo"] is not a string');
  expectError(await as(t.bot).call("PUT", "/bot_storage", {}), "Missing 'storage' argument", "REQUEST_VARIABLE_MISSING");

  await ok(as(t.bot).delete("/bot_storage", { keys: JSON.stringify(["key 1", "key 2"]) }));
  assert.deepEqual(await storageOf(t.bot), { "key 3": "value 3", "key 4": "value 4" });
  // One missing key: nothing is removed.
  expectError(await as(t.bot).delete("/bot_storage", { keys: JSON.stringify(["key 3", "nonexistent key"]) }), "Key does not exist.");
  assert.deepEqual(await storageOf(t.bot), { "key 3": "value 3", "key 4": "value 4" });
  await ok(as(t.bot).delete("/bot_storage"));
  assert.deepEqual(await storageOf(t.bot), {});
});

test("the store holds USER_STATE_SIZE_LIMIT characters of keys and values; a write past it stores nothing", async () => {
  const key = "capacity-filling entry";
  await ok(put(other.bot, { [key]: "x".repeat(USER_STATE_SIZE_LIMIT - key.length - 10) }));
  expectError(
    await put(other.bot, { small: "fits", "too much data": "a few bits too long" }),
    `Request exceeds storage limit by 31 characters. The limit is ${USER_STATE_SIZE_LIMIT} characters.`,
  );
  assert.deepEqual(Object.keys(await storageOf(other.bot)), [key]);
  // Replacing an entry counts only the difference.
  await ok(put(other.bot, { [key]: "x".repeat(USER_STATE_SIZE_LIMIT - key.length) }));
  await ok(as(other.bot).delete("/bot_storage"));
});

test("one request may write many entries at once, and replace some of them", async () => {
  const many = Object.fromEntries(Array.from({ length: 5_000 }, (_, i) => [`key ${i}`, `value ${i}`]));
  await ok(put(t.bot, many));
  await ok(put(t.bot, { "key 0": "changed", "key 4999": "changed too" }));
  const stored = await storageOf(t.bot);
  assert.equal(Object.keys(stored).length, 5_000);
  assert.deepEqual([stored["key 0"], stored["key 1"], stored["key 4999"]], ["changed", "value 1", "changed too"]);
  await ok(as(t.bot).delete("/bot_storage"));
});
