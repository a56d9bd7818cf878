/**
 * Topics through the API: listing a channel's topics, deleting a topic in batches, and users'
 * visibility policies (POST /user_topics, the legacy muted_topics endpoint, register sections,
 * events, and policies following moved topics).
 */
import { test, before, after, describe, beforeEach } from "node:test";
import assert from "node:assert/strict";
import zulip from "zulip-js";
import { CompiledQuery } from "kysely";
import { topicHistoryQuery } from "../../src/store/user_topics.js";
import { startTestServer, ManualClock, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { makeChannel as makeChannelFor, ok, refused, type MadeChannel } from "../helpers/channels.js";

const NOW = 1700000000;
let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
let seq = 0;

before(async () => {
  // Two messages per batch, and no time budget beyond the first batch of each request.
  srv = await startTestServer({ deleteTopic: { batchSize: 2, timeLimitSecs: 0 } }, { clock: new ManualClock(NOW) });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("user_topics").execute();
});

const makeChannel = (subscribers: TestUser[], opts: { private?: boolean; extra?: Record<string, unknown> } = {}) =>
  makeChannelFor(srv, t, { ...opts, subscribers });

async function send(u: TestUser, c: MadeChannel, topic: string): Promise<number> {
  return (await ok(api(u).post("/messages", { type: "stream", to: c.id, topic, content: `message ${++seq}` }))).id;
}

const subscribe = (c: MadeChannel, users: TestUser[]) =>
  ok(api(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: c.name }], principals: users.map((u) => u.id) }));
const unsubscribe = (c: MadeChannel, users: TestUser[]) =>
  ok(api(t.owner).delete("/users/me/subscriptions", { subscriptions: [c.name], principals: users.map((u) => u.id) }));

const topicsOf = (u: TestUser, c: { id: number }, params: Record<string, unknown> = {}) => api(u).get(`/users/me/${c.id}/topics`, params as never);
/** The topics besides the "channel events" one the channel's creation notice started. */
async function topicList(u: TestUser, c: { id: number }, params: Record<string, unknown> = {}): Promise<{ name: string; max_id: number }[]> {
  const topics: { name: string; max_id: number }[] = (await ok(topicsOf(u, c, params))).topics;
  assert.equal(topics.at(-1)!.name, "channel events");
  return topics.slice(0, -1);
}
/** The channel's messages besides the creation notice. */
const messagesIn = async (c: { id: number }) =>
  (await srv.app.db.selectFrom("messages").select("id").where("stream_id", "=", c.id).where("topic", "!=", "channel events").orderBy("id").execute()).map((r) => r.id);
const setPolicy = (u: TestUser, streamId: number, topic: string, policy: number) =>
  api(u).post("/user_topics", { stream_id: streamId, topic, visibility_policy: policy });
const muteLegacy = (u: TestUser, params: Record<string, unknown>) => api(u).patch("/users/me/subscriptions/muted_topics", params as never);
const deleteTopic = (u: TestUser, c: { id: number }, topic: string) => api(u).post(`/streams/${c.id}/delete_topic`, { topic_name: topic });

const rowsOf = (userId: number) =>
  srv.app.db
    .selectFrom("user_topics")
    .select(["stream_id", "topic_name", "visibility_policy", "last_updated"])
    .where("user_id", "=", userId)
    .orderBy("id")
    .execute();

/** The events a queue registered for these types holds, without the ids. */
async function queued(u: TestUser, queueId: string): Promise<Record<string, unknown>[]> {
  const r = await ok(api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }));
  return r.events.map(({ id: _, ...e }: Record<string, unknown>) => e);
}

const register = (u: TestUser, params: Record<string, unknown>) => ok(api(u).post("/register", params as never));

