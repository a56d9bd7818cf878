/** Flag changes over many messages: POST /messages/flags/narrow, /mark_all_as_read, /mark_stream_as_read, /mark_topic_as_read. */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, refused, type MadeChannel } from "../helpers/channels.js";
import { sql } from "kysely";
import { FLAG_BITS } from "../../src/domain/message_flags.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let api: (u: TestUser) => Api;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  api = (u) => new Api(srv.url, u);
});
after(() => srv.close());

async function send(from: TestUser, to: MadeChannel, topic = "bulk", content = "hello"): Promise<number> {
  return (await ok(api(from).post("/messages", { type: "stream", to: to.id, topic, content, read_by_sender: true }))).id;
}

async function unreadIds(u: TestUser, ids: number[]): Promise<number[]> {
  const rows = await srv.app.db.selectFrom("user_messages").select(["message_id", "flags"]).where("user_id", "=", u.id).where("message_id", "in", ids).orderBy("message_id").execute();
  return rows.filter((r) => (r.flags & FLAG_BITS.read) === 0).map((r) => r.message_id);
}

async function queue(u: TestUser) {
  return (await ok(api(u).post("/register", { event_types: ["update_message_flags"] }))).queue_id as string;
}

async function eventsOf(u: TestUser, queueId: string) {
  return (await ok(api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }))).events as Record<string, unknown>[];
}

/** A fresh channel with the member subscribed, its creation notice already read. */
async function channelFor(...subscribers: TestUser[]): Promise<MadeChannel> {
  const c = await makeChannel(srv, t, { subscribers });
  for (const u of subscribers) await ok(api(u).post("/mark_stream_as_read", { stream_id: c.id }));
  return c;
}

describe("POST /messages/flags/narrow", () => {
  test("updates the window GET /messages would return and reports on it", async () => {
    const c = await channelFor(t.member);
    const ids = [await send(t.owner, c), await send(t.owner, c), await send(t.owner, c), await send(t.owner, c)];
    const narrow = [{ operator: "channel", operand: c.id }];
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: [ids[1]] }));
    const q = await queue(t.member);
    const r = await ok(api(t.member).post("/messages/flags/narrow", { anchor: String(ids[0]), num_before: 0, num_after: 2, narrow, op: "add", flag: "read" }));
    assert.deepEqual(r, {
      result: "success",
      msg: "",
      processed_count: 3,
      updated_count: 2,
      first_processed_id: ids[0],
      last_processed_id: ids[2],
      found_oldest: false,
      found_newest: false,
    });
    assert.deepEqual(await unreadIds(t.member, ids), [ids[3]]);
    assert.deepEqual((await eventsOf(t.member, q)).map((e) => e.messages), [[ids[0], ids[2]]]);
    const rest = await ok(api(t.member).post("/messages/flags/narrow", { anchor: "first_unread", num_before: 0, num_after: 10, narrow, op: "add", flag: "read" }));
    assert.deepEqual([rest.processed_count, rest.updated_count, rest.first_processed_id, rest.found_newest], [1, 1, ids[3], true]);
  });

  test("marking unread reports the channels skipped; an empty range has null ids", async () => {
    const c = await channelFor(t.member2);
    const old = await send(t.owner, c);
    const narrow = [{ operator: "channel", operand: c.id }];
    const r = await ok(api(t.member).post("/messages/flags/narrow", { anchor: "newest", num_before: 5, num_after: 0, narrow, op: "remove", flag: "read" }));
    assert.equal(r.updated_count, 0);
    assert.equal(r.last_processed_id, old);
    assert.deepEqual(r.ignored_because_not_subscribed_channels, [c.id]);
    const empty = await ok(api(t.member).post("/messages/flags/narrow", { anchor: "oldest", num_before: 0, num_after: 5, narrow: [{ operator: "is", operand: "starred" }, ...narrow], op: "add", flag: "starred" }));
    assert.deepEqual(empty, { result: "success", msg: "", processed_count: 0, updated_count: 0, first_processed_id: null, last_processed_id: null, found_oldest: true, found_newest: true });
    // Channel history one can read is flagged with a historical row.
    const starred = await ok(api(t.member).post("/messages/flags/narrow", { anchor: "newest", num_before: 1, num_after: 0, narrow, op: "add", flag: "starred" }));
    assert.equal(starred.updated_count, 1);
    const row = await srv.app.db.selectFrom("user_messages").select("flags").where("user_id", "=", t.member.id).where("message_id", "=", old).executeTakeFirstOrThrow();
    assert.equal(row.flags, FLAG_BITS.read | FLAG_BITS.historical | FLAG_BITS.starred);
  });

  test("refuses bad requests with Zulip's errors and changes nothing", async () => {
    const narrow = [] as unknown[];
    const call = (p: Record<string, unknown>) => () =>
      api(t.member).post("/messages/flags/narrow", { anchor: "newest", num_before: 1, num_after: 0, narrow, op: "add", flag: "read", ...p } as never);
    await refused(srv, call({ anchor: undefined }), "Missing 'anchor' argument", "REQUEST_VARIABLE_MISSING");
    await refused(srv, call({ anchor: "sideways" }), "Invalid anchor");
    await refused(srv, call({ num_before: -1 }), "num_before is too small");
    await refused(srv, call({ num_after: 2, include_anchor: false }), "The anchor can only be excluded at an end of the range");
    await refused(srv, call({ flag: "mentioned" }), "Flag not editable: 'mentioned'");
    await refused(srv, call({ op: "flip" }), "Invalid message flag operation: 'flip'");
    await refused(srv, call({ narrow: [{ operator: "channel", operand: 999999 }] }), "Invalid narrow operator: unknown channel 999999", "BAD_NARROW");
  });

  test("takes ranges beyond 5000 messages, cutting them down (see the unit tests) rather than refusing", async () => {
    const c = await channelFor(t.member);
    await send(t.owner, c);
    const r = await ok(api(t.member).post("/messages/flags/narrow", { anchor: "newest", num_before: 100000, num_after: 100000, narrow: [{ operator: "channel", operand: c.id }], op: "add", flag: "read" }));
    assert.equal(r.processed_count, 2);
    assert.equal(r.found_oldest, true);
  });
});

