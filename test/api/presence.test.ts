import { test, before, after, describe, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { ManualTime } from "../helpers/time.js";
import type { Notice } from "../../src/events/bus.js";
import { doSetPresenceEnabled } from "../../src/actions/presence.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";
import { getUserById } from "../../src/store/users.js";
import { addSubscriptions } from "../../src/store/subscriptions.js";
import type { Realm } from "../../src/store/realms.js";
import { restrictUserAccessToMembers } from "../helpers/event_queues.js";

let time: ManualTime;
let srv: TestServer;
let notices: Notice[];

before(async () => {
  time = new ManualTime(1_800_000_000);
  srv = await startTestServer({}, { clock: time, timers: time });
  srv.app.bus.subscribe((n) => notices.push(n));
});
after(() => srv.close());
beforeEach(() => {
  notices = [];
});

let realmCount = 0;
/** Each test gets a fresh organization, so presence data starts empty. */
async function freshRealm(): Promise<TestRealm> {
  return createTestRealm(srv.app, `presence${++realmCount}`);
}

const api = (u: TestUser) => new Api(srv.url, u);
const report = (u: TestUser, params: Record<string, unknown> = {}) =>
  api(u).post("/users/me/presence", { status: "active", ...params } as never);
const presenceNotices = () => notices.filter((n) => n.event.type === "presence");
const activeUserIds = async (realm: Realm) =>
  (await srv.app.db.selectFrom("users").select("id").where("realm_id", "=", realm.id).where("is_active", "=", 1).orderBy("id").execute()).map(
    (r) => r.id,
  );
const apiEmail = async (u: TestUser) => (await srv.app.db.selectFrom("users").select("email").where("id", "=", u.id).executeTakeFirstOrThrow()).email;
const now = () => Math.floor(time.now());

describe("POST /users/me/presence", () => {
  test("records the report and returns everyone's presence in the legacy format", async () => {
    const t = await freshRealm();
    // Never having been active counts as active when one joined: let that be long ago.
    time.advance(86400);
    await report(t.member2, { status: "idle" });
    time.advance(10);
    const r = await report(t.member);
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), ["msg", "presence_last_update_id", "presences", "result", "server_timestamp"]);
    assert.equal(r.body.server_timestamp, time.now());
    assert.equal(r.body.presence_last_update_id, 2);
    const me = await apiEmail(t.member);
    const other = await apiEmail(t.member2);
    assert.deepEqual(r.body.presences[me], {
      aggregated: { client: "website", status: "active", timestamp: now() },
      website: { client: "website", status: "active", timestamp: now(), pushable: false },
    });
    assert.deepEqual(r.body.presences[other].aggregated, { client: "website", status: "idle", timestamp: now() - 10 });
    assert.equal(Object.keys(r.body.presences).length, 2);
  });

  test("slim_presence gives the modern format keyed by user id", async () => {
    const t = await freshRealm();
    await report(t.member2, { status: "idle" });
    const r = await report(t.member, { slim_presence: true });
    assert.deepEqual(r.body.presences, {
      [String(t.member.id)]: { active_timestamp: now(), idle_timestamp: now() },
      [String(t.member2.id)]: { active_timestamp: Number(t.realm.date_created), idle_timestamp: now() },
    });
  });

  test("last_update_id: modern format, -1 fetches everything, then only what changed", async () => {
    const t = await freshRealm();
    let r = await report(t.member, { last_update_id: -1 });
    assert.deepEqual(Object.keys(r.body.presences), [String(t.member.id)]);
    const first = r.body.presence_last_update_id;
    assert.equal(first, 1);
    // Nothing new: the same id comes back, with no data.
    time.advance(10);
    r = await report(t.member, { last_update_id: first });
    assert.deepEqual(r.body.presences, {});
    assert.equal(r.body.presence_last_update_id, first);
    await report(t.member2);
    r = await report(t.member, { last_update_id: first });
    assert.deepEqual(Object.keys(r.body.presences), [String(t.member2.id)]);
    assert.equal(r.body.presence_last_update_id, 2);
  });

  test("presence_last_update_id is -1 only when no id was sent and nothing returned", async () => {
    const t = await freshRealm();
    let r = await report(t.member, { history_limit_days: 0 });
    assert.deepEqual(r.body.presences, {});
    assert.equal(r.body.presence_last_update_id, -1);
    r = await report(t.member, { history_limit_days: 0, last_update_id: 7 });
    assert.equal(r.body.presence_last_update_id, 7);
  });

  test("history_limit_days (14 by default) bounds old data, unless last_update_id is positive", async () => {
    const t = await freshRealm();
    await report(t.member2);
    time.advance(20 * 86400);
    let r = await report(t.member, { slim_presence: true });
    assert.deepEqual(Object.keys(r.body.presences), [String(t.member.id)]);
    r = await report(t.member, { slim_presence: true, history_limit_days: 30 });
    assert.deepEqual(Object.keys(r.body.presences).sort(), [String(t.member.id), String(t.member2.id)].sort());
    r = await report(t.member, { last_update_id: 0, history_limit_days: 1 });
    assert.deepEqual(Object.keys(r.body.presences), [String(t.member.id)]);
    r = await report(t.member, { last_update_id: 0, history_limit_days: 0 });
    assert.deepEqual(r.body.presences, {});
    // A positive id means the client holds data already: age no longer matters.
    r = await report(t.member, { last_update_id: 0, history_limit_days: 1 });
    const id = r.body.presence_last_update_id;
    await srv.app.db.updateTable("user_presence").set({ last_update_id: id + 1 }).where("user_id", "=", t.member2.id).execute();
    r = await report(t.member, { last_update_id: id, history_limit_days: 1 });
    assert.deepEqual(Object.keys(r.body.presences), [String(t.member2.id)]);
  });

  test("ping_only records the report but returns no data; new_user_input is accepted", async () => {
    const t = await freshRealm();
    const r = await report(t.member, { ping_only: true, new_user_input: true });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    const row = await srv.app.db.selectFrom("user_presence").selectAll().where("user_id", "=", t.member.id).executeTakeFirst();
    assert.equal(row?.last_active_time, now());
  });

  test("times move no more often than every 55 s; idle reports keep the last active time", async () => {
    const t = await freshRealm();
    await report(t.member);
    const active = now();
    time.advance(30);
    await report(t.member, { status: "idle" });
    time.advance(60);
    const r = await report(t.member, { status: "idle", slim_presence: true });
    assert.deepEqual(r.body.presences[String(t.member.id)], { active_timestamp: active, idle_timestamp: now() });
    time.advance(30);
    const legacy = await report(t.member2);
    assert.deepEqual(legacy.body.presences[await apiEmail(t.member)].aggregated, { client: "website", status: "idle", timestamp: now() - 30 });
  });

  test("every human role may report; the other organization stays apart", async () => {
    const t = await freshRealm();
    const o = await freshRealm();
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest]) {
      assert.equal((await report(u)).status, 200, u.email);
    }
    await report(o.member);
    const r = await report(t.member, { slim_presence: true });
    assert.deepEqual(
      Object.keys(r.body.presences).map(Number).sort((a, b) => a - b),
      [t.owner.id, t.admin.id, t.moderator.id, t.member.id, t.guest.id].sort((a, b) => a - b),
    );
  });

  test("bots, bad statuses and bad parameters are refused without recording anything", async () => {
    const t = await freshRealm();
    let r = await api(t.bot).post("/users/me/presence", {});
    assert.deepEqual(r.body, { result: "error", msg: "This endpoint does not accept bot requests.", code: "BAD_REQUEST" });
    r = await api(t.member).post("/users/me/presence", {});
    assert.deepEqual(r.body, { result: "error", msg: "Missing 'status' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "status" });
    r = await report(t.member, { status: "away" });
    assert.deepEqual(r.body, { result: "error", msg: "Invalid status: away", code: "BAD_REQUEST" });
    r = await report(t.member, { last_update_id: "x" });
    assert.equal(r.body.msg, "last_update_id is not valid JSON");
    r = await report(t.member, { history_limit_days: 1.5 });
    assert.equal(r.body.msg, "history_limit_days is not an integer");
    r = await report(t.member, { ping_only: "yes" });
    assert.equal(r.body.msg, "ping_only is not valid JSON");
    const rows = await srv.app.db.selectFrom("user_presence").select("user_id").where("realm_id", "=", t.realm.id).execute();
    assert.deepEqual(rows, []);
    assert.deepEqual(presenceNotices(), []);
  });

  test("an organization with presence disabled shares nothing", async () => {
    const t = await freshRealm();
    const props = { ...t.realm.props, presence_disabled: true };
    await srv.app.db.updateTable("realms").set({ props: JSON.stringify(props) }).where("id", "=", t.realm.id).execute();
    const r = await report(t.member, { last_update_id: -1 });
    assert.deepEqual(r.body.presences, {});
    assert.equal(r.body.presence_last_update_id, -1);
    assert.deepEqual(presenceNotices(), []);
  });
});

