import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { FLAG_BITS } from "../../src/domain/message_flags.js";
import { finalizeMessage } from "../../src/events/shaping.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
let generalId: number;
let secretId: number;
let apiEmail: Record<number, string>;

const MESSAGE_KEYS = [
  "avatar_url",
  "client",
  "content",
  "content_type",
  "display_recipient",
  "id",
  "is_me_message",
  "reactions",
  "recipient_id",
  "sender_email",
  "sender_full_name",
  "sender_id",
  "sender_realm_str",
  "subject",
  "submessages",
  "timestamp",
  "topic_links",
  "type",
];

async function messageCount(): Promise<number> {
  const r = await srv.app.db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return Number(r.n);
}

async function send(u: TestUser, params: Record<string, unknown>) {
  return api(u).post("/messages", params as never);
}

/** Sends a message that must be refused with `msg` (and `extra` fields), changing nothing. */
async function refused(u: TestUser, params: Record<string, unknown>, msg: string, extra: Record<string, unknown> = {}) {
  const before = await messageCount();
  const r = await send(u, params);
  assert.equal(r.status, 400);
  assert.deepEqual(r.body, { result: "error", msg, code: "BAD_REQUEST", ...extra });
  assert.equal(await messageCount(), before);
}

const channelMsg = (to: unknown, topic = "greetings", content = "hello") => ({ type: "stream", to, topic, content });

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  const users = await srv.app.db.selectFrom("users").select(["id", "email"]).execute();
  apiEmail = Object.fromEntries(users.map((u) => [u.id, u.email]));
  for (const u of [t.owner, t.admin, t.member, t.bot]) {
    await api(u).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] });
  }
  await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true, principals: [t.admin.id, t.member.id] });
  generalId = (await api(t.member).get("/get_stream_id", { stream: "general" })).body.stream_id;
  secretId = (await api(t.member).get("/get_stream_id", { stream: "secret" })).body.stream_id;
});
after(() => srv.close());

