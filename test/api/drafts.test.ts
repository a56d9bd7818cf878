import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { runAction } from "../../src/actions/run.js";
import { createStreamInTx } from "../../src/actions/streams.js";
import { addSubscriptions } from "../../src/store/subscriptions.js";
import { draftsRegisterState } from "../../src/actions/drafts.js";

const NOW = 1700000000.75;

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let general: number;
let archived: number;
let secret: number;
let otherRealmChannel: number;

const api = (u: TestUser) => new Api(srv.url, u);

async function channelId(realmId: number, name: string): Promise<number> {
  const row = await srv.app.db
    .selectFrom("streams")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("name", "=", name)
    .executeTakeFirstOrThrow();
  return row.id;
}

const draftCount = async () =>
  Number((await srv.app.db.selectFrom("drafts").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);

function assertError(r: ApiResponse, status: number, msg: string, extra: Record<string, unknown> = {}) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: "error", msg, code: "BAD_REQUEST", ...extra });
}

const streamDraft = (over: Record<string, unknown> = {}) => ({
  type: "stream",
  to: [general],
  topic: "sync drafts",
  content: "Let's add backend support for syncing drafts.",
  timestamp: 1595479019,
  ...over,
});

async function createDraft(u: TestUser, draft: Record<string, unknown>): Promise<number> {
  const r = await api(u).post("/drafts", { drafts: [draft] });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.ids[0];
}

before(async () => {
  srv = await startTestServer({}, { clock: new ManualClock(NOW) });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  general = await channelId(t.realm.id, "general");
  otherRealmChannel = await channelId(o.realm.id, "general");
  archived = await runAction(srv.app, async (tx) => {
    const s = await createStreamInTx(tx, srv.app, t.realm, null, { name: "old" });
    await tx.updateTable("streams").set({ is_archived: 1 }).where("id", "=", s.id).execute();
    return s.id;
  });
  secret = await runAction(srv.app, async (tx) => {
    const s = await createStreamInTx(tx, srv.app, t.realm, null, { name: "secret", inviteOnly: true });
    await addSubscriptions(tx, s.id, [t.member2.id]);
    return s.id;
  });
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("drafts").execute();
});

describe("channel drafts need access to the channel's content", () => {
  test("a private channel one is not subscribed to, or a public one for a guest, is an invalid channel", async () => {
    assertError(await api(t.member).post("/drafts", { drafts: [streamDraft({ to: [secret] })] }), 400, "Invalid channel ID");
    assertError(await api(t.guest).post("/drafts", { drafts: [streamDraft()] }), 400, "Invalid channel ID");
    assert.equal(await draftCount(), 0);
    const ok = await api(t.member2).post("/drafts", { drafts: [streamDraft({ to: [secret] })] });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(await draftCount(), 1);
  });
});

describe("GET /drafts", () => {
  test("an empty list to start with", async () => {
    const r = await api(t.member).get("/drafts");
    assert.deepEqual(r.body, { result: "success", msg: "", count: 0, drafts: [] });
  });

  test("lists only the caller's drafts, least recently edited first", async () => {
    await api(t.member).post("/drafts", {
      drafts: [streamDraft({ timestamp: 30 }), streamDraft({ timestamp: 10, content: "older" }), streamDraft({ timestamp: 20.5 })],
    });
    await createDraft(t.member2, streamDraft());
    await createDraft(o.member, { type: "", to: [], topic: "", content: "elsewhere" });
    const r = await api(t.member).get("/drafts");
    assert.equal(r.body.count, 3);
    assert.deepEqual(
      r.body.drafts.map((d: { timestamp: number; content: string }) => [d.timestamp, d.content]),
      [
        [10, "older"],
        [20, streamDraft().content],
        [30, streamDraft().content],
      ],
    );
  });

  test("every kind of user may keep drafts", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      const id = await createDraft(u, { type: "", to: [], topic: "", content: `mine ${u.id}` });
      const r = await api(u).get("/drafts");
      assert.deepEqual(r.body.drafts, [{ id, type: "", to: [], topic: "", content: `mine ${u.id}`, timestamp: Math.trunc(NOW) }]);
    }
  });
});

