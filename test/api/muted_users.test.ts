/**
 * Muting users: POST/DELETE /users/me/muted_users/{id}, the `muted_users` events and register
 * section, and the effect on read state (existing messages marked read, new ones arriving read).
 */
import { test, before, after, describe, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { ok } from "../helpers/channels.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { expectError } from "../helpers/expect.js";
import { runAction } from "../../src/actions/run.js";
import { createStreamInTx } from "../../src/actions/streams.js";
import { createUserInTx } from "../../src/actions/users.js";
import { addSubscriptions } from "../../src/store/subscriptions.js";
import { systemGroupIds } from "../../src/store/groups.js";
import { Role } from "../../src/domain/roles.js";
import { FLAG_BITS } from "../../src/domain/message_flags.js";

const NOW = 1700000000;

let srv: TestServer;
let clock: ManualClock;
let t: TestRealm;
let o: TestRealm;

const api = (u: TestUser) => new Api(srv.url, u);
type Ev = Record<string, unknown>;

const mute = (u: TestUser, id: number) => api(u).post(`/users/me/muted_users/${id}`);
const unmute = (u: TestUser, id: number) => api(u).delete(`/users/me/muted_users/${id}`);

async function register(u: TestUser, eventTypes: string[], fetch?: string[]) {
  return ok(api(u).post("/register", { event_types: eventTypes, fetch_event_types: fetch }));
}

async function drain(u: TestUser, queueId: string): Promise<Ev[]> {
  const body = await ok(api(u).get("/events", { queue_id: queueId, last_event_id: -1, dont_block: true }));
  return body.events.filter((e: Ev) => e.type !== "heartbeat").map(({ id: _id, ...e }: Ev) => e);
}

const mutedRows = () => srv.app.db.selectFrom("muted_users").selectAll().orderBy("user_id").orderBy("muted_user_id").execute();

async function sendToLounge(from: TestUser, content = "hi"): Promise<number> {
  return (await ok(api(from).post("/messages", { type: "stream", to: "lounge", topic: "chat", content }))).id;
}

async function sendDm(from: TestUser, to: TestUser[]): Promise<number> {
  return (await ok(api(from).post("/messages", { type: "private", to: to.map((u) => u.id), content: "psst" }))).id;
}

async function isRead(userId: number, messageId: number): Promise<boolean> {
  const row = await srv.app.db.selectFrom("user_messages").select("flags").where("user_id", "=", userId).where("message_id", "=", messageId).executeTakeFirstOrThrow();
  return (row.flags & FLAG_BITS.read) !== 0;
}

before(async () => {
  clock = new ManualClock(NOW);
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  await runAction(srv.app, async (tx) => {
    const s = await createStreamInTx(tx, srv.app, t.realm, null, { name: "lounge" });
    await addSubscriptions(tx, s.id, [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot].map((u) => u.id));
  });
});
after(() => srv.close());
beforeEach(async () => {
  await srv.app.db.deleteFrom("muted_users").execute();
});

describe("POST /users/me/muted_users/{id}", () => {
  test("every role can mute another user; the list is stored with the time", async () => {
    const roles = [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot];
    for (const u of roles) await ok(mute(u, t.member2.id));
    assert.deepEqual(
      (await mutedRows()).map((r) => [r.user_id, r.muted_user_id, Number(r.date_muted)]),
      roles.map((u) => [u.id, t.member2.id, NOW]).sort((a, b) => a[0] - b[0]),
    );
  });

  test("the muter's queues get the whole list (id and timestamp); nobody else hears of it", async () => {
    const mine = await register(t.member, ["muted_users"]);
    const theirs = await register(t.member2, ["muted_users"]);
    await ok(mute(t.member, t.member2.id));
    clock.advance(60);
    await ok(mute(t.member, t.bot.id));
    assert.deepEqual(await drain(t.member, mine.queue_id), [
      { type: "muted_users", muted_users: [{ id: t.member2.id, timestamp: NOW }] },
      {
        type: "muted_users",
        muted_users: [
          { id: t.member2.id, timestamp: NOW },
          { id: t.bot.id, timestamp: NOW + 60 },
        ],
      },
    ]);
    assert.deepEqual(await drain(t.member2, theirs.queue_id), []);
    const state = await register(t.member, [], ["muted_users"]);
    assert.deepEqual(state.muted_users, [
      { id: t.member2.id, timestamp: NOW },
      { id: t.bot.id, timestamp: NOW + 60 },
    ]);
    assert.deepEqual((await register(t.member2, [], ["muted_users"])).muted_users, []);
    clock.current = NOW;
  });

  test("bots, system bots and deactivated users can be muted", async () => {
    const notificationBot = await srv.app.db.selectFrom("users").select("id").where("realm_id", "=", t.realm.id).where("email", "=", "notification-bot@zulip.com").executeTakeFirstOrThrow();
    const gone = await runAction(srv.app, (tx) => createUserInTx(tx, srv.app, t.realm, { email: "gone@zulip.example.com", fullName: "Gone", role: Role.MEMBER }));
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", gone.id).execute();
    for (const id of [t.bot.id, notificationBot.id, gone.id]) await ok(mute(t.member, id));
    assert.equal((await mutedRows()).length, 3);
  });

  test("Zulip's errors, with nothing stored or sent", async () => {
    await ok(mute(t.member, t.member2.id));
    const q = await register(t.member, ["muted_users", "update_message_flags"]);
    const before = await mutedRows();
    expectError(await mute(t.member, t.member.id), "Cannot mute self");
    expectError(await mute(t.member, t.member2.id), "User already muted");
    expectError(await mute(t.member, 987654), "No such user");
    expectError(await mute(t.member, 2 ** 40), "No such user");
    expectError(await mute(t.member, o.member.id), "No such user");
    expectError(await mute(o.member, t.member.id), "No such user");
    expectError(await unmute(t.member, t.admin.id), "User is not muted");
    expectError(await unmute(t.member, 987654), "No such user");
    expectError(await unmute(t.member, o.member.id), "No such user");
    // Only muting checks for oneself; unmuting oneself finds no mute.
    expectError(await unmute(t.member, t.member.id), "User is not muted");
    assert.deepEqual(await mutedRows(), before);
    assert.deepEqual(await drain(t.member, q.queue_id), []);
  });

  test("a guest who may not see everyone cannot mute people it cannot see", async () => {
    const original = t.realm.groupSettings;
    const members = (await systemGroupIds(srv.app.db, t.realm.id)).get("role:members")!;
    const stranger = await runAction(srv.app, (tx) =>
      createUserInTx(tx, srv.app, t.realm, { email: "stranger@zulip.example.com", fullName: "Stranger", role: Role.MEMBER }),
    );
    await srv.app.db.deleteFrom("subscriptions").where("user_id", "=", stranger.id).execute();
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify({ ...original, can_access_all_users_group: members }) }).where("id", "=", t.realm.id).execute();
    try {
      expectError(await mute(t.guest, stranger.id), "Insufficient permission");
      await ok(mute(t.guest, t.member2.id));
      await ok(mute(t.guest, t.bot.id));
    } finally {
      await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(original) }).where("id", "=", t.realm.id).execute();
    }
  });
});

