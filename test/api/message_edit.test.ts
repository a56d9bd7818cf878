import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { startTestServer, ManualClock, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { makeChannel as makeChannelFor, ok, refused, setRealmGroupSetting, setRealmProps, systemGroupId, type MadeChannel } from "../helpers/channels.js";

let srv: TestServer;
let clock: ManualClock;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
let seq = 0;

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

before(async () => {
  clock = new ManualClock();
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
});
after(() => srv.close());

type Made = MadeChannel;
const makeChannel = (subscribers: TestUser[], opts: { private?: boolean; extra?: Record<string, unknown> } = {}) =>
  makeChannelFor(srv, t, { ...opts, subscribers });

async function send(u: TestUser, c: Made, topic: string, content = `message ${++seq}`): Promise<number> {
  return (await ok(api(u).post("/messages", { type: "stream", to: c.id, topic, content }))).id;
}

const message = (id: number) => srv.app.db.selectFrom("messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const edit = (u: TestUser, id: number, params: Record<string, unknown>) => api(u).patch(`/messages/${id}`, params as never);
const del = (u: TestUser, id: number) => api(u).delete(`/messages/${id}`);
const NO_DELETE = "You don't have permission to delete this message";
const NO_EDIT = "You don't have permission to edit this message";
const NO_MOVE = "You don't have permission to move this message";

describe("DELETE /messages/{id}", () => {
  test("own messages: anyone may, by default; others' messages need a delete-any permission", async () => {
    const c = await makeChannel([t.member, t.member2, t.guest, t.moderator]);
    for (const u of [t.member, t.guest, t.moderator, t.owner]) {
      const id = await send(u, c, "own");
      await ok(del(u, id));
    }
    const id = await send(t.member, c, "others");
    for (const u of [t.member2, t.guest, t.moderator]) await refused(srv, () => del(u, id), NO_DELETE);
    await refused(srv, () => del(o.owner, id), "Invalid message(s)");
    await refused(srv, () => del(t.admin, 99999999), "Invalid message(s)");
    await ok(del(t.admin, id));
    await refused(srv, () => del(t.admin, id), "Invalid message(s)");
  });

  test("a bot's owner may delete the bot's messages; the deletion event reaches everyone who had it", async () => {
    const c = await makeChannel([t.bot, t.member]);
    const id = await send(t.bot, c, "bot");
    await refused(srv, () => del(t.member, id), NO_DELETE);
    const log = new EventLog(srv);
    await ok(del(t.owner, id));
    log.stop();
    const deletions = log.of("delete_message");
    assert.deepEqual(deletions.map((n) => [n.userIds, n.event]), [
      [sorted([t.owner.id, t.bot.id, t.member.id]), { type: "delete_message", message_ids: [id], message_type: "stream", stream_id: c.id, topic: "bot" }],
    ]);
  });

  test("channel groups: delete any, delete own; the organization's own-deletion setting and time limit", async () => {
    const c = await makeChannel([t.member, t.moderator]);
    const moderators = await systemGroupId(srv.app, t.realm.id, "role:moderators");
    const theirs = await send(t.member, c, "t");
    await refused(srv, () => del(t.moderator, theirs), NO_DELETE);
    await ok(api(t.admin).patch(`/streams/${c.id}`, { can_delete_any_message_group: { new: moderators } }));
    await ok(del(t.moderator, theirs));

    await setRealmGroupSetting(srv.app, t.realm.id, "can_delete_own_message_group", "role:nobody");
    try {
      const mine = await send(t.member, c, "t");
      await refused(srv, () => del(t.member, mine), NO_DELETE);
      await ok(api(t.admin).patch(`/streams/${c.id}`, { can_delete_own_message_group: { new: { direct_members: [t.member.id], direct_subgroups: [] } } }));
      await setRealmProps(srv.app, t.realm.id, { message_content_delete_limit_seconds: 60 });
      clock.advance(61);
      await refused(srv, () => del(t.member, mine), "The time limit for deleting this message has passed");
      await ok(del(t.moderator, mine));
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_delete_own_message_group", "role:everyone");
      await setRealmProps(srv.app, t.realm.id, { message_content_delete_limit_seconds: null });
    }
  });

  test("direct messages, private channels and the channel's first message", async () => {
    const dm = (await ok(api(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: "psst" }))).id;
    await refused(srv, () => del(t.member2, dm), NO_DELETE);
    await refused(srv, () => del(t.moderator, dm), "Invalid message(s)");
    const log = new EventLog(srv);
    await ok(del(t.member, dm));
    log.stop();
    assert.deepEqual(log.of("delete_message").map((n) => [n.userIds, n.event]), [
      [sorted([t.member.id, t.member2.id]), { type: "delete_message", message_ids: [dm], message_type: "private" }],
    ]);

    const p = await makeChannel([t.member], { private: true });
    const first = (await srv.app.db.selectFrom("streams").select("first_message_id").where("id", "=", p.id).executeTakeFirstOrThrow()).first_message_id!;
    const later = await send(t.member, p, "x");
    await refused(srv, () => del(t.admin, later), "Invalid message(s)");
    const log2 = new EventLog(srv);
    await ok(del(t.owner, first));
    log2.stop();
    assert.deepEqual(log2.of("stream", "update").map((n) => [n.event.property, n.event.value]), [["first_message_id", later]]);
  });

  test("through event queues: bulk deletion for clients that ask, one id for the others, and the empty topic's display name", async () => {
    const c = await makeChannel([t.member]);
    const bulk = await ok(api(t.member).post("/register", { event_types: ["delete_message"], client_capabilities: { bulk_message_deletion: true, empty_topic_name: true } }));
    const single = await ok(api(t.member).post("/register", { event_types: ["delete_message"] }));
    const id = await send(t.owner, c, "");
    await ok(del(t.owner, id));
    const eventsOf = async (q: string) => (await ok(api(t.member).get("/events", { queue_id: q, last_event_id: -1 }))).events;
    assert.deepEqual(await eventsOf(bulk.queue_id), [{ type: "delete_message", message_ids: [id], message_type: "stream", stream_id: c.id, topic: "", id: 0 }]);
    assert.deepEqual(await eventsOf(single.queue_id), [{ type: "delete_message", message_id: id, message_type: "stream", stream_id: c.id, topic: "general chat", id: 0 }]);
  });
});

describe("PATCH /messages/{id}: content", () => {
  test("the sender edits within the limit; everyone with the message hears of it with their flags", async () => {
    const c = await makeChannel([t.member, t.member2]);
    const id = await send(t.member, c, "talk", "first draft");
    const log = new EventLog(srv);
    const body = await ok(edit(t.member, id, { content: `hello @**Max Member**` }));
    log.stop();
    assert.deepEqual(body, { result: "success", msg: "", detached_uploads: [] });
    const [update] = log.of("update_message");
    const event = update.event;
    assert.deepEqual(
      { ...event, edit_timestamp: 0, rendered_content: 0 },
      {
        type: "update_message",
        user_id: t.member.id,
        edit_timestamp: 0,
        message_id: id,
        rendering_only: false,
        orig_content: "first draft",
        orig_rendered_content: "<p>first draft</p>",
        content: "hello @**Max Member**",
        rendered_content: 0,
        is_me_message: false,
        stream_name: c.name,
        stream_id: c.id,
        message_ids: [id],
      },
    );
    assert.match(event.rendered_content as string, /user-mention/);
    assert.deepEqual(update.userIds, sorted([t.owner.id, t.member.id, t.member2.id]));
    assert.deepEqual(update.perUser!.get(t.member2.id), { flags: ["mentioned"] });
    const fetched = await ok(api(t.member).get(`/messages/${id}`));
    assert.equal(fetched.raw_content, "hello @**Max Member**");
    assert.equal(typeof fetched.message.last_edit_timestamp, "number");
    assert.equal(fetched.message.last_moved_timestamp, undefined);
    assert.deepEqual(fetched.message.edit_history.map((h: Record<string, unknown>) => [h.user_id, h.prev_content]), [[t.member.id, "first draft"]]);
  });

  test("refusals: someone else's message, editing turned off, time limit, stale content hash", async () => {
    const c = await makeChannel([t.member, t.member2]);
    const id = await send(t.member, c, "talk", "text");
    for (const u of [t.member2, t.owner, t.admin]) await refused(srv, () => edit(u, id, { content: "x" }), NO_EDIT);
    await refused(srv, () => edit(o.member, id, { content: "x" }), "Invalid message(s)");
    await setRealmProps(srv.app, t.realm.id, { allow_message_editing: false });
    try {
      await refused(srv, () => edit(t.member, id, { content: "x" }), "Your organization has turned off message editing");
    } finally {
      await setRealmProps(srv.app, t.realm.id, { allow_message_editing: true });
    }
    await refused(srv, () => edit(t.member, id, { content: "x", prev_content_sha256: "0".repeat(64) }), "'prev_content_sha256' value does not match the expected value.", "EXPECTATION_MISMATCH");
    await ok(edit(t.member, id, { content: "y", prev_content_sha256: createHash("sha256").update("text").digest("hex") }));
    clock.advance(600 + 21);
    await refused(srv, () => edit(t.member, id, { content: "z" }), "The time limit for editing this message has passed");
  });

  test("an emptied message reads (deleted); direct messages can be edited too", async () => {
    const c = await makeChannel([t.member]);
    const id = await send(t.member, c, "talk");
    await ok(edit(t.member, id, { content: "   " }));
    assert.equal((await message(id)).content, "(deleted)");
    const dm = (await ok(api(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: "psst" }))).id;
    const log = new EventLog(srv);
    await ok(edit(t.member, dm, { content: "edited" }));
    log.stop();
    const [update] = log.of("update_message");
    assert.deepEqual(update.userIds, sorted([t.member.id, t.member2.id]));
    assert.equal(update.event.stream_id, undefined);
  });

  test("malformed requests", async () => {
    const c = await makeChannel([t.member]);
    const id = await send(t.member, c, "topic");
    const dm = (await ok(api(t.member).post("/messages", { type: "direct", to: JSON.stringify([t.member2.id]), content: "psst" }))).id;
    await refused(srv, () => edit(t.member, id, {}), "Nothing to change");
    await refused(srv, () => edit(t.member, id, { topic: "topic" }), "Nothing to change");
    await refused(srv, () => edit(t.member, dm, { topic: "x" }), "Direct messages cannot have topics.");
    await refused(srv, () => edit(t.member, dm, { stream_id: c.id }), "Direct messages cannot be moved to channels.");
    await refused(srv, () => edit(t.member, id, { content: "x", propagate_mode: "change_all" }), "Invalid propagate_mode without topic edit");
    await refused(srv, () => edit(t.member, id, { topic: "x", propagate_mode: "sometimes" }), "Invalid propagate_mode");
    await refused(srv, () => edit(t.member, id, { topic: "✔ " }), "General chat cannot be marked as resolved");
    await refused(srv, () => edit(t.member, id, { topic: "✔ general chat" }), "General chat cannot be marked as resolved");
    await refused(srv, () => edit(t.member, id, { topic: "a\u0000b" }), "Invalid character in topic, at position 2!");
    await refused(srv, () => edit(t.member, id, { content: "x", stream_id: c.id }), "Cannot change message content while changing channel");
  });
});

