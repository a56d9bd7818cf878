/**
 * Reminders: created about a message the user can read, listed and cancelled, announced to the
 * user's own queues, and sent by Notification Bot through the scheduled-message worker.
 */
import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ManualTime } from "../helpers/time.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { makeChannel, ok, refused, type MadeChannel } from "../helpers/channels.js";
import { getNotificationBot } from "../../src/store/users.js";

let time: ManualTime;
let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
let channel: MadeChannel;
let botId: number;
let channelMessage: number;

const api = (u: TestUser) => new Api(srv.url, u);
const worker = () => srv.scheduledMessages;
const inAnHour = () => Math.ceil(time.now()) + 3600;
const mention = (u: TestUser) => `@_**${u.fullName}|${u.id}**`;

before(async () => {
  time = new ManualTime(1700000000.5);
  srv = await startTestServer({}, { clock: time, timers: time });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  channel = await makeChannel(srv, t, { subscribers: [t.admin, t.moderator, t.member, t.member2, t.guest, t.bot] });
  botId = (await getNotificationBot(srv.app.db, t.realm.id)).id;
  channelMessage = (await ok(api(t.member2).post("/messages", { type: "stream", to: channel.id, topic: "plans", content: "Meet at **noon**" }))).id;
});
after(() => srv.close());
beforeEach(async () => {
  await worker().settled();
  await srv.app.db.deleteFrom("scheduled_messages").execute();
});

async function remind(u: TestUser, params: Record<string, unknown>): Promise<number> {
  const r = await ok(api(u).post("/reminders", params as never));
  await worker().settled();
  return r.reminder_id;
}
const reminderRows = () => srv.app.db.selectFrom("scheduled_messages").selectAll().orderBy("id").execute();

describe("POST /reminders", () => {
  test("every kind of user may set a reminder about a message they can read; only their queues hear of it", async () => {
    const base = srv.app.config.externalUrl;
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      const mine = await ok(api(u).post("/register", { fetch_event_types: ["reminders"], event_types: ["reminders"] }));
      const other = await ok(api(t.member2).post("/register", { event_types: ["reminders"] }));
      assert.deepEqual(mine.reminders, []);
      const when = inAnHour();
      const id = await remind(u, { message_id: channelMessage, scheduled_delivery_timestamp: when, note: "  bring lunch\n\n" });
      const content =
        "You requested a reminder for the following message. Note:\n >   bring lunch\n\n" +
        `${mention(t.member2)} [said](${base}/#narrow/channel/${channel.id}-${channel.name.replace(" ", "-")}/topic/plans/near/${channelMessage}) ` +
        `in #**${channel.name}>plans@${channelMessage}**:\n` +
        "```quote\nMeet at **noon**\n```";
      const listed = (await ok(api(u).get("/reminders"))).reminders;
      assert.equal(listed.length, 1);
      assert.deepEqual({ ...listed[0], rendered_content: undefined }, {
        reminder_id: id,
        type: "private",
        to: [u.id],
        content,
        rendered_content: undefined,
        scheduled_delivery_timestamp: when,
        failed: false,
        reminder_target_message_id: channelMessage,
      });
      assert.match(listed[0].rendered_content, /^<p>You requested a reminder/);
      const events = (await ok(api(u).get("/events", { queue_id: mine.queue_id, last_event_id: -1, dont_block: true }))).events;
      assert.deepEqual(events.map(({ id: _id, ...e }: Record<string, unknown>) => e), [{ type: "reminders", op: "add", reminders: listed }]);
      const none = (await ok(api(t.member2).get("/events", { queue_id: other.queue_id, last_event_id: -1, dont_block: true }))).events;
      assert.deepEqual(none.filter((e: { type: string }) => e.type !== "heartbeat"), []);
      assert.deepEqual((await ok(api(u).post("/register", { fetch_event_types: ["reminders"] }))).reminders, listed);
      // Reminders are not scheduled messages.
      assert.deepEqual((await ok(api(u).get("/scheduled_messages"))).scheduled_messages, []);
      await refused(srv, () => api(u).delete(`/scheduled_messages/${id}`), "Scheduled message does not exist", "BAD_REQUEST", 404);
    }
  });

  test("a direct message is quoted with its recipients", async () => {
    const base = srv.app.config.externalUrl;
    const dm = (await ok(api(t.member2).post("/messages", { type: "private", to: [t.member.id], content: "psst" }))).id;
    const id = await remind(t.member, { message_id: dm, scheduled_delivery_timestamp: inAnHour() });
    const [row] = await reminderRows();
    assert.equal(row.id, id);
    const pair = [t.member.id, t.member2.id].sort((a, b) => a - b).join(",");
    assert.equal(
      row.content,
      "You requested a reminder for the following direct message.\n\n" +
        `${mention(t.member2)} [said](${base}/#narrow/dm/${pair}/near/${dm}) to ${mention(t.member)}:\n` +
        "```quote\npsst\n```",
    );
  });

  test("refused reminders change nothing", async () => {
    const secret = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    const hidden = (await ok(api(t.member).post("/messages", { type: "stream", to: secret.id, topic: "t", content: "x" }))).id;
    const now = Math.floor(time.now());
    await refused(srv, () => api(t.member).post("/reminders", { message_id: channelMessage, scheduled_delivery_timestamp: now }), "Scheduled delivery time must be in the future.");
    for (const u of [t.admin, t.member2, t.guest, t.bot, o.owner]) {
      await refused(srv, () => api(u).post("/reminders", { message_id: hidden, scheduled_delivery_timestamp: inAnHour() }), "Invalid message(s)");
    }
    await refused(srv, () => api(t.member).post("/reminders", { message_id: 2147483648, scheduled_delivery_timestamp: inAnHour() }), "Invalid message(s)");
    await refused(
      srv,
      () => api(t.member).post("/reminders", { message_id: channelMessage, scheduled_delivery_timestamp: inAnHour(), note: "n".repeat(1001) }),
      "Maximum reminder note length: 1000 characters",
    );
    await refused(srv, () => api(t.member).post("/reminders", { scheduled_delivery_timestamp: inAnHour() }), "Missing 'message_id' argument", "REQUEST_VARIABLE_MISSING");
    await refused(srv, () => api(t.member).post("/reminders", { message_id: "x", scheduled_delivery_timestamp: inAnHour() }), "message_id is not valid JSON");
    assert.deepEqual(await reminderRows(), []);
  });
});