describe("muting and read state", () => {
  test("muting marks the muted user's unread messages read, with an update_message_flags event", async () => {
    const inChannel = await sendToLounge(t.member2);
    const direct = await sendDm(t.member2, [t.member]);
    const group = await sendDm(t.member2, [t.member, t.admin]);
    const fromOther = await sendToLounge(t.admin);
    const alreadyRead = await sendToLounge(t.member2);
    const row = await srv.app.db.selectFrom("user_messages").select("flags").where("user_id", "=", t.member.id).where("message_id", "=", alreadyRead).executeTakeFirstOrThrow();
    await srv.app.db.updateTable("user_messages").set({ flags: row.flags | FLAG_BITS.read }).where("user_id", "=", t.member.id).where("message_id", "=", alreadyRead).execute();
    const mine = await register(t.member, ["update_message_flags", "muted_users"]);
    const admins = await register(t.admin, ["update_message_flags", "muted_users"]);
    await ok(mute(t.member, t.member2.id));
    const events = await drain(t.member, mine.queue_id);
    assert.deepEqual(events[0], { type: "update_message_flags", op: "add", operation: "add", flag: "read", messages: [inChannel, direct, group], all: false });
    assert.equal(events[1].type, "muted_users");
    assert.equal(events.length, 2);
    assert.deepEqual(await drain(t.admin, admins.queue_id), []);
    for (const id of [inChannel, direct, group, alreadyRead]) assert.equal(await isRead(t.member.id, id), true);
    assert.equal(await isRead(t.member.id, fromOther), false);
    // Other recipients keep their unread copies.
    assert.equal(await isRead(t.admin.id, group), false);
    assert.equal(await isRead(t.admin.id, inChannel), false);
  });

  test("without unread messages from the muted user, only the muted_users event is sent", async () => {
    const q = await register(t.moderator, ["update_message_flags", "muted_users"]);
    await ok(mute(t.moderator, t.guest.id));
    assert.deepEqual((await drain(t.moderator, q.queue_id)).map((e) => e.type), ["muted_users"]);
  });

  test("new messages from a muted sender arrive read for the muter only, in the event and the database", async () => {
    await ok(mute(t.member, t.member2.id));
    const mine = await register(t.member, ["message"]);
    const admins = await register(t.admin, ["message"]);
    const inChannel = await sendToLounge(t.member2);
    const direct = await sendDm(t.member2, [t.member]);
    const group = await sendDm(t.member2, [t.member, t.admin]);
    const flagsOf = (events: Ev[]) => events.map((e) => [(e.message as { id: number }).id, (e.flags as string[]).includes("read")]);
    assert.deepEqual(flagsOf(await drain(t.member, mine.queue_id)), [
      [inChannel, true],
      [direct, true],
      [group, true],
    ]);
    assert.deepEqual(flagsOf(await drain(t.admin, admins.queue_id)), [
      [inChannel, false],
      [group, false],
    ]);
    const state = await register(t.member, [], ["message", "update_message_flags"]);
    const unreadIds = [
      ...state.unread_msgs.streams.flatMap((s: { unread_message_ids: number[] }) => s.unread_message_ids),
      ...state.unread_msgs.pms.flatMap((s: { unread_message_ids: number[] }) => s.unread_message_ids),
      ...state.unread_msgs.huddles.flatMap((s: { unread_message_ids: number[] }) => s.unread_message_ids),
    ];
    for (const id of [inChannel, direct, group]) assert.ok(!unreadIds.includes(id), String(id));
  });

  test("after unmuting, new messages are unread again and earlier ones stay read", async () => {
    await ok(mute(t.member, t.member2.id));
    const whileMuted = await sendToLounge(t.member2);
    const q = await register(t.member, ["muted_users", "update_message_flags"]);
    await ok(unmute(t.member, t.member2.id));
    assert.deepEqual(await drain(t.member, q.queue_id), [{ type: "muted_users", muted_users: [] }]);
    const afterwards = await sendToLounge(t.member2);
    assert.equal(await isRead(t.member.id, whileMuted), true);
    assert.equal(await isRead(t.member.id, afterwards), false);
    assert.deepEqual(await mutedRows(), []);
  });
});