describe("POST /drafts", () => {
  test("creates drafts of every kind and tells the owner's clients", async () => {
    const log = new EventLog(srv);
    const drafts = [
      streamDraft(),
      { type: "private", to: [t.member2.id], topic: "This topic should be ignored.", content: "one to one", timestamp: 1595479020 },
      { type: "private", to: [t.admin.id, t.member2.id], topic: "", content: "group", timestamp: 1595479021 },
      { type: "private", to: [t.member.id], topic: "", content: "note to self", timestamp: 1595479022 },
      { type: "private", to: [], topic: "ignored", content: "nobody yet", timestamp: 1595479023 },
      { type: "", to: [general], topic: "ignored", content: "untyped", timestamp: 1595479024 },
    ];
    const r = await api(t.member).post("/drafts", { drafts });
    assert.equal(r.status, 200);
    const ids: number[] = r.body.ids;
    assert.deepEqual(r.body, { result: "success", msg: "", ids });
    assert.equal(ids.length, 6);
    const expected = [
      { id: ids[0], type: "stream", to: [general], topic: "sync drafts", content: streamDraft().content, timestamp: 1595479019 },
      { id: ids[1], type: "private", to: [t.member2.id], topic: "", content: "one to one", timestamp: 1595479020 },
      { id: ids[2], type: "private", to: [t.admin.id, t.member2.id].sort((a, b) => a - b), topic: "", content: "group", timestamp: 1595479021 },
      { id: ids[3], type: "private", to: [t.member.id], topic: "", content: "note to self", timestamp: 1595479022 },
      { id: ids[4], type: "", to: [], topic: "", content: "nobody yet", timestamp: 1595479023 },
      { id: ids[5], type: "", to: [], topic: "", content: "untyped", timestamp: 1595479024 },
    ];
    assert.deepEqual((await api(t.member).get("/drafts")).body.drafts, expected);
    assert.deepEqual(log.stop(), [
      { realmId: t.realm.id, event: { type: "drafts", op: "add", drafts: expected }, userIds: [t.member.id] },
    ]);
  });

  test("direct-message recipients: duplicates, the owner, and a one-to-one conversation written with both", async () => {
    const a = await createDraft(t.member, { type: "private", to: [t.member2.id, t.member2.id, t.member.id], topic: "", content: "x" });
    const b = await createDraft(t.member, { type: "private", to: [t.member.id, t.member.id], topic: "", content: "y" });
    const drafts = (await api(t.member).get("/drafts")).body.drafts;
    assert.deepEqual(drafts.find((d: { id: number }) => d.id === a).to, [t.member2.id]);
    assert.deepEqual(drafts.find((d: { id: number }) => d.id === b).to, [t.member.id]);
  });

  test("without a timestamp the draft is stamped now; content is stripped", async () => {
    await createDraft(t.member, { type: "", to: [], topic: "", content: "  \n padded \n " });
    const [d] = (await api(t.member).get("/drafts")).body.drafts;
    assert.equal(d.timestamp, Math.trunc(NOW));
    assert.equal(d.content, "padded");
    await createDraft(t.member2, { type: "", to: [], topic: "", content: "null stamp", timestamp: null });
    assert.equal((await api(t.member2).get("/drafts")).body.drafts[0].timestamp, Math.trunc(NOW));
  });

  test("long topics and content are cut as messages' are", async () => {
    await createDraft(t.member, streamDraft({ topic: "t".repeat(61), content: "c".repeat(10001) }));
    const [d] = (await api(t.member).get("/drafts")).body.drafts;
    assert.equal(d.topic, "t".repeat(57) + "...");
    assert.equal(d.content, "c".repeat(9980) + "\n[message truncated]");
  });

  test("malformed drafts are refused with Zulip's texts", async () => {
    const cases: [unknown, string][] = [
      [{}, 'drafts is not a list'],
      [[5], "drafts[0] is not a dict"],
      [[streamDraft({ type: "channel" })], 'Invalid drafts[0]["type"]'],
      [[streamDraft({ to: 5 })], 'drafts[0]["to"] is not a list'],
      [[streamDraft({ to: ["5"] })], 'drafts[0]["to"][0] is not an integer'],
      [[streamDraft({ to: [1.5] })], 'drafts[0]["to"][0] is not an integer'],
      [[streamDraft({ topic: null })], 'drafts[0]["topic"] is not a string'],
      [[streamDraft({ content: " \n " })], 'drafts[0]["content"] cannot be blank'],
      [[streamDraft({ content: 5 })], 'drafts[0]["content"] is not a string'],
      [[streamDraft({ timestamp: "now" })], 'drafts[0]["timestamp"]["int"] is not an integer'],
      [[streamDraft({ timestamp: true })], 'drafts[0]["timestamp"]["int"] is not an integer'],
      [[streamDraft(), streamDraft({ id: 3 })], 'Argument "id" at drafts[1]["id"] is unexpected'],
      [[streamDraft({ content: "a\u0000b" })], "Message must not contain null bytes"],
      [[streamDraft({ to: [10], topic: "thinking about \u0000" })], "Topic must not contain null bytes"],
      [[streamDraft({ timestamp: -10.1 })], "Timestamp must not be negative."],
      [[streamDraft({ timestamp: 1e12 })], "Timestamp is out of range."],
      [[streamDraft({ to: [] })], "Must specify exactly 1 channel ID for channel messages"],
      [[streamDraft({ to: [general, general] })], "Must specify exactly 1 channel ID for channel messages"],
      [[streamDraft({ to: [99999999999999] })], "Invalid channel ID"],
      [[streamDraft({ to: [-1] })], "Invalid channel ID"],
      [[streamDraft({ to: [archived] })], "Invalid channel ID"],
      [[streamDraft({ to: [otherRealmChannel] })], "Invalid channel ID"],
      [[{ type: "private", to: [99999999999999], topic: "", content: "x" }], "Invalid user ID 99999999999999"],
      [[{ type: "private", to: [t.member2.id, o.member.id], topic: "", content: "x" }], `Invalid user ID ${o.member.id}`],
    ];
    const log = new EventLog(srv);
    for (const [drafts, msg] of cases) {
      const r = await api(t.member).post("/drafts", { drafts: drafts as object });
      assertError(r, 400, msg);
    }
    assert.equal(await draftCount(), 0);
    assert.deepEqual(log.stop(), []);
  });

  test("drafts must be sent, as valid JSON", async () => {
    const missing = await api(t.member).post("/drafts", {});
    assert.deepEqual(missing.body, {
      result: "error",
      msg: "Missing 'drafts' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "drafts",
    });
    assertError(await api(t.member).post("/drafts", { drafts: "[{" }), 400, "drafts is not valid JSON");
  });

  test("a deactivated recipient is refused by their email", async () => {
    const row = await srv.app.db.selectFrom("users").select("email").where("id", "=", t.member2.id).executeTakeFirstOrThrow();
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    try {
      const r = await api(t.member).post("/drafts", { drafts: [{ type: "private", to: [t.member2.id], topic: "", content: "x" }] });
      assertError(r, 400, `'${row.email}' is no longer using Zulip.`);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.member2.id).execute();
    }
  });

  test("one bad draft fails the whole request: nothing is created", async () => {
    const log = new EventLog(srv);
    const r = await api(t.member).post("/drafts", { drafts: [streamDraft(), streamDraft({ to: [archived] })] });
    assertError(r, 400, "Invalid channel ID");
    assert.equal(await draftCount(), 0);
    assert.deepEqual(log.stop(), []);
  });

  test("an empty list creates nothing but still tells the clients", async () => {
    const log = new EventLog(srv);
    const r = await api(t.member).post("/drafts", { drafts: [] });
    assert.deepEqual(r.body, { result: "success", msg: "", ids: [] });
    assert.deepEqual(log.stop(), [
      { realmId: t.realm.id, event: { type: "drafts", op: "add", drafts: [] }, userIds: [t.member.id] },
    ]);
  });

  test("unknown parameters are reported as ignored", async () => {
    const r = await api(t.member).post("/drafts", { drafts: [], junk: 1 });
    assert.deepEqual(r.body.ignored_parameters_unsupported, ["junk"]);
  });
});