describe("POST /messages to channels", () => {
  test("delivers to every subscriber, with per-user flags, after commit", async () => {
    const log = new EventLog(srv);
    const r = await send(t.member, channelMsg("general", "greetings", "hi everyone"));
    log.stop();
    assert.equal(r.status, 200);
    assert.deepEqual(Object.keys(r.body).sort(), ["id", "msg", "result"]);
    const [notice] = log.of("message");
    assert.deepEqual(notice.userIds.sort((a, b) => a - b), [t.owner.id, t.admin.id, t.member.id, t.bot.id].sort((a, b) => a - b));
    // What a queue with apply_markdown delivers; the bus event also carries fields queues consume.
    const m = finalizeMessage(notice.event.message as Record<string, unknown>, true, false);
    assert.deepEqual(Object.keys(m).sort(), [...MESSAGE_KEYS, "stream_id"].sort());
    assert.equal(m.id, r.body.id);
    assert.equal(m.display_recipient, "general");
    assert.equal(m.stream_id, generalId);
    assert.equal(m.subject, "greetings");
    assert.equal(m.type, "stream");
    assert.equal(m.sender_email, apiEmail[t.member.id]);
    assert.equal(m.sender_realm_str, "zulip");
    assert.equal(m.content_type, "text/html");
    assert.deepEqual(notice.perUser!.get(t.member.id), { flags: [] }, "API clients leave their own messages unread");
    assert.deepEqual(notice.perUser!.get(t.owner.id), { flags: [] });
    const stream = (await api(t.member).get(`/streams/${generalId}`)).body.stream;
    assert.equal(stream.first_message_id, r.body.id);
  });

  test("the channel can be named, given by id, JSON-encoded, or in a one-element list", async () => {
    for (const to of ["general", "GENERAL", String(generalId), JSON.stringify("general"), JSON.stringify([generalId]), JSON.stringify(["general"])]) {
      const r = await send(t.member, channelMsg(to));
      assert.equal(r.body.result, "success", to);
    }
    const r = await send(t.member, { type: "channel", to: "general", subject: "legacy", content: "x" });
    assert.equal(r.body.result, "success");
    const stored = await srv.app.db.selectFrom("messages").select("topic").where("id", "=", r.body.id).executeTakeFirstOrThrow();
    assert.equal(stored.topic, "legacy");
  });

  test("read_by_sender and the client-name heuristic mark the sender's copy read", async () => {
    const check = async (params: Record<string, unknown>, flags: string[]) => {
      const log = new EventLog(srv);
      await send(t.member, { ...channelMsg("general"), ...params });
      log.stop();
      assert.deepEqual(log.of("message")[0].perUser!.get(t.member.id), { flags }, JSON.stringify(params));
    };
    await check({ read_by_sender: true }, ["read"]);
    await check({ client: "ZulipMobile" }, ["read"]);
    await check({ client: "ZulipMobile", read_by_sender: false }, []);
    await check({ client: "Zulip desktop app" }, ["read"]);
    await check({ client: "ZulipPython" }, []);
  });

  test("queue_id and local_id are accepted", async () => {
    const r = await send(t.member, { ...channelMsg("general"), queue_id: "abc", local_id: "1.01" });
    assert.equal(r.body.ignored_parameters_unsupported, undefined);
  });

  test("topics: stripped, '(no topic)' and 'general chat' are empty, long ones truncated", async () => {
    const topicOf = async (id: number) => (await srv.app.db.selectFrom("messages").select("topic").where("id", "=", id).executeTakeFirstOrThrow()).topic;
    assert.equal(await topicOf((await send(t.member, channelMsg("general", "  spaced  "))).body.id), "spaced");
    assert.equal(await topicOf((await send(t.member, channelMsg("general", "(no topic)"))).body.id), "");
    assert.equal(await topicOf((await send(t.member, channelMsg("general", "general chat"))).body.id), "");
    assert.equal(await topicOf((await send(t.member, channelMsg("general", "t".repeat(80)))).body.id), "t".repeat(57) + "...");
    await refused(t.member, channelMsg("general", "bad\u0000topic"), "Invalid character in topic, at position 4!");
  });

  test("content: trailing space removed, empty refused, overlong truncated", async () => {
    const contentOf = async (id: number) => (await srv.app.db.selectFrom("messages").select("content").where("id", "=", id).executeTakeFirstOrThrow()).content;
    assert.equal(await contentOf((await send(t.member, channelMsg("general", "t", "\n\nbody  \n "))).body.id), "body");
    const long = await contentOf((await send(t.member, channelMsg("general", "t", "x".repeat(10050)))).body.id);
    assert.equal(long.length, 10000);
    assert.ok(long.endsWith("\n[message truncated]"));
    await refused(t.member, channelMsg("general", "t", "   \n "), "Message must not be empty");
    await refused(t.member, channelMsg("general", "t", "a\u0000b"), "Message must not contain null bytes");
  });

  test("parameter errors", async () => {
    const missing = await send(t.member, { to: "general", content: "x" });
    assert.deepEqual(missing.body, { result: "error", msg: "Missing 'type' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "type" });
    const noContent = await send(t.member, { type: "stream", to: "general", topic: "x" });
    assert.equal(noContent.body.var_name, "content");
    await refused(t.member, { type: "chat", to: "general", content: "x" }, "Invalid type");
    await refused(t.member, { type: "stream", topic: "x", content: "x" }, "Missing channel");
    await refused(t.member, { type: "stream", to: "general", content: "x" }, "Missing topic");
    await refused(t.member, channelMsg(JSON.stringify(["general", "secret"])), "Expected exactly one channel");
    await refused(t.member, channelMsg("true"), "Invalid data type for channel");
    const both = await send(t.member, { ...channelMsg("general"), subject: "s" });
    assert.deepEqual(both.body, { result: "error", msg: "Can't decide between 'topic' and 'subject' arguments", code: "REQUEST_CONFUSING_VAR" });
  });

  test("unknown channels give STREAM_DOES_NOT_EXIST", async () => {
    for (const [to, msg, extra] of [
      ["nowhere", "Channel 'nowhere' does not exist", { stream: "nowhere" }],
      ["99999", "Channel with ID '99999' does not exist", { stream_id: 99999 }],
    ] as const) {
      const before = await messageCount();
      const r = await send(t.member, channelMsg(to));
      assert.deepEqual(r.body, { result: "error", msg, code: "STREAM_DOES_NOT_EXIST", ...extra });
      assert.equal(await messageCount(), before);
    }
    const foreign = await send(o.member, channelMsg(String(generalId)));
    assert.equal(foreign.body.msg, `Channel with ID '${generalId}' does not exist`);
    await refused(t.member, channelMsg(""), "Channel name can't be empty.");
  });

  test("private channels: subscribers only (admins included); bots through their owner", async () => {
    await refused(t.member2, channelMsg("secret"), "Not authorized to send to channel 'secret'");
    await refused(t.owner, channelMsg("secret"), "Not authorized to send to channel 'secret'");
    await refused(t.bot, channelMsg("secret"), "Not authorized to send to channel 'secret'");
    assert.equal((await send(t.member, channelMsg("secret"))).body.result, "success");
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], principals: [t.owner.id] });
    assert.equal((await send(t.bot, channelMsg("secret"))).body.result, "success");
  });

  test("guests post only where subscribed", async () => {
    await refused(t.guest, channelMsg("general"), "Not authorized to send to channel 'general'");
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [t.guest.id] });
    assert.equal((await send(t.guest, channelMsg("general"))).body.result, "success");
  });

  test("can_send_message_group restricts posting", async () => {
    const admins = (await srv.app.db.selectFrom("user_groups").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "role:administrators").executeTakeFirstOrThrow()).id;
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "announce" }], can_send_message_group: admins, principals: [t.admin.id, t.member.id, t.moderator.id] });
    await refused(t.member, channelMsg("announce"), "You do not have permission to post in this channel.");
    await refused(t.moderator, channelMsg("announce"), "You do not have permission to post in this channel.");
    assert.equal((await send(t.admin, channelMsg("announce"))).body.result, "success");
    assert.equal((await send(t.owner, channelMsg("announce"))).body.result, "success", "public channel, owner is an administrator");
  });

  test("topics policies of channel and organization", async () => {
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "named only" }], topics_policy: '"disable_empty_topic"' });
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "chat only" }], topics_policy: '"empty_topic_only"' });
    await refused(t.member, channelMsg("named only", ""), "Sending messages to the general chat topic is not allowed in this channel.");
    await refused(t.member, channelMsg("named only", "(no topic)"), "Sending messages to the general chat topic is not allowed in this channel.");
    await refused(t.member, channelMsg("chat only", "x"), "Only the general chat topic is allowed in this channel.");
    assert.equal((await send(t.member, channelMsg("chat only", ""))).body.result, "success");
    const props = { ...t.realm.props, topics_policy: "disable_empty_topic" };
    await srv.app.db.updateTable("realms").set({ props: JSON.stringify(props) }).where("id", "=", t.realm.id).execute();
    try {
      await refused(t.member, channelMsg("general", ""), "Sending messages to the general chat topic is not allowed in this channel.");
    } finally {
      await srv.app.db.updateTable("realms").set({ props: JSON.stringify(t.realm.props) }).where("id", "=", t.realm.id).execute();
    }
  });
});

