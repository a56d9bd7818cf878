import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ManualTime } from "../helpers/time.js";
import { Api, type ApiResponse, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { runAction } from "../../src/actions/run.js";
import { createStreamInTx } from "../../src/actions/streams.js";
import { addSubscriptions } from "../../src/store/subscriptions.js";

const NOW = 1700000000.5;
const LATER = 1700003600;

let time: ManualTime;
let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let general: number;
let secret: number;
let archived: number;
let strict: number;
let otherRealmChannel: number;

const api = (u: TestUser) => new Api(srv.url, u);
type Params = Record<string, ParamValue | undefined>;

async function channelId(realmId: number, name: string): Promise<number> {
  const row = await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", realmId).where("name", "=", name).executeTakeFirstOrThrow();
  return row.id;
}

const table = () => srv.app.db.selectFrom("scheduled_messages").selectAll().orderBy("id").execute();
const stored = (id: number) => srv.app.db.selectFrom("scheduled_messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();

function assertError(r: ApiResponse, status: number, msg: string, extra: Record<string, unknown> = {}) {
  assert.equal(r.status, status, JSON.stringify(r.body));
  assert.deepEqual(r.body, { result: "error", msg, code: "BAD_REQUEST", ...extra });
}

/** A request that must fail with `msg`, leaving every scheduled message as it was and telling nobody. */
async function refused(call: () => Promise<ApiResponse>, status: number, msg: string, extra: Record<string, unknown> = {}) {
  const before = await table();
  const log = new EventLog(srv);
  const r = await call();
  log.stop();
  assertError(r, status, msg, extra);
  assert.deepEqual(await table(), before);
  assert.deepEqual(log.of("scheduled_messages"), []);
}

const channelMessage = (over: Params = {}): Params => ({
  type: "stream",
  to: general,
  topic: "castle",
  content: "Hello **there**",
  scheduled_delivery_timestamp: LATER,
  ...over,
});
const directMessage = (to: number[], over: Params = {}): Params => ({
  type: "direct",
  to,
  content: "Psst",
  scheduled_delivery_timestamp: LATER,
  ...over,
});

async function schedule(u: TestUser, params: Params): Promise<number> {
  const r = await api(u).post("/scheduled_messages", params);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.deepEqual(Object.keys(r.body).sort(), ["msg", "result", "scheduled_message_id"]);
  return r.body.scheduled_message_id;
}

const listed = async (u: TestUser) => {
  const r = await api(u).get("/scheduled_messages");
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.scheduled_messages as Record<string, unknown>[];
};

before(async () => {
  time = new ManualTime(NOW);
  srv = await startTestServer({}, { clock: time, timers: time });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  general = await channelId(t.realm.id, "general");
  otherRealmChannel = await channelId(o.realm.id, "general");
  [secret, archived, strict] = await runAction(srv.app, async (tx) => {
    const s = await createStreamInTx(tx, srv.app, t.realm, null, { name: "secret", inviteOnly: true });
    await addSubscriptions(tx, s.id, [t.member2.id]);
    const a = await createStreamInTx(tx, srv.app, t.realm, null, { name: "old" });
    await tx.updateTable("streams").set({ is_archived: 1 }).where("id", "=", a.id).execute();
    const r = await createStreamInTx(tx, srv.app, t.realm, null, { name: "strict", topicsPolicy: "disable_empty_topic" });
    await addSubscriptions(tx, general, [t.guest.id]);
    return [s.id, a.id, r.id];
  });
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("scheduled_messages").execute();
});

describe("POST /scheduled_messages", () => {
  test("schedules a channel message, rendered, and tells only the sender's clients", async () => {
    const log = new EventLog(srv);
    const id = await schedule(t.member, channelMessage());
    log.stop();
    const expected = {
      scheduled_message_id: id,
      type: "stream",
      to: general,
      topic: "castle",
      content: "Hello **there**",
      rendered_content: "<p>Hello <strong>there</strong></p>",
      scheduled_delivery_timestamp: LATER,
      failed: false,
    };
    assert.deepEqual(log.notices, [
      { realmId: t.realm.id, event: { type: "scheduled_messages", op: "add", scheduled_messages: [expected] }, userIds: [t.member.id] },
    ]);
    assert.deepEqual(await listed(t.member), [expected]);
    const row = await stored(id);
    assert.equal(row.delivered, 0);
    assert.equal(row.sender_id, t.member.id);
  });

  test("`channel` is `stream`, and `direct` and the legacy `private` are direct messages", async () => {
    const a = await schedule(t.member, channelMessage({ type: "channel" }));
    const b = await schedule(t.member, directMessage([t.member2.id], { type: "private", scheduled_delivery_timestamp: LATER + 1 }));
    const c = await schedule(t.member, directMessage([t.member2.id, t.admin.id], { scheduled_delivery_timestamp: LATER + 2 }));
    const d = await schedule(t.member, directMessage([t.member.id], { scheduled_delivery_timestamp: LATER + 3 }));
    const e = await schedule(t.member, directMessage([t.member2.id, t.member.id], { scheduled_delivery_timestamp: LATER + 4 }));
    const shown = (await listed(t.member)).map((m) => [m.scheduled_message_id, m.type, m.to, "topic" in m]);
    assert.deepEqual(shown, [
      [a, "stream", general, true],
      [b, "private", [t.member2.id], false],
      [c, "private", [t.admin.id, t.member2.id].sort((x, y) => x - y), false],
      [d, "private", [t.member.id], false],
      [e, "private", [t.member2.id], false],
    ]);
  });

  test("every kind of user may schedule messages", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      const id = await schedule(u, channelMessage({ content: `from ${u.id}` }));
      assert.deepEqual(
        (await listed(u)).map((m) => [m.scheduled_message_id, m.content]),
        [[id, `from ${u.id}`]],
      );
    }
  });

  test("required parameters, in the order Zulip reads them", async () => {
    const post = (params: Params) => () => api(t.member).post("/scheduled_messages", params);
    const missing = (name: string) => ({ code: "REQUEST_VARIABLE_MISSING", var_name: name });
    const without = (name: string) => ({ ...channelMessage(), [name]: undefined });
    for (const name of ["content", "to", "type", "scheduled_delivery_timestamp"]) {
      const r = await api(t.member).post("/scheduled_messages", without(name));
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { result: "error", msg: `Missing '${name}' argument`, ...missing(name) });
    }
    await refused(post({ to: general }), 400, "Missing 'content' argument", missing("content"));
    await refused(post(channelMessage({ type: "stream!" })), 400, "Invalid type");
    await refused(post(channelMessage({ read_by_sender: "yes" })), 400, "read_by_sender is not valid JSON");
    await refused(post(channelMessage({ read_by_sender: 1 })), 400, "read_by_sender is not a boolean");
    await refused(post(channelMessage({ scheduled_delivery_timestamp: "soon" })), 400, "scheduled_delivery_timestamp is not valid JSON");
    await refused(post(channelMessage({ scheduled_delivery_timestamp: LATER + 0.5 })), 400, "scheduled_delivery_timestamp is not an integer");
  });

  test("`to` is a channel id or a list of user ids", async () => {
    const post = (params: Params) => () => api(t.member).post("/scheduled_messages", params);
    await refused(post(channelMessage({ to: "general" })), 400, "to is not valid JSON");
    await refused(post(channelMessage({ to: JSON.stringify("general") })), 400, 'to["int"] is not an integer');
    await refused(post(directMessage([t.member2.id, "x" as never])), 400, 'to["int"] is not an integer');
    await refused(post(channelMessage({ to: [general] })), 400, "Invalid data type for channel ID");
    await refused(post(directMessage(t.member2.id as never)), 400, "Invalid data type for recipients");
    await refused(post(directMessage([])), 400, "Message must have recipients");
  });

  test("the delivery time must be in the future, and is checked before the recipients", async () => {
    const post = (params: Params) => () => api(t.member).post("/scheduled_messages", params);
    for (const when of [Math.floor(NOW), Math.floor(NOW) - 3600, -1, 0]) {
      await refused(post(channelMessage({ to: 999999, scheduled_delivery_timestamp: when })), 400, "Scheduled delivery time must be in the future.");
    }
    await schedule(t.member, channelMessage({ scheduled_delivery_timestamp: Math.ceil(NOW) }));
  });

  test("channel messages need a channel the sender may post to", async () => {
    const post = (u: TestUser, params: Params) => () => api(u).post("/scheduled_messages", params);
    await refused(post(t.member, channelMessage({ to: 999999 })), 400, "Channel with ID '999999' does not exist", {
      code: "STREAM_DOES_NOT_EXIST",
      stream_id: 999999,
    });
    await refused(post(t.member, channelMessage({ to: otherRealmChannel })), 400, `Channel with ID '${otherRealmChannel}' does not exist`, {
      code: "STREAM_DOES_NOT_EXIST",
      stream_id: otherRealmChannel,
    });
    await refused(post(t.member, channelMessage({ to: secret })), 400, "Not authorized to send to channel 'secret'");
    await refused(post(t.member, channelMessage({ to: archived })), 400, "Not authorized to send to channel 'old'");
    await refused(post(t.guest, channelMessage({ to: strict, topic: "x" })), 400, "Not authorized to send to channel 'strict'");
    await schedule(t.member2, channelMessage({ to: secret }));
  });

  test("topics: required for channels, stripped, aliases of the empty topic, truncated, printable", async () => {
    const post = (params: Params) => () => api(t.member).post("/scheduled_messages", params);
    await refused(post(channelMessage({ topic: undefined })), 400, "Missing topic");
    await refused(post(channelMessage({ topic: "bad\u0007topic" })), 400, "Invalid character in topic, at position 4!");
    const topicOf = async (topic: string, to = general) => (await stored(await schedule(t.member, channelMessage({ topic, to })))).topic;
    assert.equal(await topicOf("  spaced  "), "spaced");
    assert.equal(await topicOf("(no topic)"), "");
    assert.equal(await topicOf("general chat"), "");
    assert.equal(await topicOf(""), "");
    assert.equal(await topicOf("x".repeat(61)), "x".repeat(57) + "...");
    const viaSubject = await schedule(t.member, { ...channelMessage({ topic: undefined }), subject: "old style" });
    assert.equal((await stored(viaSubject)).topic, "old style");
    for (const empty of ["", "(no topic)", "general chat", "  "]) {
      await refused(post(channelMessage({ to: strict, topic: empty })), 400, "Sending messages to the general chat topic is not allowed in this channel.");
    }
    assert.equal(await topicOf("fine", strict), "fine");
    // A topic given for a direct message is ignored.
    assert.equal((await stored(await schedule(t.member, directMessage([t.member2.id], { topic: "ignored" })))).topic, "");
  });

  test("content: not empty; overlong content is cut with a notice", async () => {
    const post = (params: Params) => () => api(t.member).post("/scheduled_messages", params);
    await refused(post(channelMessage({ content: "" })), 400, "Message must not be empty");
    await refused(post(channelMessage({ content: " \n\t " })), 400, "Message must not be empty");
    const id = await schedule(t.member, channelMessage({ content: "a".repeat(10001) }));
    const { content } = await stored(id);
    assert.equal(content.length, 10000);
    assert.ok(content.endsWith("\n[message truncated]"));
  });

  test("direct messages need existing, active users of the organization", async () => {
    const post = (params: Params) => () => api(t.member).post("/scheduled_messages", params);
    await refused(post(directMessage([t.member2.id, 999999])), 400, "Invalid user ID 999999");
    await refused(post(directMessage([o.member.id])), 400, `Invalid user ID ${o.member.id}`);
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.moderator.id).execute();
    try {
      const email = (await srv.app.db.selectFrom("users").select("email").where("id", "=", t.moderator.id).executeTakeFirstOrThrow()).email;
      await refused(post(directMessage([t.moderator.id])), 400, `'${email}' is no longer using Zulip.`);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.moderator.id).execute();
    }
  });

  test("read_by_sender: as given, else read when sent from a person's client unless it is a note to self", async () => {
    const readBy = async (params: Params) => (await stored(await schedule(t.member, params))).read_by_sender;
    assert.equal(await readBy(channelMessage()), 0);
    assert.equal(await readBy(channelMessage({ client: "website" })), 1);
    assert.equal(await readBy(directMessage([t.member.id], { client: "website" })), 0);
    assert.equal(await readBy(channelMessage({ read_by_sender: true })), 1);
    assert.equal(await readBy(channelMessage({ client: "website", read_by_sender: false })), 0);
    const row = await stored(await schedule(t.member, channelMessage({ client: "ZulipMobile" })));
    assert.equal(row.client, "ZulipMobile");
  });
});