describe("presence events", () => {
  test("coming online is announced to every active user of the organization, after the write", async () => {
    const t = await freshRealm();
    await report(t.member);
    const [n] = presenceNotices();
    assert.deepEqual(n.userIds, await activeUserIds(t.realm));
    assert.deepEqual(n.event, {
      type: "presence",
      user_id: t.member.id,
      email: await apiEmail(t.member),
      server_timestamp: time.now(),
      presence: { website: { client: "website", status: "active", timestamp: now(), pushable: false } },
      presences: { [String(t.member.id)]: { active_timestamp: now(), idle_timestamp: now() } },
    });
  });

  test("only the first report and coming back after 130 s of absence are announced", async () => {
    const t = await freshRealm();
    await report(t.member);
    time.advance(60);
    await report(t.member);
    time.advance(60);
    await report(t.member, { status: "idle" });
    assert.equal(presenceNotices().length, 1);
    time.advance(131);
    await report(t.member);
    assert.equal(presenceNotices().length, 2);
  });

  test("organizations above 100 users get no such announcements", async () => {
    const t = await freshRealm();
    await runAction(srv.app, async (tx) => {
      for (let i = 0; i < 100; i++) {
        await createUserInTx(tx, srv.app, t.realm, { email: `extra${i}@big.example.com`, fullName: `Extra ${i}`, role: 400 });
      }
    });
    await report(t.member);
    assert.deepEqual(presenceNotices(), []);
  });

  test("each queue gets the format its client registered for", async () => {
    const t = await freshRealm();
    const register = async (params: Record<string, unknown>) => (await api(t.member2).post("/register", { event_types: ["presence"], ...params } as never)).body.queue_id as string;
    const legacy = await register({});
    const slim = await register({ slim_presence: true });
    const modern = await register({ client_capabilities: { notification_settings_null: true, simplified_presence_events: true } });
    await report(t.member);
    const events = async (queueId: string) =>
      (await api(t.member2).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true })).body.events;
    const [l] = await events(legacy);
    assert.deepEqual(Object.keys(l).sort(), ["email", "id", "presence", "server_timestamp", "type", "user_id"]);
    const [s] = await events(slim);
    assert.deepEqual(Object.keys(s).sort(), ["id", "presence", "server_timestamp", "type", "user_id"]);
    const [m] = await events(modern);
    assert.deepEqual(m, { type: "presence", presences: { [String(t.member.id)]: { active_timestamp: now(), idle_timestamp: now() } }, id: 0 });
  });
});