describe("POST /messages directly", () => {
  test("one-to-one by id, email or comma-separated emails; both participants get it", async () => {
    for (const to of [JSON.stringify([t.member2.id]), JSON.stringify([apiEmail[t.member2.id]]), apiEmail[t.member2.id]]) {
      const log = new EventLog(srv);
      const r = await send(t.member, { type: "direct", to, content: "psst" });
      log.stop();
      assert.equal(r.body.result, "success", to);
      const [notice] = log.of("message");
      assert.deepEqual(notice.userIds.sort((a, b) => a - b), [t.member.id, t.member2.id].sort((a, b) => a - b));
      const m = notice.event.message as Record<string, unknown>;
      assert.equal(m.type, "private");
      assert.equal(m.subject, "");
      assert.equal("stream_id" in m, false);
      assert.deepEqual(
        (m.display_recipient as { id: number }[]).map((u) => u.id),
        [t.member.id, t.member2.id].sort((a, b) => a - b),
      );
    }
  });

  test("group and self conversations", async () => {
    const log = new EventLog(srv);
    await send(t.member, { type: "private", to: JSON.stringify([t.member2.id, t.moderator.id]), content: "group" });
    await send(t.member, { type: "direct", to: JSON.stringify([t.member.id]), content: "note to self" });
    log.stop();
    const [group, self] = log.of("message");
    assert.deepEqual(group.userIds.sort((a, b) => a - b), [t.moderator.id, t.member.id, t.member2.id].sort((a, b) => a - b));
    assert.deepEqual(self.userIds, [t.member.id]);
  });

  test("recipient errors", async () => {
    await refused(t.member, { type: "direct", to: "[]", content: "x" }, "Message must have recipients");
    await refused(t.member, { type: "direct", content: "x" }, "Message must have recipients");
    await refused(t.member, { type: "direct", to: "[99999]", content: "x" }, "Invalid user ID 99999");
    await refused(t.member, { type: "direct", to: "[99999999999]", content: "x" }, "Invalid user ID 99999999999");
    await refused(t.member, { type: "direct", to: JSON.stringify([o.member.id]), content: "x" }, `Invalid user ID ${o.member.id}`);
    await refused(t.member, { type: "direct", to: "ghost@example.com", content: "x" }, "Invalid email 'ghost@example.com'");
    await refused(t.member, { type: "direct", to: JSON.stringify([t.member2.id, "x@y.z"]), content: "x" }, "Recipient lists may contain emails or user IDs, but not both.");
    await refused(t.member, { type: "direct", to: "{}", content: "x" }, "Invalid data type for recipients");
    await refused(t.member, { type: "direct", to: JSON.stringify([t.member2.id]), content: " " }, "Message must not be empty");
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.member2.id).execute();
    try {
      await refused(t.member, { type: "direct", to: JSON.stringify([t.member2.id]), content: "x" }, `'${apiEmail[t.member2.id]}' is no longer using Zulip.`);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.member2.id).execute();
    }
  });
});

