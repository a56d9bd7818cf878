import { test, before, after, describe, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { ok, refused } from "../helpers/channels.js";
import { restrictUserAccessToMembers } from "../helpers/event_queues.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
const setOwn = (u: TestUser, params: Record<string, unknown>) => api(u).post("/users/me/status", params as never);
const setFor = (u: TestUser, target: number, params: Record<string, unknown>) => api(u).post(`/users/${target}/status`, params as never);
const statusOf = async (u: TestUser, target: number) => (await ok(api(u).get(`/users/${target}/status`))).status;
const CAR = { emoji_name: "car", emoji_code: "1f697", reaction_type: "unicode_emoji" };
const humans = () => [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest];
const realmIds = () => [...humans(), t.bot].map((u) => u.id).sort((a, b) => a - b);
const rows = () => srv.app.db.selectFrom("user_status").selectAll().orderBy("user_id").execute();

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("user_status").execute();
  await srv.app.db.updateTable("users").set({ presence_enabled: 1 }).execute();
});

describe("POST /users/me/status", () => {
  test("any human sets their text and emoji; everyone who can see them is told", async () => {
    for (const u of humans()) {
      const log = new EventLog(srv);
      await ok(setOwn(u, { status_text: "  on vacation ", emoji_name: "car" }));
      assert.deepEqual(log.stop(), [
        { realmId: t.realm.id, event: { type: "user_status", user_id: u.id, status_text: "on vacation", ...CAR }, userIds: realmIds() },
      ]);
      assert.deepEqual(await statusOf(t.member, u.id), { status_text: "on vacation", ...CAR });
    }
    await refused(srv, () => setOwn(t.bot, { status_text: "beep" }), "This endpoint does not accept bot requests.");
  });

  test("only the fields sent change; empty values clear", async () => {
    await ok(setOwn(t.member, { status_text: "lunch", emoji_name: "car" }));
    let log = new EventLog(srv);
    await ok(setOwn(t.member, { status_text: "" }));
    assert.deepEqual(log.stop()[0].event, { type: "user_status", user_id: t.member.id, status_text: "" });
    assert.deepEqual(await statusOf(t.member2, t.member.id), CAR);
    log = new EventLog(srv);
    await ok(setOwn(t.member, { emoji_name: "" }));
    assert.deepEqual(log.stop()[0].event, { type: "user_status", user_id: t.member.id, emoji_name: "", emoji_code: "", reaction_type: "unicode_emoji" });
    assert.deepEqual(await statusOf(t.member2, t.member.id), {});
    await ok(setOwn(t.member, { emoji_name: "zulip" }));
    assert.deepEqual(await statusOf(t.member2, t.member.id), { emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" });
  });

  test("away is the inverse of presence_enabled, changed in the same step", async () => {
    const log = new EventLog(srv);
    await ok(setOwn(t.member, { away: true }));
    const types = log.stop().map((n) => n.event.type);
    assert.ok(types.includes("user_settings") && types.includes("user_status"), JSON.stringify(types));
    const user = await srv.app.db.selectFrom("users").select("presence_enabled").where("id", "=", t.member.id).executeTakeFirstOrThrow();
    assert.equal(user.presence_enabled, 0);
    assert.deepEqual(await statusOf(t.admin, t.member.id), { away: true });
    await ok(setOwn(t.member, { away: false }));
    assert.deepEqual(await statusOf(t.admin, t.member.id), {});
  });

  test("refuses what Zulip refuses, changing nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, "Client did not pass any new values."],
      // Only text, emoji name or away count as new values.
      [{ emoji_code: "1f697" }, "Client did not pass any new values."],
      [{ status_text: "x", reaction_type: "unicode_emoji" }, "Client must pass emoji_name if they pass either emoji_code or reaction_type."],
      [{ status_text: "x".repeat(61) }, "status_text is too long (limit: 60 characters)"],
      [{ emoji_name: "invalid" }, "Emoji 'invalid' does not exist"],
      [{ emoji_name: "car", emoji_code: "1f604", reaction_type: "unicode_emoji" }, "Invalid emoji name."],
      [{ emoji_name: "car", emoji_code: "ffff" }, "Invalid emoji code."],
      [{ emoji_name: "car", emoji_code: "12", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
      [{ emoji_name: "car", reaction_type: "sticker" }, "Invalid emoji type."],
    ];
    for (const [params, msg] of cases) {
      const before = await rows();
      await refused(srv, () => setOwn(t.member, params), msg);
      assert.deepEqual(await rows(), before);
    }
    await ok(setOwn(t.member, { status_text: ` ${"é".repeat(60)} ` }));
  });
});

describe("POST /users/{id}/status", () => {
  test("administrators set a human's status; nobody else may", async () => {
    for (const admin of [t.owner, t.admin]) {
      const log = new EventLog(srv);
      await ok(setFor(admin, t.member.id, { status_text: "in a meeting", emoji_name: "car" }));
      assert.deepEqual(log.stop(), [
        { realmId: t.realm.id, event: { type: "user_status", user_id: t.member.id, status_text: "in a meeting", ...CAR }, userIds: realmIds() },
      ]);
    }
    for (const u of [t.moderator, t.member2, t.guest]) await refused(srv, () => setFor(u, t.member.id, { status_text: "x" }), "Insufficient permission");
    await refused(srv, () => setFor(t.admin, t.bot.id, { status_text: "x" }), "No such user");
    await refused(srv, () => setFor(t.admin, o.member.id, { status_text: "x" }), "No such user");
    await refused(srv, () => setFor(t.admin, 2 ** 40, { status_text: "x" }), "No such user");
    await refused(srv, () => setFor(t.admin, t.member.id, {}), "Client did not pass any new values.");
    await refused(srv, () => setFor(o.owner, t.member.id, { status_text: "x" }), "No such user");
  });
});

describe("GET /users/{id}/status and the user_status register state", () => {
  test("an unset status is empty; bots and strangers are not users here", async () => {
    assert.deepEqual(await statusOf(t.guest, t.member.id), {});
    await refused(srv, () => api(t.member).get(`/users/${t.bot.id}/status`), "No such user");
    await refused(srv, () => api(t.member).get(`/users/${o.member.id}/status`), "No such user");
    await refused(srv, () => api(o.member).get(`/users/${t.member.id}/status`), "No such user");
  });

  test("register lists only non-default statuses, by id string, and applies queued events", async () => {
    await ok(setOwn(t.member, { status_text: "busy" }));
    await ok(setOwn(t.member2, { emoji_name: "car" }));
    await ok(setOwn(t.admin, { away: true }));
    await ok(setOwn(t.moderator, { status_text: "" }));
    const state = await ok(api(t.guest).post("/register", { fetch_event_types: JSON.stringify(["user_status"]) }));
    assert.deepEqual(state.user_status, {
      [t.admin.id]: { away: true },
      [t.member.id]: { status_text: "busy" },
      [t.member2.id]: CAR,
    });
    const queue = await ok(api(t.guest).post("/register", { event_types: JSON.stringify(["user_status"]) }));
    await ok(setOwn(t.member, { emoji_name: "car" }));
    const events = (await ok(api(t.guest).get("/events", { queue_id: queue.queue_id, last_event_id: -1 }))).events;
    assert.deepEqual(events, [{ id: 0, type: "user_status", user_id: t.member.id, ...CAR }]);
    const other = await ok(api(o.owner).post("/register", { fetch_event_types: JSON.stringify(["user_status"]) }));
    assert.deepEqual(other.user_status, {});
  });

  test("a guest who cannot see everyone gets only the statuses of users they can access", async () => {
    await ok(setOwn(t.member, { status_text: "busy" }));
    const restore = await restrictUserAccessToMembers(srv.app, t.realm.id);
    try {
      const log = new EventLog(srv);
      await ok(setOwn(t.member2, { status_text: "hidden" }));
      assert.equal(log.stop()[0].userIds.includes(t.guest.id), false);
      const state = await ok(api(t.guest).post("/register", { fetch_event_types: JSON.stringify(["user_status"]) }));
      assert.deepEqual(state.user_status, {});
      await refused(srv, () => api(t.guest).get(`/users/${t.member.id}/status`), "Insufficient permission");
    } finally {
      await restore();
    }
  });
});
