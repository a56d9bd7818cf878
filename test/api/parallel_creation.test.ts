/**
 * Parallel requests that create or rename to the same name: exactly one succeeds, the others get
 * the error a later request would get, and one row exists. SQLite runs writers one at a time;
 * on PostgreSQL (the --pg suite) the transactions really overlap and the unique indexes decide.
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm } from "../helpers/realm.js";
import { ok } from "../helpers/channels.js";

let srv: TestServer;
let t: TestRealm;
let owner: Api;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  owner = new Api(srv.url, t.owner);
});
after(() => srv.close());

const PARALLEL = 5;

async function race(request: () => Promise<ApiResponse>): Promise<ApiResponse[]> {
  return Promise.all(Array.from({ length: PARALLEL }, request));
}

function oneWins(answers: ApiResponse[], msg: string, status = 400) {
  const wins = answers.filter((a) => a.status === 200);
  assert.equal(wins.length, 1, JSON.stringify(answers.map((a) => a.body)));
  for (const a of answers.filter((x) => x.status !== 200)) {
    assert.equal(a.status, status, JSON.stringify(a.body));
    assert.equal(a.body.msg, msg);
  }
}

const count = async (table: "streams" | "user_groups" | "channel_folders" | "custom_profile_fields" | "realm_linkifiers", column: string, value: string) =>
  (await srv.app.db.selectFrom(table).select("id").where("realm_id", "=", t.realm.id).where(column as never, "=", value as never).execute()).length;

describe("parallel creations of one name", () => {
  test("channels", async () => {
    oneWins(await race(() => owner.post("/channels/create", { name: "twin", subscribers: [t.owner.id] })), "Channel 'twin' already exists", 409);
    assert.equal(await count("streams", "name", "twin"), 1);
  });

  test("user groups", async () => {
    oneWins(await race(() => owner.post("/user_groups/create", { name: "twins", description: "", members: [t.owner.id] })), "User group 'twins' already exists.");
    assert.equal(await count("user_groups", "name", "twins"), 1);
  });

  test("channel folders", async () => {
    oneWins(await race(() => owner.post("/channel_folders/create", { name: "Twin folder", description: "" })), "Channel folder 'Twin folder' already exists");
    assert.equal(await count("channel_folders", "name", "Twin folder"), 1);
  });

  test("custom profile fields", async () => {
    oneWins(await race(() => owner.post("/realm/profile_fields", { name: "Twin field", field_type: 1 })), "A field with that label already exists.");
    assert.equal(await count("custom_profile_fields", "name", "Twin field"), 1);
  });

  test("linkifiers", async () => {
    const answers = await race(() => owner.post("/realm/filters", { pattern: "TWIN-(?P<id>[0-9]+)", url_template: "https://example.com/{id}" }));
    oneWins(answers, "Realm filter with this Realm and Pattern already exists.");
    assert.equal(await count("realm_linkifiers", "pattern", "TWIN-(?P<id>[0-9]+)"), 1);
  });
});

describe("parallel renames to one name", () => {
  test("channels", async () => {
    const ids: number[] = [];
    for (let i = 0; i < PARALLEL; i++) ids.push((await ok(owner.post("/channels/create", { name: `rename me ${i}`, subscribers: [t.owner.id] }))).id);
    let next = 0;
    oneWins(await race(() => owner.patch(`/streams/${ids[next++]}`, { new_name: "renamed twin" })), "Channel 'renamed twin' already exists", 409);
    assert.equal(await count("streams", "name", "renamed twin"), 1);
  });

  test("user groups", async () => {
    const ids: number[] = [];
    for (let i = 0; i < PARALLEL; i++) ids.push((await ok(owner.post("/user_groups/create", { name: `group ${i}`, description: "", members: [t.owner.id] }))).group_id);
    let next = 0;
    oneWins(await race(() => owner.patch(`/user_groups/${ids[next++]}`, { name: "renamed twins" })), "User group 'renamed twins' already exists.");
    assert.equal(await count("user_groups", "name", "renamed twins"), 1);
  });
});