describe("DELETE /reminders/{id}", () => {
  test("the owner cancels it and their queues hear of it; nobody else can", async () => {
    const id = await remind(t.member, { message_id: channelMessage, scheduled_delivery_timestamp: inAnHour() });
    const scheduled = (await ok(api(t.member).post("/scheduled_messages", { type: "stream", to: channel.id, topic: "x", content: "later", scheduled_delivery_timestamp: inAnHour() }))).scheduled_message_id;
    for (const u of [t.owner, t.admin, t.member2, o.owner]) await refused(srv, () => api(u).delete(`/reminders/${id}`), "Reminder does not exist", "BAD_REQUEST", 404);
    await refused(srv, () => api(t.member).delete(`/reminders/${scheduled}`), "Reminder does not exist", "BAD_REQUEST", 404);
    await refused(srv, () => api(t.member).delete("/reminders/4294967296"), "Reminder does not exist", "BAD_REQUEST", 404);
    const q = await ok(api(t.member).post("/register", { event_types: ["reminders"] }));
    assert.deepEqual(await ok(api(t.member).delete(`/reminders/${id}`)), { result: "success", msg: "" });
    assert.deepEqual((await ok(api(t.member).get("/reminders"))).reminders, []);
    const events = (await ok(api(t.member).get("/events", { queue_id: q.queue_id, last_event_id: -1, dont_block: true }))).events;
    assert.deepEqual(events.map(({ id: _id, ...e }: Record<string, unknown>) => e), [{ type: "reminders", op: "remove", reminder_id: id }]);
    assert.deepEqual((await reminderRows()).map((r) => r.id), [scheduled]);
  });
});

