/**
 * The delivery of scheduled messages: on time by the injected clock and timers, with the
 * sender's identity, failures reported as Zulip reports them, across restarts, and never twice,
 * even with two server processes on one database.
 */
import { test, before, after, beforeEach, describe } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { sql } from "kysely";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { ManualTime } from "../helpers/time.js";
import { Api, type ParamValue } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { runAction } from "../../src/actions/run.js";
import { createStreamInTx } from "../../src/actions/streams.js";
import { addSubscriptions, removeSubscriptions, subscriberIds } from "../../src/store/subscriptions.js";
import { FLAG_BITS } from "../../src/domain/message_flags.js";
import { failureNotice, LATE_CUTOFF_SECONDS } from "../../src/domain/scheduled_messages.js";

let time: ManualTime;
let srv: TestServer;
let t: TestRealm;
let general: number;
let secret: number;
let notificationBot: number;

const api = (u: TestUser) => new Api(srv.url, u);
const worker = () => srv.scheduledMessages;

async function schedule(u: TestUser, params: Record<string, ParamValue | undefined>): Promise<number> {
  const r = await api(u).post("/scheduled_messages", params);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  await worker().settled();
  return r.body.scheduled_message_id;
}

const inAnHour = () => Math.ceil(time.now()) + 3600;
const channelMessage = (when: number, over: Record<string, ParamValue> = {}) => ({
  type: "channel",
  to: general,
  topic: "castle",
  content: "Good *morning*",
  scheduled_delivery_timestamp: when,
  ...over,
});

const stored = (id: number) => srv.app.db.selectFrom("scheduled_messages").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const lastMessageId = async () =>
  (await srv.app.db.selectFrom("messages").select((eb) => eb.fn.max("id").as("id")).executeTakeFirst())?.id ?? 0;
const messagesAfter = (id: number) => srv.app.db.selectFrom("messages").selectAll().where("id", ">", id).orderBy("id").execute();

/** Moves the clock without firing the worker's timers, then runs one pass by hand. */
async function passAt(when: number): Promise<number> {
  await worker().settled();
  time.current = when;
  return worker().runPass();
}

before(async () => {
  time = new ManualTime(1700000000.5);
  srv = await startTestServer({}, { clock: time, timers: time });
  t = await createTestRealm(srv.app);
  general = (await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "general").executeTakeFirstOrThrow()).id;
  secret = await runAction(srv.app, async (tx) => {
    const s = await createStreamInTx(tx, srv.app, t.realm, null, { name: "secret", inviteOnly: true });
    await addSubscriptions(tx, s.id, [t.member.id]);
    await addSubscriptions(tx, general, [t.member.id, t.member2.id, t.admin.id]);
    return s.id;
  });
  notificationBot = (
    await srv.app.db.selectFrom("users").select("id").where("realm_id", "=", t.realm.id).where("email", "=", "notification-bot@zulip.com").executeTakeFirstOrThrow()
  ).id;
});
after(() => srv.close());
beforeEach(async () => {
  await worker().settled();
  await srv.app.db.deleteFrom("scheduled_messages").execute();
});