describe("PATCH /drafts/{draft_id}", () => {
  test("replaces the draft and tells the owner's clients", async () => {
    const id = await createDraft(t.member, streamDraft());
    const log = new EventLog(srv);
    const draft = { type: "private", to: [t.admin.id, t.member2.id], topic: "dropped", content: "The API needs structure.", timestamp: 1595505800 };
    const r = await api(t.member).patch(`/drafts/${id}`, { draft });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    const expected = { id, type: "private", to: [t.admin.id, t.member2.id].sort((a, b) => a - b), topic: "", content: draft.content, timestamp: 1595505800 };
    assert.deepEqual((await api(t.member).get("/drafts")).body.drafts, [expected]);
    assert.deepEqual(log.stop(), [
      { realmId: t.realm.id, event: { type: "drafts", op: "update", draft: expected }, userIds: [t.member.id] },
    ]);
  });

  test("another user's draft, or one of another organization, does not exist", async () => {
    const id = await createDraft(t.member, streamDraft());
    const before = (await api(t.member).get("/drafts")).body.drafts;
    const log = new EventLog(srv);
    for (const u of [t.member2, t.owner, t.admin, o.owner]) {
      assertError(await api(u).patch(`/drafts/${id}`, { draft: streamDraft({ content: "???" }) }), 404, "Draft does not exist");
    }
    for (const missing of [id + 1000, 0, 99999999999]) {
      assertError(await api(t.member).patch(`/drafts/${missing}`, { draft: streamDraft() }), 404, "Draft does not exist");
    }
    assert.deepEqual((await api(t.member).get("/drafts")).body.drafts, before);
    assert.deepEqual(log.stop(), []);
  });

  test("the draft's shape is checked before its existence, the organization after", async () => {
    assertError(await api(t.member).patch("/drafts/123456", { draft: streamDraft({ type: "x" }) }), 400, 'Invalid draft["type"]');
    assertError(await api(t.member).patch("/drafts/123456", { draft: streamDraft({ to: [archived] }) }), 404, "Draft does not exist");
    const id = await createDraft(t.member, streamDraft());
    assertError(await api(t.member).patch(`/drafts/${id}`, { draft: streamDraft({ to: [archived] }) }), 400, "Invalid channel ID");
    assert.equal((await api(t.member).get("/drafts")).body.drafts[0].to[0], general);
  });

  test("draft is required", async () => {
    const id = await createDraft(t.member, streamDraft());
    const r = await api(t.member).patch(`/drafts/${id}`, {});
    assert.equal(r.body.code, "REQUEST_VARIABLE_MISSING");
    assert.equal(r.body.msg, "Missing 'draft' argument");
  });
});