describe("GET /users/me/{stream_id}/topics", () => {
  test("every role that can read the channel gets its topics, newest first, spellings merged", async () => {
    const c = await makeChannel([t.admin, t.moderator, t.member, t.guest, t.bot]);
    const a = await send(t.member, c, "Lunch");
    await send(t.member, c, "dinner");
    const b = await send(t.admin, c, "lunch");
    const e = await send(t.owner, c, "");
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot]) {
      if (u === t.member2) continue;
      assert.deepEqual(await topicList(u, c), [
        { name: "general chat", max_id: e },
        { name: "lunch", max_id: b },
        { name: "dinner", max_id: a + 1 },
      ]);
    }
    // Members may read a public channel they are not subscribed to.
    assert.equal((await topicList(t.member2, c)).length, 3);
    assert.deepEqual((await topicList(t.member, c, { allow_empty_topic_name: true }))[0], { name: "", max_id: e });
  });

  test("channels the caller cannot read are an invalid channel ID", async () => {
    const pub = await makeChannel([t.member]);
    await send(t.member, pub, "hello");
    const priv = await makeChannel([t.member], { private: true });
    await send(t.member, priv, "secret");
    const invalid = "Invalid channel ID";
    await refused(srv, () => topicsOf(t.guest, pub), invalid);
    await refused(srv, () => topicsOf(o.owner, pub), invalid);
    for (const u of [t.admin, t.moderator, t.member2, t.guest, t.bot]) await refused(srv, () => topicsOf(u, priv), invalid);
    await refused(srv, () => topicsOf(t.member, { id: 99999999 }), invalid);
    await refused(srv, () => topicsOf(t.member, { id: 4294967296 }), invalid);
    await refused(srv, () => topicsOf(t.member, pub, { allow_empty_topic_name: 5 }), "allow_empty_topic_name is not a boolean");
  });

  test("without shared history a new subscriber sees only topics of messages they received", async () => {
    const c = await makeChannel([t.member], { private: true });
    await send(t.member, c, "before");
    await subscribe(c, [t.member2, t.bot]);
    const after1 = await send(t.member, c, "after");
    for (const u of [t.member2, t.bot]) assert.deepEqual((await ok(topicsOf(u, c))).topics, [{ name: "after", max_id: after1 }]);
    assert.deepEqual((await topicList(t.member, c)).map((x) => x.name), ["after", "before"]);

    const shared = await makeChannel([t.member], { private: true, extra: { history_public_to_subscribers: true } });
    const first = await send(t.member, shared, "before");
    await subscribe(shared, [t.member2]);
    assert.deepEqual(await topicList(t.member2, shared), [{ name: "before", max_id: first }]);
  });

  test("one grouped query over the channel's topic index", async () => {
    if (process.env.CONFAB_TEST_PG_URL) return;
    const plan = async (readerId: number | null) => {
      const { sql: text, parameters } = topicHistoryQuery(srv.app.db, 1, readerId).compile();
      const rows = await srv.app.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]));
      return rows.rows.map((r) => r.detail).join("\n");
    };
    const shared = await plan(null);
    assert.match(shared, /USING COVERING INDEX messages_stream_topic/);
    assert.doesNotMatch(shared, /TEMP B-TREE/);
    assert.match(await plan(t.member.id), /SEARCH messages USING COVERING INDEX messages_stream_topic/);
  });

  test("zulip-js reads the topic list", async () => {
    const c = await makeChannel([t.member]);
    const id = await send(t.member, c, "from zulip-js");
    const client = await zulip({ username: t.member.email, apiKey: t.member.apiKey, realm: srv.url });
    const r = await client.streams.topics.retrieve({ stream_id: c.id });
    assert.equal(r.result, "success", JSON.stringify(r));
    assert.deepEqual(r.topics[0], { name: "from zulip-js", max_id: id });
  });
});