describe("delivery on time", () => {
  test("the worker's timer sends the message at its time, as its sender, and tells the sender's clients", async () => {
    const when = inAnHour();
    const id = await schedule(t.member, { ...channelMessage(when), client: "website" });
    const before = await lastMessageId();
    const log = new EventLog(srv);

    time.advance(when - time.now() - 1);
    await worker().settled();
    assert.deepEqual(await messagesAfter(before), [], "nothing is sent a second early");

    time.advance(1);
    await worker().settled();
    log.stop();
    const [message, ...more] = await messagesAfter(before);
    assert.deepEqual(more, []);
    assert.deepEqual(
      [message.sender_id, message.stream_id, message.topic, message.content, message.rendered_content, message.client, message.date_sent],
      [t.member.id, general, "castle", "Good *morning*", "<p>Good <em>morning</em></p>", "website", Math.floor(time.now())],
    );
    const row = await stored(id);
    assert.deepEqual([row.delivered, row.delivered_message_id, row.failed], [1, message.id, 0]);

    const [sent] = log.of("message");
    assert.deepEqual([...sent.userIds].sort(), [...(await subscriberIds(srv.app.db, general))].sort());
    assert.deepEqual(sent.perUser!.get(t.member.id)!.flags, ["read"], "read by its sender, as scheduled from the web");
    assert.deepEqual(sent.perUser!.get(t.member2.id)!.flags, []);
    assert.deepEqual(log.of("scheduled_messages"), [
      { realmId: t.realm.id, event: { type: "scheduled_messages", op: "remove", scheduled_message_id: id }, userIds: [t.member.id] },
    ]);
    assert.deepEqual((await api(t.member).get("/scheduled_messages")).body.scheduled_messages, []);
  });

  test("the timer also wakes for the earliest of several messages, and for a rescheduled one", async () => {
    const base = inAnHour();
    const later = await schedule(t.member, channelMessage(base + 600, { content: "second" }));
    const sooner = await schedule(t.member, channelMessage(base + 300, { content: "first" }));
    const moved = await schedule(t.member, channelMessage(base + 900, { content: "moved" }));
    await api(t.member).patch(`/scheduled_messages/${moved}`, { scheduled_delivery_timestamp: base + 100 });
    await worker().settled();
    const before = await lastMessageId();
    time.advance(base + 100 - time.now());
    await worker().settled();
    assert.deepEqual((await messagesAfter(before)).map((m) => m.content), ["moved"]);
    time.advance(200);
    await worker().settled();
    assert.deepEqual((await messagesAfter(before)).map((m) => m.content), ["moved", "first"]);
    time.advance(300);
    await worker().settled();
    assert.deepEqual((await messagesAfter(before)).map((m) => m.content), ["moved", "first", "second"]);
    for (const id of [later, sooner, moved]) assert.equal((await stored(id)).delivered, 1);
  });

  test("direct messages reach every participant; a pass sends each due message once", async () => {
    const when = inAnHour();
    await schedule(t.member, { type: "direct", to: [t.member2.id, t.admin.id], content: "group", scheduled_delivery_timestamp: when });
    await schedule(t.member, { type: "private", to: [t.member.id], content: "note to self", scheduled_delivery_timestamp: when + 1 });
    await schedule(t.member, channelMessage(when + 3600, { content: "not yet" }));
    const before = await lastMessageId();
    const log = new EventLog(srv);
    assert.equal(await passAt(when + 1), 2);
    assert.equal(await worker().runPass(), 0);
    log.stop();
    const sent = await messagesAfter(before);
    assert.deepEqual(
      sent.map((m) => [m.content, m.dm_key]),
      [
        ["group", [t.member.id, t.member2.id, t.admin.id].sort((a, b) => a - b).join(",")],
        ["note to self", String(t.member.id)],
      ],
    );
    const [group] = log.of("message");
    assert.deepEqual([...group.userIds].sort(), [t.member.id, t.member2.id, t.admin.id].sort());
    assert.deepEqual(group.perUser!.get(t.admin.id)!.flags, []);
    const flags = await srv.app.db.selectFrom("user_messages").select("flags").where("message_id", "=", sent[1].id).executeTakeFirstOrThrow();
    assert.equal(flags.flags & FLAG_BITS.is_private, FLAG_BITS.is_private);
  });

  test("a message up to ten minutes late is still sent", async () => {
    const when = inAnHour();
    const id = await schedule(t.member, channelMessage(when));
    assert.equal(await passAt(when + LATE_CUTOFF_SECONDS), 1);
    assert.equal((await stored(id)).delivered, 1);
  });
});