describe("GET /scheduled_messages", () => {
  test("nothing scheduled", async () => {
    const r = await api(t.member).get("/scheduled_messages");
    assert.deepEqual(r.body, { result: "success", msg: "", scheduled_messages: [] });
  });

  test("only the caller's messages not sent yet, failed ones included, the earliest first", async () => {
    const late = await schedule(t.member, channelMessage({ scheduled_delivery_timestamp: LATER + 100 }));
    const early = await schedule(t.member, channelMessage({ scheduled_delivery_timestamp: LATER + 10 }));
    const failed = await schedule(t.member, channelMessage({ scheduled_delivery_timestamp: LATER + 50 }));
    const sent = await schedule(t.member, channelMessage({ scheduled_delivery_timestamp: LATER + 5 }));
    await srv.app.db.updateTable("scheduled_messages").set({ failed: 1, failure_message: "x" }).where("id", "=", failed).execute();
    await srv.app.db.updateTable("scheduled_messages").set({ delivered: 1 }).where("id", "=", sent).execute();
    await schedule(t.member2, channelMessage());
    await schedule(o.member, channelMessage({ to: otherRealmChannel }));
    const mine = await listed(t.member);
    assert.deepEqual(
      mine.map((m) => [m.scheduled_message_id, m.failed]),
      [
        [early, false],
        [failed, true],
        [late, false],
      ],
    );
  });
});