describe("delivery", () => {
  test("at its time Notification Bot sends the reminder to the user, who is told it is no longer pending", async () => {
    const when = inAnHour();
    const id = await remind(t.member, { message_id: channelMessage, scheduled_delivery_timestamp: when });
    const { content } = (await reminderRows())[0];
    const before = (await srv.app.db.selectFrom("messages").select((eb) => eb.fn.max("id").as("id")).executeTakeFirst())!.id!;
    const sentAfter = () => srv.app.db.selectFrom("messages").selectAll().where("id", ">", before).execute();

    time.advance(when - time.now() - 1);
    await worker().settled();
    assert.deepEqual(await sentAfter(), [], "nothing is sent a second early");
    // Registered late: a queue nobody polls for an hour is gone.
    const q = await ok(api(t.member).post("/register", { event_types: ["reminders", "message"] }));
    time.advance(1);
    await worker().settled();

    const [message, ...more] = await sentAfter();
    assert.deepEqual(more, []);
    assert.deepEqual([message.sender_id, message.stream_id, message.content, message.dm_key], [botId, null, content, [botId, t.member.id].sort((a, b) => a - b).join(",")]);
    const row = (await reminderRows())[0];
    assert.deepEqual([row.delivered, row.delivered_message_id], [1, message.id]);
    assert.deepEqual((await ok(api(t.member).get("/reminders"))).reminders, []);
    const events = (await ok(api(t.member).get("/events", { queue_id: q.queue_id, last_event_id: -1, dont_block: true }))).events;
    assert.deepEqual(
      events.map((e: { type: string; op?: string; reminder_id?: number; message?: { id: number; sender_id: number } }) =>
        e.type === "message" ? [e.type, e.message!.id, e.message!.sender_id] : [e.type, e.op, e.reminder_id],
      ),
      [
        ["message", message.id, botId],
        ["reminders", "remove", id],
      ],
    );
  });

  test("the reminder quotes the message as it is when sent, or as it was if it is gone", async () => {
    const edited = (await ok(api(t.member2).post("/messages", { type: "stream", to: channel.id, topic: "t", content: "draft plan" }))).id;
    const deleted = (await ok(api(t.member2).post("/messages", { type: "stream", to: channel.id, topic: "t", content: "old news" }))).id;
    const when = inAnHour();
    await remind(t.member, { message_id: edited, scheduled_delivery_timestamp: when, note: "check" });
    await remind(t.member, { message_id: deleted, scheduled_delivery_timestamp: when });
    await ok(api(t.member2).patch(`/messages/${edited}`, { content: "final plan" }));
    await ok(api(t.owner).delete(`/messages/${deleted}`));
    const before = (await srv.app.db.selectFrom("messages").select((eb) => eb.fn.max("id").as("id")).executeTakeFirst())!.id!;
    // Well after the time: unlike scheduled messages, reminders are still sent late.
    await worker().settled();
    time.current = when + 7 * 24 * 3600;
    assert.equal(await worker().runPass(), 2);
    const sent = await srv.app.db.selectFrom("messages").selectAll().where("id", ">", before).orderBy("id").execute();
    assert.deepEqual(sent.map((m) => m.sender_id), [botId, botId]);
    const [fresh, stale] = sent;
    assert.ok(fresh.content.startsWith("You requested a reminder for the following message. Note:\n > check\n\n"), fresh.content);
    assert.ok(fresh.content.endsWith("```quote\nfinal plan\n```"), fresh.content);
    assert.ok(stale.content.endsWith("```quote\nold news\n```"), stale.content);
  });

  test("a reminder whose owner was deactivated fails without a notice", async () => {
    const when = inAnHour();
    await remind(t.guest, { message_id: channelMessage, scheduled_delivery_timestamp: when });
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.guest.id).execute();
    try {
      const before = (await srv.app.db.selectFrom("messages").select((eb) => eb.fn.max("id").as("id")).executeTakeFirst())!.id!;
      time.advance(when - time.now());
      await worker().settled();
      assert.deepEqual(await srv.app.db.selectFrom("messages").select("id").where("id", ">", before).execute(), []);
      const [row] = await reminderRows();
      assert.deepEqual([row.delivered, row.failed], [0, 1]);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.guest.id).execute();
    }
  });
});