describe("invisible mode", () => {
  test("a user who stops sharing presence looks offline to others, and their reports are ignored", async () => {
    const t = await freshRealm();
    time.advance(86400);
    await report(t.member);
    notices = [];
    const user = (await getUserById(srv.app.db, t.realm.id, t.member.id))!;
    await doSetPresenceEnabled(srv.app, t.realm, user, false);
    const since = now() - 320;
    const [announced] = presenceNotices();
    assert.deepEqual(announced.event.presences, { [String(t.member.id)]: { active_timestamp: Number(user.date_joined), idle_timestamp: since } });
    const settings = notices.filter((n) => n.event.type === "user_settings");
    assert.deepEqual(settings.map((n) => [n.userIds, n.event]), [
      [[t.member.id], { type: "user_settings", op: "update", property: "presence_enabled", value: false }],
    ]);

    time.advance(100);
    notices = [];
    const own = await report(t.member, { slim_presence: true });
    assert.deepEqual(presenceNotices(), []);
    assert.deepEqual(own.body.presences[String(t.member.id)], { active_timestamp: Number(user.date_joined), idle_timestamp: since });
    const seen = await report(t.member2);
    const legacy = seen.body.presences[await apiEmail(t.member)];
    assert.equal(legacy.aggregated.status, "idle");
    assert.equal(legacy.aggregated.timestamp, since);
    const single = await api(t.member2).get(`/users/${t.member.id}/presence`);
    assert.equal(single.body.presence.aggregated.status, "offline");

    await doSetPresenceEnabled(srv.app, t.realm, (await getUserById(srv.app.db, t.realm.id, t.member.id))!, true);
    const back = await report(t.member2, { slim_presence: true });
    assert.deepEqual(back.body.presences[String(t.member.id)], { active_timestamp: now(), idle_timestamp: now() });
  });
});

