/** POST /messages/flags and the update_message_flags events, unread_msgs and starred_messages they keep current. */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, refused, type MadeChannel } from "../helpers/channels.js";
import { FLAG_BITS } from "../../src/domain/message_flags.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let api: (u: TestUser) => Api;
/** Public; owner, member, member2, guest and bot subscribed. */
let pub: MadeChannel;
/** Public; only the owner subscribed. */
let lonely: MadeChannel;
/** Private with shared history; owner and guest subscribed. */
let shared: MadeChannel;
/** Private with protected history; owner subscribed. */
let guarded: MadeChannel;

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  api = (u) => new Api(srv.url, u);
  pub = await makeChannel(srv, t, { subscribers: [t.member, t.member2, t.guest, t.bot] });
  lonely = await makeChannel(srv, t);
  shared = await makeChannel(srv, t, { private: true, subscribers: [t.guest], extra: { history_public_to_subscribers: true } });
  guarded = await makeChannel(srv, t, { private: true, extra: { history_public_to_subscribers: false } });
});
after(() => srv.close());

async function send(from: TestUser, to: MadeChannel | TestUser[], content = "hello", topic = "flags"): Promise<number> {
  const params = Array.isArray(to)
    ? { type: "direct", to: to.map((u) => u.id), content }
    : { type: "stream", to: to.id, topic, content };
  return (await ok(api(from).post("/messages", params))).id;
}

async function rowFlags(u: TestUser, messageId: number): Promise<number | undefined> {
  const row = await srv.app.db.selectFrom("user_messages").select("flags").where("user_id", "=", u.id).where("message_id", "=", messageId).executeTakeFirst();
  return row?.flags;
}

async function flagsSeen(u: TestUser, messageId: number): Promise<string[]> {
  return (await ok(api(u).get(`/messages/${messageId}`))).message.flags;
}

async function queue(u: TestUser, params: Record<string, unknown> = { event_types: ["update_message_flags"] }) {
  return ok(api(u).post("/register", params as never));
}

async function eventsOf(u: TestUser, queueId: string) {
  return (await ok(api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }))).events as Record<string, unknown>[];
}

const flagsCall = (u: TestUser, op: string, flag: string, messages: unknown) => () => api(u).post("/messages/flags", { op, flag, messages: messages as number[] });