describe("PATCH /scheduled_messages/{id}", () => {
  const patch = (u: TestUser, id: number, params: Params) => () => api(u).patch(`/scheduled_messages/${id}`, params);

  async function edited(u: TestUser, id: number, params: Params) {
    const log = new EventLog(srv);
    const r = await api(u).patch(`/scheduled_messages/${id}`, params);
    log.stop();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, { result: "success", msg: "" });
    assert.equal(log.notices.length, 1);
    const [notice] = log.notices;
    assert.deepEqual(notice.userIds, [u.id]);
    assert.equal(notice.event.type, "scheduled_messages");
    assert.equal(notice.event.op, "update");
    const shown = (await listed(u)).find((m) => m.scheduled_message_id === id);
    assert.deepEqual(notice.event.scheduled_message, shown);
    return shown!;
  }

  test("checks before the lookup, in Zulip's order", async () => {
    await refused(patch(t.member, 999999, {}), 400, "Nothing to change");
    await refused(patch(t.member, 999999, { type: "direct" }), 400, "Recipient required when updating type of scheduled message.");
    await refused(patch(t.member, 999999, { type: "direct", topic: "x" }), 400, "Recipient required when updating type of scheduled message.");
    for (const type of ["stream", "channel"]) {
      await refused(patch(t.member, 999999, { type, to: general }), 400, "Topic required when updating scheduled message type to channel.");
    }
    await refused(patch(t.member, 999999, { type: "nope", to: general }), 400, "Invalid type");
    await refused(patch(t.member, 999999, { scheduled_delivery_timestamp: Math.floor(NOW) }), 400, "Scheduled delivery time must be in the future.");
    await refused(patch(t.member, 999999, { content: "x" }), 404, "Scheduled message does not exist");
  });

  test("another user's message, or one of another organization, does not exist", async () => {
    const theirs = await schedule(t.member2, channelMessage());
    const elsewhere = await schedule(o.member, channelMessage({ to: otherRealmChannel }));
    for (const u of [t.member, t.admin, t.owner, t.guest, t.bot]) {
      await refused(patch(u, theirs, { content: "mine now" }), 404, "Scheduled message does not exist");
    }
    await refused(patch(t.owner, elsewhere, { content: "mine now" }), 404, "Scheduled message does not exist");
  });

  test("content alone: checked, rendered again; the rest stays", async () => {
    const id = await schedule(t.member, channelMessage());
    const shown = await edited(t.member, id, { content: "Now *this*", client: "website" });
    assert.deepEqual(shown, {
      scheduled_message_id: id,
      type: "stream",
      to: general,
      topic: "castle",
      content: "Now *this*",
      rendered_content: "<p>Now <em>this</em></p>",
      scheduled_delivery_timestamp: LATER,
      failed: false,
    });
    assert.equal((await stored(id)).client, "website");
    await refused(patch(t.member, id, { content: "  " }), 400, "Message must not be empty");
  });

  test("topic alone: checked as a topic and against the channel's policy; ignored for direct messages", async () => {
    const id = await schedule(t.member, channelMessage());
    assert.equal((await edited(t.member, id, { topic: "  moat " })).topic, "moat");
    assert.equal((await edited(t.member, id, { topic: "(no topic)" })).topic, "");
    assert.equal((await edited(t.member, id, { subject: "x".repeat(70) })).topic, "x".repeat(57) + "...");
    await refused(patch(t.member, id, { topic: "a\u0000b" }), 400, "Invalid character in topic, at position 2!");
    const strictId = await schedule(t.member, channelMessage({ to: strict }));
    for (const empty of ["", "(no topic)", "general chat"]) {
      await refused(patch(t.member, strictId, { topic: empty }), 400, "Sending messages to the general chat topic is not allowed in this channel.");
    }
    const dm = await schedule(t.member, directMessage([t.member2.id]));
    const shown = await edited(t.member, dm, { topic: "ignored" });
    assert.equal(shown.type, "private");
    assert.equal("topic" in shown, false);
    assert.equal((await stored(dm)).topic, "");
  });

  test("a new channel for a channel message, checked like a send", async () => {
    const id = await schedule(t.member2, channelMessage());
    assert.deepEqual(await edited(t.member2, id, { to: secret }).then((m) => [m.to, m.topic]), [secret, "castle"]);
    await refused(patch(t.member2, id, { to: [general] }), 400, "Invalid data type for channel ID");
    await refused(patch(t.member2, id, { to: 999999 }), 400, "Channel with ID '999999' does not exist", { code: "STREAM_DOES_NOT_EXIST", stream_id: 999999 });
    await refused(patch(t.member2, id, { to: archived }), 400, "Not authorized to send to channel 'old'");
    await refused(patch(t.member2, id, { to: strict, topic: "" }), 400, "Sending messages to the general chat topic is not allowed in this channel.");
    const both = await edited(t.member2, id, { to: strict, topic: "ok", content: "both" });
    assert.deepEqual([both.to, both.topic, both.content], [strict, "ok", "both"]);
  });

  test("new recipients for a direct message", async () => {
    const id = await schedule(t.member, directMessage([t.member2.id]));
    assert.deepEqual((await edited(t.member, id, { to: [t.admin.id, t.owner.id, t.admin.id] })).to, [t.owner.id, t.admin.id].sort((a, b) => a - b));
    await refused(patch(t.member, id, { to: t.admin.id }), 400, "Invalid data type for recipients");
    await refused(patch(t.member, id, { to: [t.admin.id, 999999] }), 400, "Invalid user ID 999999");
    await refused(patch(t.member, id, { to: [] }), 400, "Message must have recipients");
  });

  test("changing the type: channel to direct and back", async () => {
    const id = await schedule(t.member, channelMessage());
    const dm = await edited(t.member, id, { type: "direct", to: [t.member2.id] });
    assert.deepEqual([dm.type, dm.to, "topic" in dm], ["private", [t.member2.id], false]);
    assert.equal((await stored(id)).stream_id, null);
    await refused(patch(t.member, id, { type: "channel", to: 999999, topic: "x" }), 400, "Channel with ID '999999' does not exist", {
      code: "STREAM_DOES_NOT_EXIST",
      stream_id: 999999,
    });
    await refused(patch(t.member, id, { type: "stream", to: [general], topic: "x" }), 400, "Invalid data type for channel ID");
    const back = await edited(t.member, id, { type: "channel", to: general, topic: "(no topic)" });
    assert.deepEqual([back.type, back.to, back.topic], ["stream", general, ""]);
    assert.equal((await stored(id)).dm_key, null);
    const legacy = await edited(t.member, id, { type: "private", to: [t.member.id] });
    assert.deepEqual([legacy.type, legacy.to], ["private", [t.member.id]]);
  });

  test("a new delivery time; past times are refused", async () => {
    const id = await schedule(t.member, channelMessage());
    assert.equal((await edited(t.member, id, { scheduled_delivery_timestamp: LATER + 60 })).scheduled_delivery_timestamp, LATER + 60);
    await refused(patch(t.member, id, { scheduled_delivery_timestamp: Math.floor(NOW) - 1 }), 400, "Scheduled delivery time must be in the future.");
    await refused(patch(t.member, id, { scheduled_delivery_timestamp: "later" }), 400, "scheduled_delivery_timestamp is not valid JSON");
  });

  test("a failed message needs a new delivery time, which brings it back", async () => {
    const id = await schedule(t.member, channelMessage());
    await srv.app.db.updateTable("scheduled_messages").set({ failed: 1, failure_message: "Oops" }).where("id", "=", id).execute();
    await refused(patch(t.member, id, { content: "again" }), 400, "Scheduled delivery time must be in the future.");
    const shown = await edited(t.member, id, { content: "again", scheduled_delivery_timestamp: LATER + 5 });
    assert.deepEqual([shown.failed, shown.content, shown.scheduled_delivery_timestamp], [false, "again", LATER + 5]);
    const row = await stored(id);
    assert.deepEqual([row.failed, row.failure_message], [0, null]);
  });

  test("a message already sent cannot be edited", async () => {
    const id = await schedule(t.member, channelMessage());
    await srv.app.db.updateTable("scheduled_messages").set({ delivered: 1 }).where("id", "=", id).execute();
    await refused(patch(t.member, id, { content: "too late" }), 400, "Scheduled message was already sent");
  });
});