describe("limiting presence to accessible users (CAN_ACCESS_ALL_USERS_GROUP_LIMITS_PRESENCE)", () => {
  test("a guest who cannot access everyone sees and hears only people they share a channel with", async () => {
    const limited = await startTestServer({ presenceLimitedToAccessibleUsers: true }, { clock: time, timers: time });
    try {
      const t = await createTestRealm(limited.app, "limited");
      await restrictUserAccessToMembers(limited.app, t.realm.id);
      const channel = await limited.app.db.selectFrom("streams").select("id").where("realm_id", "=", t.realm.id).executeTakeFirstOrThrow();
      await addSubscriptions(limited.app.db, channel.id, [t.guest.id, t.member.id]);

      const heard: Notice[] = [];
      limited.app.bus.subscribe((n) => heard.push(n));
      const as = (u: TestUser) => new Api(limited.url, u);
      for (const u of [t.member, t.member2]) await as(u).post("/users/me/presence", { status: "active" });
      const toGuest = heard.filter((n) => n.userIds.includes(t.guest.id)).map((n) => n.event.user_id);
      assert.deepEqual(toGuest, [t.member.id]);
      assert.ok(heard.every((n) => n.userIds.includes(t.owner.id)));

      const r = await as(t.guest).post("/users/me/presence", { status: "active", slim_presence: true });
      assert.deepEqual(Object.keys(r.body.presences).map(Number).sort(), [t.member.id, t.guest.id].sort());
      const owner = await as(t.owner).post("/users/me/presence", { status: "active", slim_presence: true });
      assert.equal(Object.keys(owner.body.presences).length, 4);
      const hidden = await as(t.guest).get(`/users/${t.member2.id}/presence`);
      assert.deepEqual(hidden.body, { result: "error", msg: "Insufficient permission", code: "BAD_REQUEST" });
      assert.equal((await as(t.guest).get(`/users/${t.member.id}/presence`)).status, 200);
    } finally {
      await limited.close();
    }
  });

  test("without the setting everyone sees everyone", async () => {
    const t = await freshRealm();
    await report(t.member2);
    const r = await report(t.guest, { slim_presence: true });
    assert.ok(String(t.member2.id) in r.body.presences);
  });
});