describe("direct message permissions", () => {
  const setRealmGroups = async (changes: Record<string, string>) => {
    const groups = await srv.app.db.selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", t.realm.id).where("is_system_group", "=", 1).execute();
    const settings = { ...t.realm.groupSettings };
    for (const [k, v] of Object.entries(changes)) settings[k] = groups.find((g) => g.name === v)!.id;
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(settings) }).where("id", "=", t.realm.id).execute();
  };
  const restore = () =>
    srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(t.realm.groupSettings) }).where("id", "=", t.realm.id).execute();

  test("direct_message_permission_group: someone in the conversation must be allowed", async () => {
    await setRealmGroups({ direct_message_permission_group: "role:nobody" });
    try {
      await refused(t.member, { type: "direct", to: JSON.stringify([t.member2.id]), content: "x" }, "Direct messages are disabled in this organization.");
      assert.equal((await send(t.member, { type: "direct", to: JSON.stringify([t.bot.id]), content: "bots are fine" })).body.result, "success");
      assert.equal((await send(t.member, { type: "direct", to: JSON.stringify([t.member.id]), content: "so am I" })).body.result, "success");
      await setRealmGroups({ direct_message_permission_group: "role:administrators" });
      await refused(t.member, { type: "direct", to: JSON.stringify([t.member2.id]), content: "x" }, "This conversation does not include any users who can authorize it.");
      assert.equal((await send(t.member, { type: "direct", to: JSON.stringify([t.admin.id]), content: "x" })).body.result, "success");
    } finally {
      await restore();
    }
  });

  test("direct_message_initiator_group: others may only reply", async () => {
    await setRealmGroups({ direct_message_initiator_group: "role:administrators" });
    try {
      await refused(t.member2, { type: "direct", to: JSON.stringify([t.moderator.id]), content: "x" }, "You do not have permission to initiate direct message conversations.");
      assert.equal((await send(t.admin, { type: "direct", to: JSON.stringify([t.moderator.id]), content: "hi" })).body.result, "success");
      assert.equal((await send(t.moderator, { type: "direct", to: JSON.stringify([t.admin.id]), content: "reply" })).body.result, "success");
    } finally {
      await restore();
    }
  });
});