describe("POST /mark_all_as_read", () => {
  test("reads everything, says it is complete and tells the user's queues", async () => {
    const c = await channelFor(t.moderator, t.member2);
    const ids = [await send(t.owner, c), await send(t.owner, c)];
    const q = await queue(t.moderator);
    const other = await queue(t.member2);
    const r = await ok(api(t.moderator).post("/mark_all_as_read"));
    assert.deepEqual(r, { result: "success", msg: "", complete: true });
    assert.deepEqual(await unreadIds(t.moderator, ids), []);
    assert.deepEqual(await unreadIds(t.member2, ids), ids);
    assert.deepEqual(await eventsOf(t.moderator, q), [{ type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [], all: true, id: 0 }]);
    assert.deepEqual(await eventsOf(t.member2, other), []);
    const state = await ok(api(t.moderator).post("/register", { fetch_event_types: ["message", "update_message_flags"] }));
    assert.equal(state.unread_msgs.count, 0);
  });

  test("works in batches; past 50000 messages it stops, says so, and the next call finishes", async () => {
    const c = await channelFor(t.admin);
    const first = await send(t.owner, c);
    const { recipient_id } = await srv.app.db.selectFrom("messages").select("recipient_id").where("id", "=", first).executeTakeFirstOrThrow();
    // With the message above, 50001 unread; seeded in two statements: sending them over HTTP would take far too long.
    await sql`with recursive n(i) as (select 1 union all select i + 1 from n where i < 50000)
      insert into messages (realm_id, sender_id, recipient_id, stream_id, topic, dm_key, content, rendered_content, client, date_sent)
      select ${t.realm.id}, ${t.owner.id}, ${recipient_id}, ${c.id}, 'many', null, 'x', '<p>x</p>', 'test', 0 from n`.execute(srv.app.db);
    await sql`insert into user_messages (user_id, message_id, flags)
      select ${t.admin.id}, id, 0 from messages where stream_id = ${c.id} and topic = 'many'`.execute(srv.app.db);
    const unread = async () =>
      Number((await srv.app.db.selectFrom("user_messages").select((eb) => eb.fn.countAll().as("n")).where("user_id", "=", t.admin.id).where(sql<number>`flags & ${FLAG_BITS.read}`, "=", 0).executeTakeFirstOrThrow()).n);
    assert.equal(await unread(), 50001);
    const q = await queue(t.admin);
    assert.deepEqual(await ok(api(t.admin).post("/mark_all_as_read")), { result: "success", msg: "", complete: false });
    assert.equal(await unread(), 1);
    assert.deepEqual(await eventsOf(t.admin, q), []);
    assert.equal((await ok(api(t.admin).post("/mark_all_as_read"))).complete, true);
    assert.equal(await unread(), 0);
    assert.equal((await eventsOf(t.admin, q)).length, 1);
  });

  test("a bot and a guest may call it; only their own messages change", async () => {
    const c = await channelFor(t.bot, t.guest, t.member2);
    const id = await send(t.owner, c);
    for (const u of [t.bot, t.guest]) assert.equal((await ok(api(u).post("/mark_all_as_read"))).complete, true);
    assert.deepEqual(await unreadIds(t.bot, [id]), []);
    assert.deepEqual(await unreadIds(t.guest, [id]), []);
    assert.deepEqual(await unreadIds(t.member2, [id]), [id]);
  });
});