describe("DELETE /scheduled_messages/{id}", () => {
  test("cancels the message and tells only the sender's clients", async () => {
    const id = await schedule(t.member, channelMessage());
    const keep = await schedule(t.member, directMessage([t.member2.id]));
    const log = new EventLog(srv);
    const r = await api(t.member).delete(`/scheduled_messages/${id}`);
    log.stop();
    assert.deepEqual(r.body, { result: "success", msg: "" });
    assert.deepEqual(log.notices, [
      { realmId: t.realm.id, event: { type: "scheduled_messages", op: "remove", scheduled_message_id: id }, userIds: [t.member.id] },
    ]);
    assert.deepEqual((await table()).map((m) => m.id), [keep]);
    await refused(() => api(t.member).delete(`/scheduled_messages/${id}`), 404, "Scheduled message does not exist");
  });

  test("nobody else can delete it", async () => {
    const id = await schedule(t.member, channelMessage());
    for (const u of [t.owner, t.admin, t.moderator, t.member2, t.guest, t.bot, o.owner]) {
      await refused(() => api(u).delete(`/scheduled_messages/${id}`), 404, "Scheduled message does not exist");
    }
    await refused(() => api(t.member).delete("/scheduled_messages/99999999999"), 404, "Scheduled message does not exist");
  });
});

