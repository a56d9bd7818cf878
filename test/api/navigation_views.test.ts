import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { expectError, expectRefusedUnchanged } from "../helpers/expect.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);
const allViews = () => srv.app.db.selectFrom("navigation_views").selectAll().orderBy("id").execute();

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("navigation_views").execute();
});

async function queue(u: TestUser) {
  const r = await api(u).post("/register", { fetch_event_types: ["navigation_views"], event_types: ["navigation_view"] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}
async function events(u: TestUser, queueId: string) {
  const r = await api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true });
  return r.body.events.filter((e: { type: string }) => e.type !== "heartbeat").map(({ id: _id, ...e }: Record<string, unknown>) => e);
}

describe("navigation views", () => {
  test("every kind of user adds, lists, updates and removes their own views; only their queues hear of it", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot, o.member]) {
      const mine = await queue(u);
      assert.deepEqual(mine.navigation_views, []);
      const others = await queue(u === t.member ? t.member2 : t.member);
      assert.equal((await api(u).post("/navigation_views", { fragment: " narrow/is/alerted ", is_pinned: true, name: " Alerts " })).body.result, "success");
      assert.equal((await api(u).post("/navigation_views", { fragment: "inbox", is_pinned: false })).body.result, "success");
      const listed = await api(u).get("/navigation_views");
      assert.deepEqual(listed.body, {
        result: "success",
        msg: "",
        navigation_views: [
          { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" },
          { fragment: "inbox", is_pinned: false, name: null },
        ],
      });
      assert.equal((await api(u).patch("/navigation_views/narrow/is/alerted", { is_pinned: false })).body.result, "success");
      assert.equal((await api(u).patch("/navigation_views/narrow%2Fis%2Falerted", { name: "Watched" })).body.result, "success");
      assert.equal((await api(u).delete("/navigation_views/inbox")).body.result, "success");
      assert.deepEqual((await api(u).get("/navigation_views")).body.navigation_views, [
        { fragment: "narrow/is/alerted", is_pinned: false, name: "Watched" },
      ]);
      assert.deepEqual(await events(u, mine.queue_id), [
        { type: "navigation_view", op: "add", navigation_view: { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" } },
        { type: "navigation_view", op: "add", navigation_view: { fragment: "inbox", is_pinned: false, name: null } },
        { type: "navigation_view", op: "update", fragment: "narrow/is/alerted", data: { is_pinned: false } },
        { type: "navigation_view", op: "update", fragment: "narrow/is/alerted", data: { name: "Watched" } },
        { type: "navigation_view", op: "remove", fragment: "inbox" },
      ]);
      assert.deepEqual(await events(u === t.member ? t.member2 : t.member, others.queue_id), []);
      assert.deepEqual((await queue(u)).navigation_views, [{ fragment: "narrow/is/alerted", is_pinned: false, name: "Watched" }]);
    }
  });

  test("views are personal: another user's fragment is not found", async () => {
    await api(t.member).post("/navigation_views", { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" });
    for (const u of [t.admin, t.member2, o.member]) {
      assert.deepEqual((await api(u).get("/navigation_views")).body.navigation_views, []);
      expectError(await api(u).patch("/navigation_views/narrow/is/alerted", { is_pinned: false }), "Navigation view does not exist.", "BAD_REQUEST", 404);
      expectError(await api(u).delete("/navigation_views/narrow/is/alerted"), "Navigation view does not exist.", "BAD_REQUEST", 404);
    }
    // The path is decoded once: a literal `%` in a fragment survives.
    assert.equal((await api(t.member).post("/navigation_views", { fragment: "search/100%", is_pinned: true, name: "Full" })).body.result, "success");
    assert.equal((await api(t.member).patch("/navigation_views/search%2F100%25", { is_pinned: false })).body.result, "success");
    assert.equal((await api(t.member).delete("/navigation_views/search/100%25")).body.result, "success");
    // Someone else's name does not clash with mine.
    assert.equal((await api(t.member2).post("/navigation_views", { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" })).body.result, "success");
  });

  test("refused requests change nothing and announce nothing", async () => {
    await api(t.member).post("/navigation_views", { fragment: "narrow/is/alerted", is_pinned: true, name: "Alerts" });
    const log = new EventLog(srv);
    const post = (p: Record<string, unknown>) => () => api(t.member).post("/navigation_views", p as never);
    const cases: [() => Promise<{ status: number; body: Record<string, any> }>, string][] = [
      [post({ fragment: "recent", is_pinned: true, name: "Mine" }), "Built-in views cannot have a custom name."],
      [post({ fragment: "narrow/is/dm", is_pinned: true }), "Custom views must have a valid name."],
      [post({ fragment: "narrow/is/dm", is_pinned: true, name: "  " }), "name cannot be blank"],
      [post({ fragment: "  ", is_pinned: true, name: "x" }), "fragment cannot be blank"],
      [post({ fragment: "narrow/is/alerted", is_pinned: false, name: "Other" }), "Navigation view already exists."],
      [post({ fragment: "narrow/is/dm", is_pinned: false, name: "Alerts" }), "Navigation view already exists."],
      [post({ fragment: "narrow/is/dm", is_pinned: "yes", name: "DMs" }), "is_pinned is not valid JSON"],
      [post({ fragment: "narrow/is/dm", is_pinned: 1, name: "DMs" }), "is_pinned is not a boolean"],
      [post({ fragment: "x".repeat(129), is_pinned: true, name: "x" }), "fragment is too long (limit: 128 characters)"],
      [() => api(t.member).patch("/navigation_views/inbox", { name: "Box" }), "Built-in views cannot have a custom name."],
      [() => api(t.member).patch("/navigation_views/narrow/is/dm", { name: "Alerts" }), "Navigation view already exists."],
    ];
    for (const [attempt, msg] of cases) await expectRefusedUnchanged(allViews, log, attempt, msg);
    const missing = await api(t.member).post("/navigation_views", { fragment: "narrow/is/dm", name: "DMs" });
    assert.deepEqual([missing.status, missing.body.code, missing.body.msg], [400, "REQUEST_VARIABLE_MISSING", "Missing 'is_pinned' argument"]);
    log.stop();
  });

  test("register returns the section only when asked for it", async () => {
    const without = await api(t.member).post("/register", { fetch_event_types: ["message"] });
    assert.equal("navigation_views" in without.body, false);
  });
});