describe("POST /messages/flags", () => {
  test("stars and unstars a received message; the event goes to the user's own queues only", async () => {
    const id = await send(t.member2, pub);
    const mine = await queue(t.member);
    const theirs = await queue(t.member2);
    const r = await ok(api(t.member).post("/messages/flags", { op: "add", flag: "starred", messages: [id] }));
    assert.deepEqual(r, { result: "success", msg: "", messages: [id] });
    assert.deepEqual(await flagsSeen(t.member, id), ["starred"]);
    await ok(api(t.member).post("/messages/flags", { op: "remove", flag: "starred", messages: [id] }));
    assert.deepEqual(await flagsSeen(t.member, id), []);
    assert.deepEqual(await eventsOf(t.member, mine.queue_id), [
      { type: "update_message_flags", op: "add", operation: "add", flag: "starred", messages: [id], all: false, id: 0 },
      { type: "update_message_flags", op: "remove", operation: "remove", flag: "starred", messages: [id], all: false, id: 1 },
    ]);
    assert.deepEqual(await eventsOf(t.member2, theirs.queue_id), []);
  });

  test("the response echoes the request; the event lists only what changed", async () => {
    const a = await send(t.member2, pub);
    const b = await send(t.member2, pub);
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: [a] }));
    const q = await queue(t.member);
    const r = await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: [a, b, b] }));
    assert.deepEqual(r.messages, [a, b, b]);
    assert.deepEqual((await eventsOf(t.member, q.queue_id)).map((e) => e.messages), [[b]]);
    assert.equal(await rowFlags(t.member, b), FLAG_BITS.read);
  });

  test("collapsed is editable; every other flag is refused with Zulip's texts", async () => {
    const id = await send(t.member2, pub);
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "collapsed", messages: [id] }));
    assert.deepEqual(await flagsSeen(t.member, id), ["collapsed"]);
    for (const flag of ["mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned", "group_mentioned", "has_alert_word", "historical", "force_expand"]) {
      await refused(srv, flagsCall(t.member, "add", flag, [id]), `Flag not editable: '${flag}'`);
    }
    for (const flag of ["wildcard_mentioned", "is_private", "active_mobile_push_notification", "bogus"]) {
      await refused(srv, flagsCall(t.member, "add", flag, [id]), `Invalid flag: '${flag}'`);
    }
    await refused(srv, flagsCall(t.member, "toggle", "starred", [id]), "Invalid message flag operation: 'toggle'");
    await refused(srv, flagsCall(t.member, "add", "starred", "[1,"), "messages is not valid JSON");
    await refused(srv, () => api(t.member).post("/messages/flags", { op: "add", flag: "starred" }), "Missing 'messages' argument", "REQUEST_VARIABLE_MISSING");
  });

  test("starring a public channel's message one never received adds a historical row", async () => {
    const id = await send(t.owner, lonely);
    assert.equal(await rowFlags(t.member, id), undefined);
    assert.deepEqual(await flagsSeen(t.member, id), ["read", "historical"]);
    // Marking it read changes nothing: that is what a missing row already means.
    const q = await queue(t.member);
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: [id] }));
    assert.equal(await rowFlags(t.member, id), undefined);
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "starred", messages: [id] }));
    assert.equal(await rowFlags(t.member, id), FLAG_BITS.read | FLAG_BITS.historical | FLAG_BITS.starred);
    assert.deepEqual(await flagsSeen(t.member, id), ["read", "starred", "historical"]);
    assert.deepEqual((await eventsOf(t.member, q.queue_id)).map((e) => [e.flag, e.messages]), [["read", []], ["starred", [id]]]);
  });

  test("messages the user cannot read are invalid, and nothing is written", async () => {
    const dm = await send(t.owner, [t.member2]);
    const secret = await send(t.owner, guarded);
    const elsewhere = (await ok(api(o.owner).post("/messages", { type: "direct", to: [o.member.id], content: "x" }))).id;
    const seen = await send(t.member2, pub);
    for (const bad of [dm, secret, elsewhere, 999999999, 2 ** 40]) {
      await refused(srv, flagsCall(t.member, "add", "starred", [seen, bad]), "Invalid message(s)");
    }
    // Marking read what one cannot see is ignored rather than refused, as in Zulip.
    const r = await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: [dm, secret] }));
    assert.deepEqual(r.messages, [dm, secret]);
    assert.equal(await rowFlags(t.member, dm), undefined);
  });

  test("a guest reaches history only in channels they are subscribed to that share it", async () => {
    const before = await send(t.owner, shared);
    const publicOld = await send(t.owner, lonely);
    await ok(api(t.guest).post("/messages/flags", { op: "add", flag: "starred", messages: [before] }));
    await refused(srv, flagsCall(t.guest, "add", "starred", [publicOld]), "Invalid message(s)");
    // A subscriber to a private channel with protected history cannot star what came before.
    const old = await send(t.owner, guarded);
    await ok(api(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: guarded.name }], principals: [t.guest.id] }));
    await refused(srv, flagsCall(t.guest, "add", "starred", [old]), "Invalid message(s)");
    const later = await send(t.owner, guarded);
    await ok(api(t.guest).post("/messages/flags", { op: "add", flag: "starred", messages: [later] }));
    assert.deepEqual(await flagsSeen(t.guest, later), ["starred"]);
  });

  test("bots flag messages like anyone; a user of another organization cannot", async () => {
    const id = await send(t.member, pub);
    await ok(api(t.bot).post("/messages/flags", { op: "add", flag: "read", messages: [id] }));
    assert.equal(await rowFlags(t.bot, id), FLAG_BITS.read);
    await refused(srv, flagsCall(o.member, "add", "starred", [id]), "Invalid message(s)");
  });
});