describe("register and events", () => {
  test("the initial state lists the user's messages; events reach the user's other queues and nobody else's", async () => {
    const existing = await schedule(t.member, channelMessage({ scheduled_delivery_timestamp: LATER + 10 }));
    const register = async (u: TestUser) => {
      const r = await api(u).post("/register", { fetch_event_types: ["scheduled_messages"], event_types: ["scheduled_messages"] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body;
    };
    const phone = await register(t.member);
    const laptop = await register(t.member);
    const bystander = await register(t.member2);
    assert.deepEqual(
      phone.scheduled_messages.map((m: { scheduled_message_id: number }) => m.scheduled_message_id),
      [existing],
    );
    assert.deepEqual(bystander.scheduled_messages, []);

    const id = await schedule(t.member, channelMessage());
    await api(t.member).patch(`/scheduled_messages/${id}`, { content: "edited" });
    await api(t.member).delete(`/scheduled_messages/${id}`);

    const eventsOf = async (u: TestUser, queue: Record<string, string>) => {
      const r = await api(u).get("/events", { queue_id: queue.queue_id, last_event_id: -1, dont_block: true });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.events as Record<string, unknown>[];
    };
    for (const queue of [phone, laptop]) {
      const events = await eventsOf(t.member, queue);
      assert.deepEqual(
        events.map((e) => [e.type, e.op]),
        [
          ["scheduled_messages", "add"],
          ["scheduled_messages", "update"],
          ["scheduled_messages", "remove"],
        ],
      );
      assert.equal((events[0].scheduled_messages as { topic: string }[])[0].topic, "castle");
      assert.equal((events[1].scheduled_message as { content: string }).content, "edited");
      assert.equal(events[2].scheduled_message_id, id);
    }
    assert.deepEqual(await eventsOf(t.member2, bystander), []);
  });
});