describe("POST /streams/{stream_id}/delete_topic", () => {
  test("only administrators may; others are refused before anything is looked up", async () => {
    const c = await makeChannel([t.admin, t.moderator, t.member, t.guest, t.bot]);
    await send(t.member, c, "keep");
    for (const u of [t.moderator, t.member, t.guest, t.bot]) {
      await refused(srv, () => deleteTopic(u, c, "keep"), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    }
    await refused(srv, () => deleteTopic(o.admin, c, "keep"), "Invalid channel ID");
    await refused(srv, () => deleteTopic(t.admin, { id: 99999999 }, "keep"), "Invalid channel ID");
    await refused(srv, () => api(t.admin).post(`/streams/${c.id}/delete_topic`, {}), "Missing 'topic_name' argument", "REQUEST_VARIABLE_MISSING");
    const priv = await makeChannel([t.member], { private: true });
    await refused(srv, () => deleteTopic(t.admin, priv, "keep"), "Invalid channel ID");
  });

  test("deletes newest first, a batch per transaction, reporting whether it finished", async () => {
    const c = await makeChannel([t.member, t.member2]);
    const ids = [await send(t.member, c, "Doomed"), await send(t.member2, c, "doomed"), await send(t.member, c, "DOOMED")];
    ids.push(await send(t.member, c, "doomed"), await send(t.member, c, "doomed"));
    const kept = await send(t.member, c, "kept");
    await ok(setPolicy(t.member2, c.id, "doomed", 1));
    await ok(setPolicy(t.member, c.id, "kept", 3));
    const q = await register(t.member2, { event_types: ["delete_message", "user_topic"], client_capabilities: { bulk_message_deletion: true } });

    assert.deepEqual(await ok(deleteTopic(t.owner, c, "doomed")), { result: "success", msg: "", complete: false });
    assert.deepEqual(await ok(deleteTopic(t.admin, c, "doomed")), { result: "success", msg: "", complete: false });
    // The policy stays until the topic is gone.
    assert.equal((await rowsOf(t.member2.id)).length, 1);
    assert.deepEqual(await ok(deleteTopic(t.admin, c, "doomed")), { result: "success", msg: "", complete: true });

    assert.deepEqual(await messagesIn(c), [kept]);
    assert.deepEqual(await queued(t.member2, q.queue_id), [
      { type: "delete_message", message_ids: ids.slice(3), message_type: "stream", stream_id: c.id, topic: "doomed" },
      { type: "delete_message", message_ids: ids.slice(1, 3), message_type: "stream", stream_id: c.id, topic: "doomed" },
      { type: "delete_message", message_ids: ids.slice(0, 1), message_type: "stream", stream_id: c.id, topic: "Doomed" },
      { type: "user_topic", stream_id: c.id, topic_name: "doomed", last_updated: NOW, visibility_policy: 0 },
    ]);
    assert.deepEqual(await rowsOf(t.member2.id), []);
    assert.equal((await rowsOf(t.member.id)).length, 1, "policies of other topics stay");
    // Deleting a topic with no messages left is complete at once.
    assert.deepEqual(await ok(deleteTopic(t.admin, c, "doomed")), { result: "success", msg: "", complete: true });
  });

  test("the display name of the empty topic names it", async () => {
    const c = await makeChannel([t.member]);
    await send(t.member, c, "");
    await send(t.member, c, "other");
    assert.equal((await ok(deleteTopic(t.admin, c, "general chat"))).complete, true);
    assert.deepEqual((await topicList(t.member, c)).map((x) => x.name), ["other"]);
  });

  test("without shared history only messages the administrator received go, and others keep their policy", async () => {
    const c = await makeChannel([t.member], { private: true });
    const old = await send(t.member, c, "mixed");
    await subscribe(c, [t.admin, t.member2]);
    await send(t.member, c, "mixed");
    await ok(setPolicy(t.member, c.id, "mixed", 1));
    await ok(setPolicy(t.member2, c.id, "mixed", 3));
    assert.equal((await ok(deleteTopic(t.admin, c, "mixed"))).complete, true);
    assert.deepEqual(await messagesIn(c), [old]);
    assert.equal((await rowsOf(t.member.id)).length, 1, "the member still has a message of the topic");
    assert.deepEqual(await rowsOf(t.member2.id), []);
  });
});

describe("POST /user_topics", () => {
  test("every kind of user sets their own policy; only their own queues hear of it", async () => {
    const c = await makeChannel([t.admin, t.moderator, t.member, t.guest, t.bot]);
    for (const [i, u] of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot].entries()) {
      const mine = await register(u, { event_types: ["user_topic", "muted_topics"] });
      const legacy = await register(u, { event_types: ["muted_topics"] });
      const other = await register(t.member2, { event_types: ["user_topic", "muted_topics"] });
      const topic = `policy ${i}`;
      assert.deepEqual(await ok(setPolicy(u, c.id, topic, 1)), { result: "success", msg: "" });
      const event = { type: "user_topic", stream_id: c.id, topic_name: topic, last_updated: NOW, visibility_policy: 1 };
      assert.deepEqual(await queued(u, mine.queue_id), [event]);
      assert.deepEqual(await queued(u, legacy.queue_id), [{ type: "muted_topics", muted_topics: [[c.name, topic, NOW]] }]);
      assert.deepEqual(await queued(t.member2, other.queue_id), []);
      assert.deepEqual(await rowsOf(u.id), [{ stream_id: c.id, topic_name: topic, visibility_policy: 1, last_updated: NOW }]);
      await ok(setPolicy(u, c.id, topic, 0));
      assert.deepEqual(await rowsOf(u.id), []);
    }
  });

  test("changing, repeating and clearing a policy", async () => {
    const c = await makeChannel([t.member]);
    const log = new EventLog(srv);
    await ok(setPolicy(t.member, c.id, "Plans", 3));
    await ok(setPolicy(t.member, c.id, "plans", 3));
    assert.equal(log.notices.length, 2, "setting the same policy again (in any case) tells nobody");
    await ok(setPolicy(t.member, c.id, "PLANS", 1));
    assert.deepEqual(await rowsOf(t.member.id), [{ stream_id: c.id, topic_name: "PLANS", visibility_policy: 1, last_updated: NOW }]);
    await ok(setPolicy(t.member, c.id, "plans", 0));
    await ok(setPolicy(t.member, c.id, "plans", 0));
    assert.deepEqual(await rowsOf(t.member.id), []);
    assert.deepEqual(
      log.stop().map((n) => [n.event.type, n.event.visibility_policy ?? (n.event.muted_topics as unknown[]).length, n.userIds]),
      [
        ["muted_topics", 0, [t.member.id]],
        ["user_topic", 3, [t.member.id]],
        ["muted_topics", 1, [t.member.id]],
        ["user_topic", 1, [t.member.id]],
        ["muted_topics", 0, [t.member.id]],
        ["user_topic", 0, [t.member.id]],
      ],
    );
  });

  test("bad requests change nothing", async () => {
    const pub = await makeChannel([t.member]);
    const priv = await makeChannel([t.member2], { private: true });
    await refused(srv, () => setPolicy(t.member, pub.id, "x", 4), "Invalid visibility_policy");
    await refused(srv, () => setPolicy(t.member, pub.id, "x".repeat(61), 1), "topic is too long (limit: 60 characters)");
    await refused(srv, () => api(t.member).post("/user_topics", { stream_id: pub.id, topic: "x" }), "Missing 'visibility_policy' argument", "REQUEST_VARIABLE_MISSING");
    await refused(srv, () => setPolicy(t.member, priv.id, "x", 1), "Invalid channel ID");
    await refused(srv, () => setPolicy(t.guest, pub.id, "x", 1), "Invalid channel ID");
    await refused(srv, () => setPolicy(o.member, pub.id, "x", 1), "Invalid channel ID");
    await refused(srv, () => setPolicy(o.member, pub.id, "x", 0), "Invalid channel ID");
    await refused(srv, () => setPolicy(t.member, 99999999, "x", 0), "Invalid channel ID");
    await refused(srv, () => setPolicy(t.member, 4294967296, "x", 2), "Invalid channel ID");
  });

  test("a policy can be cleared in a channel the user can no longer read", async () => {
    const c = await makeChannel([t.member], { private: true });
    await ok(setPolicy(t.member, c.id, "private", 1));
    await unsubscribe(c, [t.member]);
    await refused(srv, () => setPolicy(t.member, c.id, "private", 3), "Invalid channel ID");
    await ok(setPolicy(t.member, c.id, "private", 0));
    assert.deepEqual(await rowsOf(t.member.id), []);
  });

  test("the empty topic's display name sets the empty topic; clients without empty topics see the display name", async () => {
    const c = await makeChannel([t.member]);
    const plain = await register(t.member, { event_types: ["user_topic"] });
    const modern = await register(t.member, { event_types: ["user_topic"], client_capabilities: { empty_topic_name: true } });
    await ok(setPolicy(t.member, c.id, "general chat", 3));
    assert.equal((await rowsOf(t.member.id))[0].topic_name, "");
    assert.equal((await queued(t.member, plain.queue_id))[0].topic_name, "general chat");
    assert.equal((await queued(t.member, modern.queue_id))[0].topic_name, "");
    assert.deepEqual((await register(t.member, { fetch_event_types: ["user_topic"] })).user_topics, [
      { stream_id: c.id, topic_name: "general chat", last_updated: NOW, visibility_policy: 3 },
    ]);
    const r = await register(t.member, { fetch_event_types: ["user_topic"], client_capabilities: { empty_topic_name: true } });
    assert.equal(r.user_topics[0].topic_name, "");
  });
});