describe("PATCH /messages/{id}: moving within a channel", () => {
  test("a topic change: events, history, the moved indicator and the new topic's notice", async () => {
    const c = await makeChannel([t.member, t.member2]);
    const first = await send(t.member, c, "old");
    const second = await send(t.member2, c, "old");
    const log = new EventLog(srv);
    await ok(edit(t.member, second, { topic: "new", propagate_mode: "change_all" }));
    log.stop();
    const [update] = log.of("update_message");
    assert.deepEqual({ ...update.event, edit_timestamp: 0 }, {
      type: "update_message",
      user_id: t.member.id,
      edit_timestamp: 0,
      message_id: second,
      rendering_only: false,
      stream_name: c.name,
      stream_id: c.id,
      propagate_mode: "change_all",
      orig_subject: "old",
      subject: "new",
      topic_links: [],
      message_ids: [first, second],
    });
    for (const id of [first, second]) {
      const m = await message(id);
      assert.equal(m.topic, "new");
      assert.notEqual(m.last_moved_time, null);
      assert.equal(m.last_edit_time, null);
    }
    const notice = log.of("message").map((n) => n.event.message as Record<string, unknown>);
    assert.deepEqual(notice.map((m) => [m.subject, m.content]), [["new", `This topic was moved here from #**${c.name}>old** by @_**Mel Member|${t.member.id}**.`]]);
  });

  test("propagation: one message, later messages, and breadcrumbs in the old topic", async () => {
    const c = await makeChannel([t.member]);
    const ids = [await send(t.member, c, "t"), await send(t.member, c, "t"), await send(t.member, c, "t")];
    await ok(edit(t.member, ids[1], { topic: "later", propagate_mode: "change_later", send_notification_to_old_thread: true, send_notification_to_new_thread: false }));
    assert.deepEqual((await Promise.all(ids.map(message))).map((m) => m.topic), ["t", "later", "later"]);
    const oldThread = await srv.app.db.selectFrom("messages").select("content").where("stream_id", "=", c.id).where("topic", "=", "t").orderBy("id", "desc").executeTakeFirstOrThrow();
    assert.equal(oldThread.content, `2 messages were moved from this topic to #**${c.name}>later** by @_**Mel Member|${t.member.id}**.`);
    const log = new EventLog(srv);
    await ok(edit(t.member, ids[0], { topic: "later" }));
    log.stop();
    const notice = log.of("message")[0].event.message as { content: string };
    assert.match(notice.content, new RegExp(`^\\[A message\\]\\(http.*/#narrow/channel/${c.id}-.*/topic/later/near/${ids[0]}\\) was moved here from #\\*\\*${c.name}>t\\*\\* by `));
  });

  test("who may change topics: the organization's group, the channel's group, channel administrators; time limits for members", async () => {
    const c = await makeChannel([t.member, t.member2, t.moderator]);
    const id = await send(t.moderator, c, "a");
    await ok(edit(t.member, id, { topic: "b" }));
    await setRealmGroupSetting(srv.app, t.realm.id, "can_move_messages_between_topics_group", "role:nobody");
    try {
      await refused(srv, () => edit(t.member, id, { topic: "c" }), NO_EDIT);
      await refused(srv, () => edit(t.moderator, id, { topic: "c" }), NO_EDIT);
      await ok(edit(t.member2, id, { topic: "c" }));
      await ok(edit(t.admin, id, { topic: "d" }));
      await ok(api(t.owner).patch(`/streams/${c.id}`, { can_move_messages_within_channel_group: { new: { direct_members: [t.member.id], direct_subgroups: [] } } }));
      await ok(edit(t.member, id, { topic: "e" }));
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_move_messages_between_topics_group", "role:everyone");
    }
    await setRealmProps(srv.app, t.realm.id, { move_messages_within_stream_limit_seconds: 100 });
    try {
      clock.advance(121);
      await refused(srv, () => edit(t.member, id, { topic: "f" }), "The time limit for editing this message's topic has passed.");
      await ok(edit(t.moderator, id, { topic: "f" }));
    } finally {
      await setRealmProps(srv.app, t.realm.id, { move_messages_within_stream_limit_seconds: 604800 });
    }
  });

  test("moving a whole topic past the time limit reports how much may be moved", async () => {
    const c = await makeChannel([t.member]);
    await setRealmProps(srv.app, t.realm.id, { move_messages_within_stream_limit_seconds: 100 });
    try {
      const old = await send(t.member, c, "span");
      clock.advance(200);
      const recent = [await send(t.member, c, "span"), await send(t.member, c, "span")];
      const r = await refused(
        srv,
        () => edit(t.member, recent[0], { topic: "moved", propagate_mode: "change_all" }),
        "You only have permission to move the 2/3 most recent messages in this topic.",
        "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
      );
      assert.deepEqual([r.body.first_message_id_allowed_to_move, r.body.total_messages_in_topic, r.body.total_messages_allowed_to_move], [recent[0], 3, 2]);
      await ok(edit(t.member, recent[0], { topic: "moved", propagate_mode: "change_later" }));
      assert.equal((await message(old)).topic, "span");
    } finally {
      await setRealmProps(srv.app, t.realm.id, { move_messages_within_stream_limit_seconds: 604800 });
    }
  });

  test("resolving: its own permission, a notice instead of a breadcrumb, and no moved indicator", async () => {
    const c = await makeChannel([t.member, t.member2]);
    const id = await send(t.member2, c, "bug");
    await setRealmGroupSetting(srv.app, t.realm.id, "can_resolve_topics_group", "role:nobody");
    try {
      await refused(srv, () => edit(t.member, id, { topic: "✔ bug", propagate_mode: "change_all" }), "You don't have permission to resolve topics in this channel.");
      await ok(api(t.owner).patch(`/streams/${c.id}`, { can_resolve_topics_group: { new: { direct_members: [t.member.id], direct_subgroups: [] } } }));
      const log = new EventLog(srv);
      await ok(edit(t.member, id, { topic: "✔ bug", propagate_mode: "change_all" }));
      log.stop();
      const notices = log.of("message");
      assert.deepEqual(notices.map((n) => (n.event.message as { content: string }).content), [`@_**Mel Member|${t.member.id}** has marked this topic as resolved.`]);
      assert.deepEqual(notices[0].perUser!.get(t.member2.id), { flags: [] }, "the participant still has it unread");
      assert.equal((await message(id)).last_moved_time, null);
      await ok(edit(t.member, id, { topic: "bug", propagate_mode: "change_all" }));
      assert.equal((await message(id)).topic, "bug");
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_resolve_topics_group", "role:everyone");
    }
  });

  test("the destination channel's topics policy applies", async () => {
    const c = await makeChannel([t.member], { extra: { topics_policy: JSON.stringify("disable_empty_topic") } });
    const id = await send(t.member, c, "named");
    await refused(srv, () => edit(t.member, id, { topic: "" }), "Sending messages to the general chat topic is not allowed in this channel.");
    await refused(srv, () => edit(t.member, id, { topic: "(no topic)" }), "Sending messages to the general chat topic is not allowed in this channel.");
  });
});