describe("POST /mark_stream_as_read and /mark_topic_as_read", () => {
  test("mark one channel, or one topic (any case), read", async () => {
    const c = await channelFor(t.member);
    const d = await channelFor(t.member);
    const a = await send(t.owner, c, "Lunch");
    const b = await send(t.owner, c, "other");
    const elsewhere = await send(t.owner, d, "Lunch");
    const q = await queue(t.member);
    assert.deepEqual(await ok(api(t.member).post("/mark_topic_as_read", { stream_id: c.id, topic_name: "lunch" })), { result: "success", msg: "" });
    assert.deepEqual(await unreadIds(t.member, [a, b, elsewhere]), [b, elsewhere]);
    await ok(api(t.member).post("/mark_stream_as_read", { stream_id: c.id }));
    assert.deepEqual(await unreadIds(t.member, [a, b, elsewhere]), [elsewhere]);
    // Nothing left unread: no event.
    await ok(api(t.member).post("/mark_stream_as_read", { stream_id: c.id }));
    // The queue merges the two read events into one, as Zulip's does.
    assert.deepEqual((await eventsOf(t.member, q)).map((e) => [e.messages, e.all]), [[[a, b], false]]);
  });

  test("an empty topic is named by its display name too", async () => {
    const c = await channelFor(t.member);
    const id = await send(t.owner, c, "");
    await ok(api(t.member).post("/mark_topic_as_read", { stream_id: c.id, topic_name: "general chat" }));
    assert.deepEqual(await unreadIds(t.member, [id]), []);
  });

  test("channels one cannot read and topics one never received are refused", async () => {
    const secret = await makeChannel(srv, t, { private: true });
    const mine = await channelFor(t.member);
    const theirs = (await makeChannel(srv, o)).id;
    for (const id of [secret.id, theirs, 999999, 2 ** 40]) {
      await refused(srv, () => api(t.member).post("/mark_stream_as_read", { stream_id: id }), "Invalid channel ID");
      await refused(srv, () => api(t.member).post("/mark_topic_as_read", { stream_id: id, topic_name: "x" }), "Invalid channel ID");
    }
    const pub = await makeChannel(srv, t);
    await refused(srv, () => api(t.guest).post("/mark_stream_as_read", { stream_id: pub.id }), "Invalid channel ID");
    await refused(srv, () => api(t.member).post("/mark_topic_as_read", { stream_id: mine.id, topic_name: "never" }), "No such topic 'never'");
    await refused(srv, () => api(t.member).post("/mark_stream_as_read", { stream_id: "x" }), "stream_id is not valid JSON");
    await refused(srv, () => api(t.member).post("/mark_topic_as_read", { stream_id: mine.id }), "Missing 'topic_name' argument", "REQUEST_VARIABLE_MISSING");
  });
});