describe("GET /messages", () => {
  let ids: number[];
  /** Notification Bot's notice that the channel was created: its first message. */
  let notice: number;
  before(async () => {
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "fetch" }], principals: [t.admin.id, t.member.id] });
    notice = (await api(t.member).get(`/streams/${(await api(t.member).get("/get_stream_id", { stream: "fetch" })).body.stream_id}`)).body.stream.first_message_id;
    ids = [];
    for (let i = 0; i < 5; i++) ids.push((await send(t.admin, channelMsg("fetch", i % 2 ? "odd" : "even", `message ${i}`))).body.id);
  });
  const get = (u: TestUser, params: Record<string, unknown>) => api(u).get("/messages", params as never);
  const narrowFetch = { narrow: JSON.stringify([["channel", "fetch"]]) };

  test("a window around an anchor, with found_* flags", async () => {
    let r = await get(t.member, { ...narrowFetch, anchor: ids[2], num_before: 1, num_after: 1 });
    assert.deepEqual(r.body.messages.map((m: { id: number }) => m.id), ids.slice(1, 4));
    assert.deepEqual([r.body.found_anchor, r.body.found_oldest, r.body.found_newest, r.body.history_limited, r.body.anchor], [true, false, false, false, ids[2]]);
    r = await get(t.member, { ...narrowFetch, anchor: "newest", num_before: 10, num_after: 0 });
    assert.deepEqual(r.body.messages.map((m: { id: number }) => m.id), [notice, ...ids]);
    assert.deepEqual([r.body.found_anchor, r.body.found_oldest, r.body.found_newest, r.body.anchor], [false, true, true, 10000000000000000]);
    r = await get(t.member, { ...narrowFetch, anchor: "oldest", num_before: 0, num_after: 2 });
    assert.deepEqual(r.body.messages.map((m: { id: number }) => m.id), [notice, ids[0]]);
    assert.deepEqual([r.body.found_oldest, r.body.found_newest, r.body.anchor], [true, false, 0]);
    r = await get(t.member, { ...narrowFetch, anchor: ids[2], num_before: 2, num_after: 0, include_anchor: false });
    assert.deepEqual(r.body.messages.map((m: { id: number }) => m.id), ids.slice(0, 2));
    assert.equal(r.body.found_oldest, false);
    assert.equal(r.body.found_anchor, false);
  });

  test("first_unread anchors at the oldest unread message", async () => {
    await srv.app.db.updateTable("user_messages").set({ flags: FLAG_BITS.read }).where("user_id", "=", t.member.id).where("message_id", "in", [notice, ids[0], ids[1]]).execute();
    const r = await get(t.member, { ...narrowFetch, anchor: "first_unread", num_before: 0, num_after: 0 });
    assert.equal(r.body.anchor, ids[2]);
    assert.deepEqual(r.body.messages.map((m: { id: number; flags: string[] }) => [m.id, m.flags]), [[ids[2], []]]);
    const legacy = await get(t.member, { ...narrowFetch, use_first_unread_anchor: true, num_before: 0, num_after: 0 });
    assert.equal(legacy.body.anchor, ids[2]);
  });

  test("narrow operators", async () => {
    const idsOf = async (narrow: unknown, u: TestUser = t.member) =>
      (await get(u, { narrow: JSON.stringify(narrow), anchor: "newest", num_before: 100, num_after: 0 })).body.messages.map((m: { id: number }) => m.id);
    assert.deepEqual(await idsOf([{ operator: "stream", operand: "fetch" }, { operator: "topic", operand: "ODD" }]), [ids[1], ids[3]]);
    assert.deepEqual(await idsOf([{ operator: "channel", operand: (await api(t.member).get("/get_stream_id", { stream: "fetch" })).body.stream_id }, { operator: "topic", operand: "odd", negated: true }]), [notice, ids[0], ids[2], ids[4]]);
    assert.deepEqual(await idsOf([["channel", "fetch"], ["search", "MESSAGE 3"]]), [ids[3]]);
    // The words are literal text: no wildcards.
    assert.deepEqual(await idsOf([["channel", "fetch"], ["search", "mess_ge"]]), []);
    assert.deepEqual(await idsOf([["channel", "fetch"], ["search", "%"]]), []);
    // Many words: every one must match, however many there are.
    assert.deepEqual(await idsOf([["channel", "fetch"], ["search", "message 3 ".repeat(500)]]), [ids[3]]);
    const manyWords = Array.from({ length: 997 }, (_, i) => `w${i}`).join(" ");
    assert.deepEqual(await idsOf([["channel", "fetch"], ["search", `message 3 ${manyWords}`]]), []);
    // Search words are checked apart from the other conditions (last, on PostgreSQL): alone, negated,
    // on both sides of an anchor and among given ids they keep the same messages.
    assert.deepEqual(await idsOf([["search", "message 3"]]), [ids[3]]);
    assert.deepEqual(await idsOf([["channel", "fetch"], { operator: "search", operand: "message 3", negated: true }]), [notice, ids[0], ids[1], ids[2], ids[4]]);
    const around = await get(t.member, { narrow: JSON.stringify([["search", "message"], ["topic", "odd"]]), anchor: ids[2], num_before: 5, num_after: 5 });
    assert.deepEqual(around.body.messages.map((m: { id: number }) => m.id), [ids[1], ids[3]]);
    const given = await get(t.member, { narrow: JSON.stringify([["search", "message 3"]]), message_ids: JSON.stringify(ids) });
    assert.deepEqual(given.body.messages.map((m: { id: number }) => m.id), [ids[3]]);
    assert.deepEqual(await idsOf([["channel", "fetch"], { operator: "sender", operand: t.admin.id }]), ids);
    assert.deepEqual(await idsOf([{ operator: "id", operand: ids[4] }]), [ids[4]]);
    await srv.app.db.updateTable("user_messages").set({ flags: FLAG_BITS.starred }).where("user_id", "=", t.member.id).where("message_id", "=", ids[3]).execute();
    assert.deepEqual(await idsOf([["is", "starred"]]), [ids[3]]);
    const dm = (await send(t.member2, { type: "direct", to: JSON.stringify([t.member.id]), content: "between us" })).body.id;
    const oneToOne = await idsOf([{ operator: "dm", operand: [t.member2.id] }]);
    const including = await idsOf([["is", "dm"], { operator: "dm-including", operand: t.member2.id }]);
    assert.ok(oneToOne.includes(dm));
    assert.ok(including.length > oneToOne.length, "dm-including also finds the group conversation");
    assert.ok(oneToOne.every((id: number) => including.includes(id)));
    assert.ok((await idsOf([["is", "dm"]])).includes(dm));
    assert.ok((await idsOf([{ operator: "dm", operand: apiEmail[t.member2.id] }])).includes(dm));
    assert.ok((await idsOf([["is", "unread"]])).includes(dm));
  });

  test("narrows of one shape (whose compiled query is reused) each get their own values' messages", async () => {
    const idsOf = async (narrow: unknown, u: TestUser = t.member) =>
      (await get(u, { narrow: JSON.stringify(narrow), anchor: "newest", num_before: 100, num_after: 0 })).body.messages.map((m: { id: number }) => m.id);
    for (let round = 0; round < 2; round++) {
      assert.deepEqual(await idsOf([["channel", "fetch"], ["topic", "even"]]), [ids[0], ids[2], ids[4]]);
      assert.deepEqual(await idsOf([["channel", "fetch"], ["topic", "odd"]]), [ids[1], ids[3]]);
      assert.deepEqual(await idsOf([["channel", "fetch"], ["search", "message 1"]]), [ids[1]]);
      assert.deepEqual(await idsOf([["channel", "fetch"], ["search", "message 4"]]), [ids[4]]);
      assert.deepEqual(await idsOf([{ operator: "id", operand: ids[round] }]), [ids[round]]);
      assert.deepEqual(await idsOf([["channel", "fetch"], { operator: "sender", operand: t.member.id }]), []);
    }
    // The same narrow for two users: each gets their own flags' answer.
    await srv.app.db.updateTable("user_messages").set({ flags: 0 }).where("user_id", "=", t.admin.id).where("message_id", "in", ids).execute();
    await srv.app.db.updateTable("user_messages").set({ flags: FLAG_BITS.read }).where("user_id", "=", t.member.id).where("message_id", "in", ids).execute();
    assert.deepEqual(await idsOf([["channel", "fetch"], ["is", "unread"]], t.admin), ids);
    assert.deepEqual(await idsOf([["channel", "fetch"], ["is", "unread"]], t.member), []);
    assert.deepEqual(await idsOf([["channel", "fetch"], ["is", "unread"]], t.admin), ids);
  });

  test("bad narrows give BAD_NARROW", async () => {
    const cases: [unknown, string][] = [
      [[["bogus", "x"]], "Invalid narrow operator: unknown operator bogus"],
      [[["channel", "nowhere"]], "Invalid narrow operator: unknown channel nowhere"],
      [[["channel", "fetch"], ["is", "dm"]], "Invalid narrow operator: No message can be both a channel message and direct message"],
      [[["is", "weird"]], "Invalid narrow operator: unknown 'is' operand weird"],
      [[["id", "abc"]], "Invalid narrow operator: Invalid message ID"],
      [[{ operator: "sender", operand: 99999 }], "Invalid narrow operator: unknown user 99999"],
      [[{ operator: "dm", operand: [99999] }], "Invalid narrow operator: unknown user in [99999]"],
      [[["channels", "private"]], "Invalid narrow operator: unknown channels operand private"],
    ];
    for (const [narrow, msg] of cases) {
      const r = await get(t.member, { narrow: JSON.stringify(narrow), anchor: "newest", num_before: 1, num_after: 0 });
      assert.deepEqual(r.body, { result: "error", msg, code: "BAD_NARROW" }, msg);
    }
    const notJson = await get(t.member, { narrow: "channel:fetch", anchor: "newest", num_before: 1, num_after: 0 });
    assert.equal(notJson.body.msg, "narrow is not valid JSON");
  });

  test("parameter errors", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ num_before: 1, num_after: 1 }, "Missing 'anchor' argument."],
      [{ anchor: "latest", num_before: 1, num_after: 1 }, "Invalid anchor"],
      [{ anchor: "newest", num_before: -1, num_after: 1 }, "num_before is too small"],
      [{ anchor: "newest", num_before: 3000, num_after: 2001 }, "Too many messages requested (maximum 5000)."],
      [{ anchor: ids[2], num_before: 1, num_after: 1, include_anchor: false }, "The anchor can only be excluded at an end of the range"],
      [{ anchor: "newest", message_ids: JSON.stringify([ids[0]]) }, "Unsupported parameter combination: num_before, num_after, anchor, message_ids, include_anchor, use_first_unread_anchor"],
    ];
    for (const [params, msg] of cases) {
      const r = await get(t.member, params);
      assert.equal(r.body.msg, msg);
      assert.equal(r.status, 400);
    }
  });

  test("message_ids fetches exactly those the user can see", async () => {
    const r = await get(t.member, { message_ids: JSON.stringify([ids[0], ids[4], 99999, 99999999999]) });
    assert.deepEqual(r.body.messages.map((m: { id: number }) => m.id), [ids[0], ids[4]]);
    assert.deepEqual([r.body.found_anchor, r.body.found_oldest, r.body.found_newest, r.body.history_limited, "anchor" in r.body], [false, false, false, false, false]);
    const other = await get(t.member2, { message_ids: JSON.stringify([ids[0]]) });
    assert.deepEqual(other.body.messages, []);
  });

  test("shared history: non-subscribers see public channels only when narrowed to them", async () => {
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "open" }] });
    const id = (await send(t.admin, channelMsg("open", "topic", "public history"))).body.id;
    let r = await get(t.member2, { anchor: "newest", num_before: 100, num_after: 0 });
    assert.ok(!r.body.messages.some((m: { id: number }) => m.id === id));
    r = await get(t.member2, { narrow: JSON.stringify([["channel", "open"]]), anchor: "newest", num_before: 100, num_after: 0 });
    assert.deepEqual(r.body.messages.map((m: { id: number; flags: string[] }) => [m.id, m.flags]).at(-1), [id, ["read", "historical"]]);
    assert.ok(r.body.messages.every((m: { flags: string[] }) => m.flags.includes("historical")));
    r = await get(t.member2, { narrow: JSON.stringify([["channels", "public"]]), anchor: "newest", num_before: 100, num_after: 0 });
    assert.ok(r.body.messages.some((m: { id: number }) => m.id === id));
    for (const u of [t.guest, o.member]) {
      const g = await get(u, { narrow: JSON.stringify([["channel", "open"]]), anchor: "newest", num_before: 100, num_after: 0 });
      if (u === o.member) assert.equal(g.body.code, "BAD_NARROW");
      else assert.deepEqual(g.body.messages, []);
    }
    r = await get(t.member2, { narrow: JSON.stringify([["channel", "secret"]]), anchor: "newest", num_before: 100, num_after: 0 });
    assert.deepEqual(r.body.messages, []);
  });

  test("protected history: new subscribers see only what they received", async () => {
    const before = (await send(t.admin, channelMsg("secret", "t", "before member2"))).body.id;
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], principals: [t.member2.id] });
    const afterId = (await send(t.admin, channelMsg("secret", "t", "after member2"))).body.id;
    const r = await get(t.member2, { narrow: JSON.stringify([["channel", "secret"]]), anchor: "newest", num_before: 100, num_after: 0 });
    const seen = r.body.messages.map((m: { id: number }) => m.id);
    assert.ok(!seen.includes(before));
    assert.ok(seen.includes(afterId));
  });

  test("a channel narrow follows renames, memberships and subscriptions as they change", async () => {
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], invite_only: true, history_public_to_subscribers: true });
    const vault = (await api(t.admin).get("/get_stream_id", { stream: "vault" })).body.stream_id;
    const id = (await send(t.admin, channelMsg("vault", "t", "kept for later"))).body.id;
    const seen = async (name = "vault") => {
      const r = await get(t.member2, { narrow: JSON.stringify([["channel", name]]), anchor: "newest", num_before: 10, num_after: 0 });
      assert.equal(r.body.result, "success", JSON.stringify(r.body));
      // Notification Bot's notices in the channel are not the point here.
      return r.body.messages.filter((m: { id: number }) => m.id === id).map((m: { id: number; sender_full_name: string }) => [m.id, m.sender_full_name]);
    };
    assert.deepEqual(await seen(), []);
    const readers = (await api(t.admin).post("/user_groups/create", { name: "vault readers", description: "", members: [t.member2.id] })).body.group_id;
    assert.equal((await api(t.admin).patch(`/streams/${vault}`, { can_subscribe_group: { new: readers } })).body.result, "success");
    assert.deepEqual(await seen(), [[id, t.admin.fullName]]);
    assert.equal((await api(t.admin).post(`/user_groups/${readers}/members`, { delete: [t.member2.id] })).body.result, "success");
    assert.deepEqual(await seen(), []);
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "vault" }], principals: [t.member2.id] });
    assert.deepEqual(await seen(), [[id, t.admin.fullName]]);
    assert.equal((await api(t.admin).patch("/settings", { full_name: "Renamed Admin" })).body.result, "success");
    assert.equal((await api(t.admin).patch(`/streams/${vault}`, { new_name: "strongroom" })).body.result, "success");
    assert.deepEqual(await seen("strongroom"), [[id, "Renamed Admin"]]);
    assert.equal((await get(t.member2, { narrow: JSON.stringify([["channel", "vault"]]), anchor: "newest", num_before: 1, num_after: 0 })).body.code, "BAD_NARROW");
    await api(t.admin).patch("/settings", { full_name: t.admin.fullName });
    await api(t.admin).delete("/users/me/subscriptions", { subscriptions: ["strongroom"], principals: [t.member2.id] });
    assert.deepEqual(await seen("strongroom"), []);
  });

  test("apply_markdown, client_gravatar and allow_empty_topic_name", async () => {
    const id = (await send(t.admin, channelMsg("fetch", "", "**bold**"))).body.id;
    const fetch = async (params: Record<string, unknown>) =>
      (await get(t.member, { message_ids: JSON.stringify([id]), ...params })).body.messages[0];
    let m = await fetch({});
    assert.equal(m.content, "<p><strong>bold</strong></p>");
    assert.equal(m.subject, "general chat");
    m = await fetch({ apply_markdown: false, allow_empty_topic_name: true });
    assert.equal(m.content, "**bold**");
    assert.equal(m.content_type, "text/x-markdown");
    assert.equal(m.subject, "");
    assert.match((await fetch({ client_gravatar: false })).avatar_url, /^https:\/\/secure\.gravatar\.com\//);
  });
});