describe("failures", () => {
  /** Schedules, lets `breakIt` change the world, runs a pass at the due time, and checks the failure report. */
  async function failsWith(params: Record<string, ParamValue>, breakIt: () => Promise<void>, reason: string, at?: number) {
    const when = params.scheduled_delivery_timestamp as number;
    const id = await schedule(t.member, params);
    await breakIt();
    const before = await lastMessageId();
    const log = new EventLog(srv);
    assert.equal(await passAt(at ?? when), 1);
    log.stop();
    const row = await stored(id);
    assert.deepEqual([row.delivered, row.failed, row.failure_message], [0, 1, reason]);

    const notice = await messagesAfter(before);
    assert.deepEqual(
      notice.map((m) => [m.sender_id, m.dm_key, m.content]),
      [[notificationBot, [notificationBot, t.member.id].sort((a, b) => a - b).join(","), failureNotice(when, reason)]],
      "only Notification Bot's notice is sent",
    );
    const listed = (await api(t.member).get("/scheduled_messages")).body.scheduled_messages;
    assert.deepEqual(log.of("scheduled_messages"), [
      { realmId: t.realm.id, event: { type: "scheduled_messages", op: "update", scheduled_message: listed[0] }, userIds: [t.member.id] },
    ]);
    assert.equal(listed[0].failed, true);
    assert.deepEqual(log.of("message").map((n) => n.userIds.sort()), [[notificationBot, t.member.id].sort()]);
    return id;
  }

  test("the channel was archived", async () => {
    const s = await runAction(srv.app, (tx) => createStreamInTx(tx, srv.app, t.realm, null, { name: "doomed" }));
    await failsWith(
      channelMessage(inAnHour(), { to: s.id }),
      () => srv.app.db.updateTable("streams").set({ is_archived: 1 }).where("id", "=", s.id).execute().then(() => undefined),
      "Not authorized to send to channel 'doomed'",
    );
  });

  test("the sender lost access to the private channel", async () => {
    await failsWith(
      channelMessage(inAnHour(), { to: secret }),
      () => removeSubscriptions(srv.app.db, secret, [t.member.id]).then(() => undefined),
      "Not authorized to send to channel 'secret'",
    );
    await addSubscriptions(srv.app.db, secret, [t.member.id]);
  });

  test("a recipient was deactivated", async () => {
    const email = (await srv.app.db.selectFrom("users").select("email").where("id", "=", t.moderator.id).executeTakeFirstOrThrow()).email;
    await failsWith(
      { type: "direct", to: [t.moderator.id], content: "hi", scheduled_delivery_timestamp: inAnHour() },
      () => srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.moderator.id).execute().then(() => undefined),
      `'${email}' is no longer using Zulip.`,
    );
    await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.moderator.id).execute();
  });

  test("the channel now refuses the empty topic", async () => {
    const s = await runAction(srv.app, (tx) => createStreamInTx(tx, srv.app, t.realm, null, { name: "tidy" }));
    await failsWith(
      channelMessage(inAnHour(), { to: s.id, topic: "" }),
      () => srv.app.db.updateTable("streams").set({ topics_policy: "disable_empty_topic" }).where("id", "=", s.id).execute().then(() => undefined),
      "Sending messages to the general chat topic is not allowed in this channel.",
    );
  });

  test("more than ten minutes late", async () => {
    const when = inAnHour();
    await failsWith(channelMessage(when), async () => {}, "Message could not be sent at the scheduled time.", when + LATE_CUTOFF_SECONDS + 1);
  });

  test("an edit with a new time brings a failed message back, and it is then sent", async () => {
    const s = await runAction(srv.app, (tx) => createStreamInTx(tx, srv.app, t.realm, null, { name: "revived" }));
    const archive = (flag: 0 | 1) => srv.app.db.updateTable("streams").set({ is_archived: flag }).where("id", "=", s.id).execute();
    const id = await failsWith(channelMessage(inAnHour(), { to: s.id }), () => archive(1).then(() => undefined), "Not authorized to send to channel 'revived'");
    await archive(0);
    assert.equal(await worker().runPass(), 0, "a failed message is not tried again by itself");
    const when = inAnHour();
    const r = await api(t.member).patch(`/scheduled_messages/${id}`, { scheduled_delivery_timestamp: when });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const row = await stored(id);
    assert.deepEqual([row.failed, row.failure_message], [0, null]);
    const before = await lastMessageId();
    assert.equal(await passAt(when), 1);
    assert.deepEqual((await messagesAfter(before)).map((m) => [m.stream_id, m.sender_id]), [[s.id, t.member.id]]);
    assert.equal((await stored(id)).delivered, 1);
  });

  test("a deactivated sender, or organization, fails silently", async () => {
    for (const [table, id] of [
      ["users", t.member2.id],
      ["realms", t.realm.id],
    ] as const) {
      const when = inAnHour();
      const scheduled = await schedule(t.member2, channelMessage(when));
      const column = table === "users" ? { is_active: 0 as const } : { deactivated: 1 as const };
      await srv.app.db.updateTable(table).set(column).where("id", "=", id).execute();
      const before = await lastMessageId();
      const log = new EventLog(srv);
      try {
        assert.equal(await passAt(when), 1);
      } finally {
        const restore = table === "users" ? { is_active: 1 as const } : { deactivated: 0 as const };
        await srv.app.db.updateTable(table).set(restore).where("id", "=", id).execute();
      }
      log.stop();
      const row = await stored(scheduled);
      assert.deepEqual([row.failed, row.failure_message], [1, table === "users" ? "Account is deactivated" : "This organization has been deactivated"]);
      assert.deepEqual(await messagesAfter(before), []);
      assert.deepEqual(log.notices, []);
    }
  });

  test("an unexpected error while sending rolls the send back and reports an internal error", async () => {
    const when = inAnHour();
    const id = await schedule(t.member, channelMessage(when, { content: "explode" }));
    // The database refuses this one message mid-send, as an unforeseen failure would.
    const db = srv.app.db;
    const trap =
      srv.app.dialect === "sqlite"
        ? [sql`create trigger explode before insert on messages when new.content = 'explode' begin select raise(abort, 'explode'); end`]
        : [
            sql`create function explode() returns trigger as $$ begin if new.content = 'explode' then raise exception 'explode'; end if; return new; end $$ language plpgsql`,
            sql`create trigger explode before insert on messages for each row execute function explode()`,
          ];
    for (const statement of trap) await statement.execute(db);
    const before = await lastMessageId();
    try {
      assert.equal(await passAt(when), 1);
    } finally {
      await sql`drop trigger explode${srv.app.dialect === "sqlite" ? sql`` : sql` on messages`}`.execute(db);
      if (srv.app.dialect === "postgres") await sql`drop function explode()`.execute(db);
    }
    const row = await stored(id);
    assert.deepEqual([row.delivered, row.delivered_message_id, row.failed, row.failure_message], [0, null, 1, "Internal server error"]);
    assert.deepEqual(
      (await messagesAfter(before)).map((m) => [m.sender_id, m.content]),
      [[notificationBot, failureNotice(when, "Internal server error")]],
    );
  });
});