describe("PATCH /messages/{id}: moving to another channel", () => {
  test("to a private channel: people who cannot read it lose the message, the rest hear of the move", async () => {
    const from = await makeChannel([t.member, t.guest, t.moderator]);
    const to = await makeChannel([t.member], { private: true });
    const id = await send(t.member, from, "move me");
    const log = new EventLog(srv);
    await ok(edit(t.member, id, { stream_id: to.id, send_notification_to_old_thread: true }));
    log.stop();
    const m = await message(id);
    assert.deepEqual([m.stream_id, m.topic], [to.id, "move me"]);
    assert.deepEqual(log.of("delete_message").map((n) => [n.userIds, n.event]), [
      [sorted([t.guest.id, t.moderator.id]), { type: "delete_message", message_ids: [id], message_type: "stream", stream_id: from.id, topic: "move me" }],
    ]);
    const [update] = log.of("update_message");
    assert.deepEqual([update.event.new_stream_id, update.event.orig_subject, update.event.subject, update.event.stream_id], [to.id, "move me", undefined, from.id]);
    assert.deepEqual(update.userIds, sorted([t.owner.id, t.member.id]));
    const holders = await srv.app.db.selectFrom("user_messages").select("user_id").where("message_id", "=", id).orderBy("user_id").execute();
    assert.deepEqual(holders.map((r) => r.user_id), sorted([t.owner.id, t.member.id]));
    const contents = log.of("message").map((n) => (n.event.message as { content: string }).content);
    assert.ok(contents.includes(`This topic was moved here from #**${from.name}>move me** by @_**Mel Member|${t.member.id}**.`));
    assert.ok(contents.includes(`This topic was moved to #**${to.name}>move me** by @_**Mel Member|${t.member.id}**.`));
  });

  test("who may move between channels, and into which", async () => {
    const from = await makeChannel([t.member, t.member2, t.moderator]);
    const to = await makeChannel([t.member, t.member2, t.moderator]);
    const secret = await makeChannel([], { private: true });
    const id = await send(t.moderator, from, "x");
    await refused(srv, () => edit(t.member, id, { stream_id: secret.id }), "Invalid channel ID");
    await refused(srv, () => edit(t.guest, id, { stream_id: to.id }), "Invalid message(s)");
    await setRealmGroupSetting(srv.app, t.realm.id, "can_move_messages_between_channels_group", "role:nobody");
    try {
      await refused(srv, () => edit(t.member, id, { stream_id: to.id }), NO_MOVE);
      await refused(srv, () => edit(t.moderator, id, { stream_id: to.id }), NO_MOVE);
      await ok(edit(t.member2, id, { stream_id: to.id }));
      await ok(edit(t.admin, id, { stream_id: from.id }));
      await ok(api(t.owner).patch(`/streams/${from.id}`, { can_move_messages_out_of_channel_group: { new: { direct_members: [t.member.id], direct_subgroups: [] } } }));
      await ok(edit(t.member, id, { stream_id: to.id }));
      await refused(srv, () => edit(t.member, id, { stream_id: from.id }), NO_MOVE);
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_move_messages_between_channels_group", "role:members");
    }
    await ok(api(t.owner).patch(`/streams/${from.id}`, { can_send_message_group: { new: await systemGroupId(srv.app, t.realm.id, "role:administrators") } }));
    await refused(srv, () => edit(t.member, id, { stream_id: from.id }), "You do not have permission to post in this channel.");
    await setRealmProps(srv.app, t.realm.id, { move_messages_between_streams_limit_seconds: 100 });
    try {
      const third = await makeChannel([t.member]);
      const other = await send(t.member, to, "y");
      clock.advance(121);
      await refused(srv, () => edit(t.member, other, { stream_id: third.id }), "The time limit for editing this message's channel has passed");
      await ok(edit(t.moderator, other, { stream_id: third.id }));
    } finally {
      await setRealmProps(srv.app, t.realm.id, { move_messages_between_streams_limit_seconds: 604800 });
    }
  });

  test("messages in archived channels cannot be changed", async () => {
    const c = await makeChannel([t.member]);
    const id = await send(t.member, c, "x");
    await ok(api(t.admin).delete(`/streams/${c.id}`));
    await refused(srv, () => edit(t.member, id, { content: "y" }), "Invalid message(s)");
    await refused(srv, () => edit(t.member, id, { topic: "y" }), "Invalid message(s)");
  });
});

describe("PATCH /messages/{id}: through an event queue", () => {
  test("a recipient's queue gets the edit with its own flags; clients without empty_topic_name see the display name", async () => {
    const c = await makeChannel([t.member, t.member2]);
    const id = await send(t.member, c, "");
    const q = await ok(api(t.member2).post("/register", { event_types: ["update_message"] }));
    await ok(edit(t.member, id, { topic: "named" }));
    const events = (await ok(api(t.member2).get("/events", { queue_id: q.queue_id, last_event_id: -1 }))).events;
    assert.equal(events.length, 1);
    assert.deepEqual([events[0].type, events[0].orig_subject, events[0].subject, events[0].message_id], ["update_message", "general chat", "named", id]);
    assert.deepEqual(events[0].flags, []);
  });
});