describe("GET /messages/{message_id}", () => {
  test("returns the message with flags and raw content", async () => {
    const id = (await send(t.member, channelMsg("general", "single", "raw *text*"))).body.id;
    const r = await api(t.admin).get(`/messages/${id}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.raw_content, "raw *text*");
    assert.equal(r.body.message.id, id);
    assert.deepEqual(r.body.message.flags, []);
    assert.deepEqual(Object.keys(r.body.message).sort(), [...MESSAGE_KEYS, "flags", "stream_id"].sort());
    const historical = await api(t.member2).get(`/messages/${id}`);
    assert.deepEqual(historical.body.message.flags, ["read", "historical"]);
  });

  test("messages the user may not read are 'Invalid message(s)'", async () => {
    const secret = (await send(t.member, channelMsg("secret", "x", "hidden"))).body.id;
    const dm = (await send(t.member, { type: "direct", to: JSON.stringify([t.admin.id]), content: "dm" })).body.id;
    const general = (await send(t.member, channelMsg("general", "x", "visible"))).body.id;
    const cases: [TestUser, number][] = [
      [t.moderator, secret],
      [t.owner, dm],
      [t.guest, secret],
      [o.admin, general],
      [t.member, 99999],
      [t.member, 99999999999],
    ];
    for (const [u, id] of cases) {
      const r = await api(u).get(`/messages/${id}`);
      assert.deepEqual(r.body, { result: "error", msg: "Invalid message(s)", code: "BAD_REQUEST" });
    }
  });
});

describe("mentions set message flags", () => {
  const flagsOf = (notice: { perUser?: Map<number, Record<string, unknown>> }, u: TestUser) =>
    (notice.perUser?.get(u.id)?.flags ?? []) as string[];

  test("a user mention flags only that user; silent mentions flag nobody", async () => {
    const log = new EventLog(srv);
    const r = await send(t.member, channelMsg("general", "mentions", `hi @**${t.admin.fullName}**, and @_**${t.owner.fullName}**`));
    log.stop();
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [notice] = log.of("message");
    assert.ok(flagsOf(notice, t.admin).includes("mentioned"));
    assert.ok(!flagsOf(notice, t.owner).includes("mentioned"));
    assert.ok(!flagsOf(notice, t.bot).includes("mentioned"));
    const content = (notice.event.message as { rendered_content: string }).rendered_content;
    assert.match(content, new RegExp(`<span class="user-mention" data-user-id="${t.admin.id}">@${t.admin.fullName}</span>`));
  });

  test("a channel wildcard flags every recipient", async () => {
    const log = new EventLog(srv);
    await send(t.member, channelMsg("general", "mentions", "hi @**all**"));
    log.stop();
    const [notice] = log.of("message");
    for (const u of [t.owner, t.admin, t.bot]) {
      assert.deepEqual(flagsOf(notice, u), ["stream_wildcard_mentioned", "wildcard_mentioned"]);
    }
  });

  test("a group mention flags the group's members; a topic wildcard flags topic participants", async () => {
    const group = await api(t.admin).post("/user_groups/create", { name: "ops", description: "Ops", members: [t.owner.id] });
    assert.equal(group.status, 200, JSON.stringify(group.body));
    await send(t.bot, channelMsg("general", "wild", "I was here first"));
    const log = new EventLog(srv);
    await send(t.member, channelMsg("general", "mentions", "paging @*ops*"));
    await send(t.member, channelMsg("general", "wild", "hey @**topic**"));
    log.stop();
    const [groupNotice, topicNotice] = log.of("message");
    assert.ok(flagsOf(groupNotice, t.owner).includes("mentioned"));
    assert.ok(!flagsOf(groupNotice, t.admin).includes("mentioned"));
    assert.ok(flagsOf(topicNotice, t.bot).includes("topic_wildcard_mentioned"));
    assert.ok(flagsOf(topicNotice, t.bot).includes("wildcard_mentioned"));
    assert.ok(!flagsOf(topicNotice, t.owner).includes("topic_wildcard_mentioned"));
  });
});