describe("PATCH /users/me/subscriptions/muted_topics", () => {
  test("mutes and unmutes by channel id or name, repeating harmlessly", async () => {
    const c = await makeChannel([t.member]);
    await ok(muteLegacy(t.member, { stream_id: c.id, topic: "noise", op: "add" }));
    await ok(muteLegacy(t.member, { stream: c.name, topic: "Noise", op: "add" }));
    assert.deepEqual(await rowsOf(t.member.id), [{ stream_id: c.id, topic_name: "noise", visibility_policy: 1, last_updated: NOW }]);
    await ok(muteLegacy(t.member, { stream: c.name, topic: "noise", op: "remove" }));
    await ok(muteLegacy(t.member, { stream_id: c.id, topic: "noise", op: "remove" }));
    assert.deepEqual(await rowsOf(t.member.id), []);
    await ok(setPolicy(t.member, c.id, "loud", 3));
    await ok(muteLegacy(t.member, { stream_id: c.id, topic: "loud", op: "add" }));
    assert.equal((await rowsOf(t.member.id))[0].visibility_policy, 1);
  });

  test("Zulip's errors", async () => {
    const c = await makeChannel([t.member]);
    await refused(srv, () => muteLegacy(t.member, { topic: "x", op: "add" }), "Missing 'stream_id' argument");
    await refused(srv, () => muteLegacy(t.member, { stream_id: c.id, stream: c.name, topic: "x", op: "add" }), "Unsupported parameter combination: stream_id, stream");
    await refused(srv, () => muteLegacy(t.member, { stream_id: c.id, topic: "x", op: "toggle" }), "Invalid op");
    await refused(srv, () => muteLegacy(t.member, { stream: "nowhere", topic: "x", op: "add" }), "Invalid channel name 'nowhere'");
    await refused(srv, () => muteLegacy(t.member, { stream_id: 99999999, topic: "x", op: "add" }), "Invalid channel ID");
    await refused(srv, () => muteLegacy(t.member, { stream_id: 99999999, topic: "x", op: "remove" }), "Topic is not muted");
    await refused(srv, () => muteLegacy(t.member, { stream: "nowhere", topic: "x", op: "remove" }), "Topic is not muted");
    await refused(srv, () => muteLegacy(t.guest, { stream_id: c.id, topic: "x", op: "add" }), "Invalid channel ID");
  });
});