describe("restarts and several servers", () => {
  /** A server of its own, with an organization and its one channel. */
  async function ownServer() {
    const clock = new ManualTime(1800000000);
    const server = await startTestServer({}, { clock, timers: clock });
    const r = await createTestRealm(server.app);
    const channel = (await server.app.db.selectFrom("streams").select("id").where("realm_id", "=", r.realm.id).executeTakeFirstOrThrow()).id;
    return { clock, server, r, channel };
  }

  test("messages survive a restart: sent when they come due, or reported if the server was down too long", async () => {
    const own = await ownServer();
    const { r, channel } = own;
    let server = own.server;
    try {
      const post = (when: number, content: string) =>
        new Api(server.url, r.member).post("/scheduled_messages", { type: "stream", to: channel, topic: "t", content, scheduled_delivery_timestamp: when });
      const soon = (await post(1800000700, "soon")).body.scheduled_message_id;
      const missed = (await post(1800000050, "missed")).body.scheduled_message_id;
      const afterRestart = (await post(1800003600, "after restart")).body.scheduled_message_id;
      await server.scheduledMessages.settled();

      // Down from before either was due until 10 seconds after the first and 11 minutes after the second.
      const later = new ManualTime(1800000050 + LATE_CUTOFF_SECONDS + 60);
      server = await server.restart({ clock: later, timers: later });
      await server.scheduledMessages.settled();
      const state = async () =>
        Object.fromEntries(
          (await server.app.db.selectFrom("scheduled_messages").selectAll().execute()).map((m) => [m.id, [m.delivered, m.failed]]),
        );
      assert.deepEqual(await state(), { [soon]: [1, 0], [missed]: [0, 1], [afterRestart]: [0, 0] });

      later.advance(1800003600 - later.now());
      await server.scheduledMessages.settled();
      assert.deepEqual(await state(), { [soon]: [1, 0], [missed]: [0, 1], [afterRestart]: [1, 0] });
      const sent = await server.app.db.selectFrom("messages").select("content").where("stream_id", "=", channel).execute();
      assert.deepEqual(sent.map((m) => m.content).sort(), ["after restart", "soon"]);
    } finally {
      await server.close();
    }
  });

  test("two server processes on one database never send a message twice", async () => {
    const { clock, server, r, channel } = await ownServer();
    try {
      const count = 40;
      for (let i = 0; i < count; i++) {
        const res = await new Api(server.url, r.member).post("/scheduled_messages", {
          type: "stream",
          to: channel,
          topic: "race",
          content: `message ${i}`,
          scheduled_delivery_timestamp: 1800000100 + (i % 3),
        });
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
      await server.scheduledMessages.settled();
      const due = 1800000200;

      const script = fileURLToPath(new URL("../helpers/scheduled_delivery_process.ts", import.meta.url));
      const { dataDir, databaseUrl } = server.app.config;
      const child = spawn(process.execPath, ["--import", "tsx", script, dataDir, databaseUrl ?? "", String(due)], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      const exited = once(child, "exit");
      const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
      assert.equal((await lines.next()).value, "ready");
      // Both processes start their passes together.
      child.stdin!.write("go\n");
      clock.current = due;
      const mine = await server.scheduledMessages.runPass();
      const report = await lines.next();
      assert.equal(report.done, false, "the other process reports its pass");
      const theirs = JSON.parse(report.value).attempted as number;
      assert.deepEqual(await exited, [0, null]);

      assert.equal(mine + theirs, count);
      const sent = await server.app.db.selectFrom("messages").select("content").where("stream_id", "=", channel).execute();
      assert.equal(sent.length, count);
      assert.equal(new Set(sent.map((m) => m.content)).size, count);
      const rows = await server.app.db.selectFrom("scheduled_messages").select(["delivered", "failed", "delivered_message_id"]).execute();
      assert.ok(rows.every((m) => m.delivered === 1 && m.failed === 0 && m.delivered_message_id !== null));
    } finally {
      await server.close();
    }
  });
});