describe("GET /realm/presence", () => {
  test("everyone's presence in the legacy format, without an update id", async () => {
    const t = await freshRealm();
    await report(t.member);
    for (const u of [t.owner, t.member2, t.guest, t.bot]) {
      const r = await api(u).get("/realm/presence");
      assert.equal(r.status, 200, u.email);
      assert.deepEqual(Object.keys(r.body).sort(), ["msg", "presences", "result", "server_timestamp"]);
      assert.deepEqual(Object.keys(r.body.presences), [await apiEmail(t.member)]);
    }
  });
});

describe("GET /users/{user_id_or_email}/presence", () => {
  test("one user's presence by id or API email; offline in the aggregate once silent long enough", async () => {
    const t = await freshRealm();
    await report(t.member);
    const at = now();
    let r = await api(t.member2).get(`/users/${t.member.id}/presence`);
    assert.deepEqual(r.body, {
      result: "success",
      msg: "",
      presence: { aggregated: { status: "active", timestamp: at }, website: { status: "active", timestamp: at } },
    });
    r = await api(t.bot).get(`/users/${encodeURIComponent(await apiEmail(t.member))}/presence`);
    assert.equal(r.body.presence.aggregated.status, "active");
    r = await api(t.member2).get(`/users/${t.member.id}/presence`, { slim_presence: true });
    assert.deepEqual(r.body.presence, { active_timestamp: at, idle_timestamp: at });
    time.advance(201);
    r = await api(t.member2).get(`/users/${t.member.id}/presence`);
    assert.deepEqual(r.body.presence, { aggregated: { status: "offline", timestamp: at }, website: { status: "active", timestamp: at } });
  });

  test("unknown, deactivated, bot, foreign and silent users", async () => {
    const t = await freshRealm();
    const o = await freshRealm();
    await report(o.member);
    const cases: [string, string][] = [
      ["999999", "No such user"],
      ["nobody@example.com", "No such user"],
      [String(o.member.id), "No such user"],
      [String(t.bot.id), "Presence is not supported for bot users."],
      [String(t.member2.id), `No presence data for ${t.member2.id}`],
    ];
    for (const [key, msg] of cases) {
      const r = await api(t.member).get(`/users/${encodeURIComponent(key)}/presence`);
      assert.deepEqual(r.body, { result: "error", msg, code: "BAD_REQUEST" }, key);
    }
    await report(t.member2);
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    const r = await api(t.member).get(`/users/${t.member2.id}/presence`);
    assert.equal(r.body.msg, "No such user");
  });

  test("GET is the only method on it; POST /users/me/presence is the only method there", async () => {
    const t = await freshRealm();
    const r = await api(t.member).get("/users/me/presence");
    assert.equal(r.status, 405);
  });
});

describe("the presence section of POST /register", () => {
  test("honors slim_presence, simplified_presence_events and presence_history_limit_days", async () => {
    const t = await freshRealm();
    await report(t.member2);
    time.advance(3 * 86400);
    await report(t.member);
    const register = async (params: Record<string, unknown>) =>
      (await api(t.member).post("/register", { fetch_event_types: ["presence"], ...params } as never)).body;
    let body = await register({});
    assert.deepEqual(Object.keys(body.presences).sort(), [await apiEmail(t.member), await apiEmail(t.member2)].sort());
    assert.equal(body.presence_last_update_id, 2);
    assert.equal(body.server_timestamp, time.now());
    body = await register({ slim_presence: true, presence_history_limit_days: 1 });
    assert.deepEqual(Object.keys(body.presences), [String(t.member.id)]);
    body = await register({ client_capabilities: { notification_settings_null: true, simplified_presence_events: true } });
    assert.deepEqual(body.presences[String(t.member.id)], { active_timestamp: now(), idle_timestamp: now() });
  });
});