describe("register", () => {
  test("user_topics, and the legacy muted_topics only for clients not asking for user_topic", async () => {
    const c = await makeChannel([t.member]);
    await ok(setPolicy(t.member, c.id, "muted", 1));
    await ok(setPolicy(t.member, c.id, "followed", 3));
    const both = await register(t.member, { fetch_event_types: ["user_topic", "muted_topics"] });
    assert.deepEqual(both.user_topics, [
      { stream_id: c.id, topic_name: "muted", last_updated: NOW, visibility_policy: 1 },
      { stream_id: c.id, topic_name: "followed", last_updated: NOW, visibility_policy: 3 },
    ]);
    assert.equal("muted_topics" in both, false);
    const legacy = await register(t.member, { fetch_event_types: ["muted_topics"] });
    assert.deepEqual(legacy.muted_topics, [[c.name, "muted", NOW]]);
    assert.equal("user_topics" in legacy, false);
    const everything = await register(t.member, {});
    assert.deepEqual([everything.muted_topics, everything.user_topics.length], [[[c.name, "muted", NOW]], 2]);
    // A queue for both kinds of events hears only the new kind.
    const q = await register(t.member, { event_types: ["user_topic", "muted_topics"] });
    await ok(setPolicy(t.member, c.id, "muted", 0));
    assert.deepEqual((await queued(t.member, q.queue_id)).map((e) => e.type), ["user_topic"]);
  });

  test("archived channels' policies are left out", async () => {
    const c = await makeChannel([t.member]);
    await ok(setPolicy(t.member, c.id, "gone", 1));
    await ok(api(t.owner).delete(`/streams/${c.id}`));
    const r = await register(t.member, { fetch_event_types: ["user_topic", "muted_topics"] });
    assert.deepEqual(r.user_topics, []);
    assert.deepEqual((await register(t.member, { fetch_event_types: ["muted_topics"] })).muted_topics, []);
    // Archived channels are closed to reading and to new policies; old ones can still be cleared.
    await refused(srv, () => topicsOf(t.member, c), "Invalid channel ID");
    await refused(srv, () => setPolicy(t.member, c.id, "other", 1), "Invalid channel ID");
    await refused(srv, () => deleteTopic(t.owner, c, "gone"), "Invalid channel ID");
    await ok(setPolicy(t.member, c.id, "gone", 0));
    assert.deepEqual(await rowsOf(t.member.id), []);
  });
});