describe("DELETE /drafts/{draft_id}", () => {
  test("deletes the draft and tells the owner's clients", async () => {
    const id = await createDraft(t.member, streamDraft());
    const log = new EventLog(srv);
    const r = await api(t.member).delete(`/drafts/${id}`);
    assert.deepEqual(r.body, { result: "success", msg: "" });
    assert.equal(await draftCount(), 0);
    assert.deepEqual(log.stop(), [
      { realmId: t.realm.id, event: { type: "drafts", op: "remove", draft_id: id }, userIds: [t.member.id] },
    ]);
    assertError(await api(t.member).delete(`/drafts/${id}`), 404, "Draft does not exist");
  });

  test("another user's draft does not exist", async () => {
    const id = await createDraft(t.member, streamDraft());
    const log = new EventLog(srv);
    for (const u of [t.member2, t.owner, o.owner, o.member]) {
      assertError(await api(u).delete(`/drafts/${id}`), 404, "Draft does not exist");
    }
    assertError(await api(t.member).delete("/drafts/99999999999"), 404, "Draft does not exist");
    assert.equal(await draftCount(), 1);
    assert.deepEqual(log.stop(), []);
  });
});

describe("users who do not synchronize drafts", () => {
  test("are refused on every drafts endpoint, before parameters are read", async () => {
    const id = await createDraft(t.member2, streamDraft());
    const row = await srv.app.db.selectFrom("users").select("props").where("id", "=", t.member2.id).executeTakeFirstOrThrow();
    const props = JSON.parse(row.props);
    await srv.app.db
      .updateTable("users")
      .set({ props: JSON.stringify({ ...props, enable_drafts_synchronization: false }) })
      .where("id", "=", t.member2.id)
      .execute();
    try {
      const a = api(t.member2);
      for (const r of [
        await a.get("/drafts"),
        await a.post("/drafts", {}),
        await a.patch(`/drafts/${id}`, {}),
        await a.delete(`/drafts/${id}`),
      ]) {
        assertError(r, 400, "User has disabled synchronizing drafts.");
      }
      assert.equal(await draftCount(), 1);
    } finally {
      await srv.app.db.updateTable("users").set({ props: row.props }).where("id", "=", t.member2.id).execute();
    }
  });
});

describe("register state", () => {
  test("the most recently edited drafts first, at most 1000", async () => {
    const rows = Array.from({ length: 1003 }, (_, i) => ({
      user_id: t.moderator.id,
      stream_id: null,
      dm_key: null,
      topic: "",
      content: `draft ${i}`,
      last_edit_time: 1000 + i,
    }));
    await srv.app.db.insertInto("drafts").values(rows).execute();
    await createDraft(t.member, streamDraft());
    const { drafts } = await draftsRegisterState(srv.app.db, t.moderator.id);
    assert.equal(drafts.length, 1000);
    assert.equal(drafts[0].content, "draft 1002");
    assert.equal(drafts[0].timestamp, 2002);
    assert.equal(drafts[999].content, "draft 3");
    assert.ok(drafts.every((d) => d.type === "" && d.to.length === 0));
  });
});