describe("marking messages unread", () => {
  test("skips channels the user is not subscribed to and says which", async () => {
    const kept = await send(t.member2, pub);
    const old = await send(t.owner, lonely);
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: [kept] }));
    const r = await ok(api(t.member).post("/messages/flags", { op: "remove", flag: "read", messages: [kept, old] }));
    assert.deepEqual(r, { result: "success", msg: "", messages: [kept, old], ignored_because_not_subscribed_channels: [lonely.id] });
    assert.equal(await rowFlags(t.member, kept), 0);
    assert.equal(await rowFlags(t.member, old), undefined);
    const starred = await ok(api(t.member).post("/messages/flags", { op: "add", flag: "starred", messages: [kept] }));
    assert.equal("ignored_because_not_subscribed_channels" in starred, false);
  });

  test("the event carries each message's details for the unread summary", async () => {
    const inChannel = await send(t.member2, pub, `@**${t.member.fullName}** look`, "details");
    const direct = await send(t.member2, [t.member]);
    const group = await send(t.member2, [t.member, t.owner]);
    const toSelf = await send(t.member, [t.member]);
    const all = [inChannel, direct, group, toSelf];
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: all }));
    const q = await queue(t.member);
    await ok(api(t.member).post("/messages/flags", { op: "remove", flag: "read", messages: all }));
    const [event] = await eventsOf(t.member, q.queue_id);
    assert.deepEqual(event, {
      type: "update_message_flags",
      op: "remove",
      operation: "remove",
      flag: "read",
      messages: all,
      all: false,
      message_details: {
        [inChannel]: { type: "stream", stream_id: pub.id, topic: "details", unmuted_stream_msg: true, mentioned: true },
        [direct]: { type: "private", user_ids: [t.member2.id] },
        [group]: { type: "private", user_ids: [t.owner.id, t.member2.id].sort((a, b) => a - b) },
        [toSelf]: { type: "private", user_ids: [] },
      },
      id: 0,
    });
  });

  test("an empty topic is shown by its display name to clients without empty_topic_name", async () => {
    const id = await send(t.member2, pub, "no topic", "");
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: [id] }));
    const legacy = await queue(t.member);
    const modern = await queue(t.member, { event_types: ["update_message_flags"], client_capabilities: { empty_topic_name: true } });
    await ok(api(t.member).post("/messages/flags", { op: "remove", flag: "read", messages: [id] }));
    const topicIn = async (q: string) => ((await eventsOf(t.member, q))[0].message_details as Record<string, { topic: string }>)[id].topic;
    assert.equal(await topicIn(modern.queue_id), "");
    assert.equal(await topicIn(legacy.queue_id), "general chat");
  });
});

describe("POST /register", () => {
  const unreadIn = (state: Record<string, any>, streamId: number) =>
    state.unread_msgs.streams.filter((s: { stream_id: number }) => s.stream_id === streamId).flatMap((s: { unread_message_ids: number[] }) => s.unread_message_ids);

  test("unread_msgs follows reads and unreads", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    await ok(api(t.member).post("/mark_stream_as_read", { stream_id: c.id }));
    const a = await send(t.owner, c);
    const b = await send(t.owner, c);
    assert.deepEqual(unreadIn(await queue(t.member, {}), c.id), [a, b]);
    await ok(api(t.member).post("/messages/flags", { op: "add", flag: "read", messages: [a, b] }));
    assert.deepEqual(unreadIn(await queue(t.member, {}), c.id), []);
    await ok(api(t.member).post("/messages/flags", { op: "remove", flag: "read", messages: [b] }));
    assert.deepEqual(unreadIn(await queue(t.member, { fetch_event_types: ["message", "update_message_flags"] }), c.id), [b]);
  });

  test("starred_messages lists the user's starred messages", async () => {
    const id = await send(t.owner, pub);
    const before = (await queue(t.member2, { fetch_event_types: ["starred_messages"] })).starred_messages as number[];
    assert.equal(before.includes(id), false);
    await ok(api(t.member2).post("/messages/flags", { op: "add", flag: "starred", messages: [id] }));
    const state = await queue(t.member2, { fetch_event_types: ["starred_messages"] });
    assert.deepEqual(state.starred_messages, [...before, id]);
    assert.equal("unread_msgs" in state, false);
    assert.equal("starred_messages" in (await queue(t.member2, { fetch_event_types: ["message"] })), false);
  });
});

describe("POST /messages", () => {
  test("the sender's own message is read when read_by_sender says so", async () => {
    const read = (await ok(api(t.member).post("/messages", { type: "stream", to: pub.id, topic: "own", content: "x", read_by_sender: true }))).id;
    const unread = (await ok(api(t.member).post("/messages", { type: "stream", to: pub.id, topic: "own", content: "y", read_by_sender: false }))).id;
    assert.deepEqual(await flagsSeen(t.member, read), ["read"]);
    assert.deepEqual(await flagsSeen(t.member, unread), []);
    const human = await fetch(`${srv.url}/api/v1/messages`, {
      method: "POST",
      headers: { authorization: "Basic " + Buffer.from(`${t.member.email}:${t.member.apiKey}`).toString("base64"), "user-agent": "ZulipTerminal/0.7.0" },
      body: new URLSearchParams({ type: "stream", to: String(pub.id), topic: "own", content: "z" }),
    });
    assert.deepEqual(await flagsSeen(t.member, ((await human.json()) as { id: number }).id), ["read"]);
  });
});