describe("moving topics", () => {
  const move = (u: TestUser, id: number, params: Record<string, unknown>) =>
    ok(api(u).patch(`/messages/${id}`, { propagate_mode: "change_all", send_notification_to_new_thread: false, ...params } as never));

  test("policies follow a whole topic to a new name", async () => {
    const c = await makeChannel([t.member, t.member2]);
    const id = await send(t.member, c, "old name");
    await send(t.member, c, "old name");
    await ok(setPolicy(t.member, c.id, "old name", 1));
    await ok(setPolicy(t.member2, c.id, "old name", 3));
    const q = await register(t.member, { event_types: ["user_topic", "muted_topics"] });
    const legacy = await register(t.member, { event_types: ["muted_topics"] });
    await move(t.admin, id, { topic: "new name" });
    assert.deepEqual(await rowsOf(t.member.id), [{ stream_id: c.id, topic_name: "new name", visibility_policy: 1, last_updated: NOW }]);
    assert.deepEqual((await rowsOf(t.member2.id)).map((r) => [r.topic_name, r.visibility_policy]), [["new name", 3]]);
    assert.deepEqual(await queued(t.member, q.queue_id), [
      { type: "user_topic", stream_id: c.id, topic_name: "old name", last_updated: NOW, visibility_policy: 0 },
      { type: "user_topic", stream_id: c.id, topic_name: "new name", last_updated: NOW, visibility_policy: 1 },
    ]);
    assert.deepEqual(await queued(t.member, legacy.queue_id), [{ type: "muted_topics", muted_topics: [[c.name, "new name", NOW]] }]);
  });

  test("moving one message of several keeps policies where they are", async () => {
    const c = await makeChannel([t.member]);
    const id = await send(t.member, c, "stay");
    await send(t.member, c, "stay");
    await ok(setPolicy(t.member, c.id, "stay", 1));
    await ok(api(t.admin).patch(`/messages/${id}`, { topic: "elsewhere", propagate_mode: "change_one" }));
    assert.deepEqual((await rowsOf(t.member.id)).map((r) => r.topic_name), ["stay"]);
  });

  test("into a topic with messages the more visible policy wins", async () => {
    const c = await makeChannel([t.member, t.member2]);
    const id = await send(t.member, c, "source");
    await send(t.member, c, "target");
    await ok(setPolicy(t.member, c.id, "source", 1));
    await ok(setPolicy(t.member, c.id, "target", 2));
    await ok(setPolicy(t.member2, c.id, "source", 3));
    await ok(setPolicy(t.member2, c.id, "target", 1));
    await move(t.admin, id, { topic: "target" });
    assert.deepEqual((await rowsOf(t.member.id)).map((r) => [r.topic_name, r.visibility_policy]), [["target", 2]]);
    assert.deepEqual((await rowsOf(t.member2.id)).map((r) => [r.topic_name, r.visibility_policy]), [["target", 3]]);
  });

  test("users who lose access to the moved messages lose their policy", async () => {
    const from = await makeChannel([t.member, t.member2]);
    const to = await makeChannel([t.member2], { private: true });
    const id = await send(t.member, from, "moving");
    await ok(setPolicy(t.member, from.id, "moving", 1));
    await ok(setPolicy(t.member2, from.id, "moving", 3));
    await move(t.owner, id, { stream_id: to.id });
    assert.deepEqual(await rowsOf(t.member.id), []);
    assert.deepEqual((await rowsOf(t.member2.id)).map((r) => [r.stream_id, r.topic_name, r.visibility_policy]), [[to.id, "moving", 3]]);
  });
});
