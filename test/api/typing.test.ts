import { test, before, after, describe, beforeEach } from "node:test";
import assert from "node:assert/strict";
import { ManualClock, startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { makeChannel, ok, refused, setRealmProps } from "../helpers/channels.js";
import { setUserProp } from "../../src/store/users.js";
import { addSubscriptions } from "../../src/store/subscriptions.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";
import { Role } from "../../src/domain/roles.js";
import { MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS } from "../../src/domain/typing.js";

let srv: TestServer;
let clock: ManualClock;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
const apiEmail = new Map<number, string>();
const person = (u: TestUser) => ({ user_id: u.id, email: apiEmail.get(u.id) });
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const typing = (u: TestUser, params: Record<string, unknown>) => api(u).post("/typing", params as never);
const editTyping = (u: TestUser, id: number, op = "start") => api(u).post(`/messages/${id}/typing`, { op });
const SETTINGS = ["send_private_typing_notifications", "send_stream_typing_notifications", "receives_typing_notifications"];

before(async () => {
  clock = new ManualClock();
  srv = await startTestServer({}, { clock });
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  for (const u of await srv.app.db.selectFrom("users").select(["id", "email"]).execute()) apiEmail.set(u.id, u.email);
});
after(() => srv.close());
beforeEach(async () => {
  for (const u of [...Object.values(t), ...Object.values(o)]) {
    if (typeof u === "object" && "apiKey" in u) for (const s of SETTINGS) await setUserProp(srv.app.db, u.id, s, true);
  }
});

describe("POST /typing to a direct conversation", () => {
  test("any user may tell the participants, the sender included, in the order given", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      for (const op of ["start", "stop"]) {
        const log = new EventLog(srv);
        await ok(typing(u, { op, to: JSON.stringify([t.member2.id, t.owner.id]) }));
        const participants = u.id === t.owner.id ? [t.member2, t.owner] : [t.member2, t.owner, u];
        assert.deepEqual(log.stop(), [
          {
            realmId: t.realm.id,
            event: { type: "typing", op, message_type: "direct", sender: person(u), recipients: participants.map(person) },
            userIds: participants.map((p) => p.id),
          },
        ]);
      }
    }
  });

  test("users who turned typing notifications off, or are deactivated, are not told", async () => {
    await setUserProp(srv.app.db, t.member2.id, "receives_typing_notifications", false);
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", t.moderator.id).execute();
    try {
      const log = new EventLog(srv);
      await ok(typing(t.member, { op: "start", type: "direct", to: JSON.stringify([t.member2.id, t.moderator.id, t.admin.id]) }));
      const [notice] = log.stop();
      assert.deepEqual(notice.userIds, [t.admin.id, t.member.id]);
      assert.equal((notice.event.recipients as unknown[]).length, 4);
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", t.moderator.id).execute();
    }
  });

  test("refuses what Zulip refuses, telling nobody", async () => {
    await refused(srv, () => typing(t.member, { op: "start" }), "Missing 'to' argument");
    await refused(srv, () => typing(t.member, { op: "start", to: "[]" }), "Empty 'to' list");
    await refused(srv, () => typing(t.member, { op: "start", to: String(t.member2.id) }), "to is not a list");
    await refused(srv, () => typing(t.member, { op: "start", to: JSON.stringify([t.member2.id, 99999]) }), "Invalid user ID 99999");
    await refused(srv, () => typing(t.member, { op: "start", to: JSON.stringify([2 ** 40]) }), `Invalid user ID ${2 ** 40}`);
    await refused(srv, () => typing(t.member, { op: "start", to: JSON.stringify([o.member.id]) }), `Invalid user ID ${o.member.id}`);
    await refused(srv, () => typing(t.member, { op: "start", type: "private", to: JSON.stringify([t.member2.id]) }), "Invalid type");
    await refused(srv, () => typing(t.member, { op: "begin", to: JSON.stringify([t.member2.id]) }), "Invalid op");
    await refused(srv, () => typing(t.member, { to: JSON.stringify([t.member2.id]) }), "Missing 'op' argument", "REQUEST_VARIABLE_MISSING");
    await setUserProp(srv.app.db, t.member.id, "send_private_typing_notifications", false);
    await refused(srv, () => typing(t.member, { op: "start", to: JSON.stringify([t.member2.id]) }), "User has disabled typing notifications for direct messages");
  });
});

describe("POST /typing in a channel", () => {
  test("tells the channel's subscribers who want it, the sender included", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2, t.guest, t.bot] });
    await setUserProp(srv.app.db, t.bot.id, "receives_typing_notifications", false);
    for (const [type, topic, shown] of [["stream", "lunch", "lunch"], ["channel", "(no topic)", ""], ["channel", "general chat", ""]]) {
      const log = new EventLog(srv);
      await ok(typing(t.guest, { op: "start", type, stream_id: c.id, topic }));
      assert.deepEqual(log.stop(), [
        {
          realmId: t.realm.id,
          event: { type: "typing", op: "start", message_type: "stream", sender: person(t.guest), stream_id: c.id, topic: shown },
          userIds: sorted([t.owner.id, t.member.id, t.member2.id, t.guest.id]),
        },
      ]);
    }
  });

  test("needs a channel the sender may post in, a topic, and the setting on", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const priv = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    const oc = await makeChannel(srv, o);
    await refused(srv, () => typing(t.member, { op: "start", type: "stream", topic: "x" }), "Missing 'stream_id' argument");
    await refused(srv, () => typing(t.member, { op: "start", type: "channel", stream_id: c.id }), "Missing topic");
    for (const u of [t.moderator, t.guest, t.bot]) {
      await refused(srv, () => typing(u, { op: "start", type: "channel", stream_id: priv.id, topic: "x" }), "Invalid channel ID");
    }
    await refused(srv, () => typing(t.guest, { op: "start", type: "channel", stream_id: c.id, topic: "x" }), "Invalid channel ID");
    await refused(srv, () => typing(t.member, { op: "start", type: "channel", stream_id: oc.id, topic: "x" }), "Invalid channel ID");
    await refused(srv, () => typing(t.member, { op: "start", type: "channel", stream_id: 2 ** 40, topic: "x" }), "Invalid channel ID");
    await refused(srv, () => typing(t.admin, { op: "start", type: "channel", stream_id: priv.id, topic: "x" }), `Not authorized to send to channel '${priv.name}'`);
    const announce = await makeChannel(srv, t, { subscribers: [t.member], extra: { can_send_message_group: await adminsGroup() } });
    await refused(srv, () => typing(t.member, { op: "start", type: "channel", stream_id: announce.id, topic: "x" }), "You do not have permission to post in this channel.");
    await setUserProp(srv.app.db, t.member.id, "send_stream_typing_notifications", false);
    await refused(srv, () => typing(t.member, { op: "start", type: "channel", stream_id: c.id, topic: "x" }), "User has disabled typing notifications for channel messages");
    // An unsubscribed member may still type in a public channel.
    await ok(typing(t.member2, { op: "stop", type: "channel", stream_id: c.id, topic: "x" }));
  });

  test("a channel with more subscribers than the limit hears nothing, as in Zulip", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const extra = MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS - 2;
    const ids = await runAction(srv.app, async (tx) => {
      const made: number[] = [];
      for (let i = 0; i < extra; i++) {
        const u = await createUserInTx(tx, srv.app, t.realm, { email: `crowd${i}@zulip.example.com`, fullName: `Crowd ${i}`, role: Role.MEMBER, isBot: true, botOwnerId: t.owner.id });
        made.push(u.id);
      }
      return made;
    });
    await addSubscriptions(srv.app.db, c.id, ids);
    let log = new EventLog(srv);
    await ok(typing(t.member, { op: "start", type: "channel", stream_id: c.id, topic: "crowd" }));
    assert.equal(log.stop()[0].userIds.length, MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS);
    await ok(api(t.owner).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: c.name }]), principals: JSON.stringify([t.member2.id]) }));
    log = new EventLog(srv);
    await ok(typing(t.member, { op: "start", type: "channel", stream_id: c.id, topic: "crowd" }));
    assert.deepEqual(log.stop(), []);
    await srv.app.db.updateTable("subscriptions").set({ active: 0 }).where("stream_id", "=", c.id).where("user_id", "in", ids).execute();
  });

  test("event queues get channel typing only when the client declared stream_typing_notifications", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
    const capable = await ok(api(t.member2).post("/register", { event_types: JSON.stringify(["typing"]), client_capabilities: JSON.stringify({ stream_typing_notifications: true }) }));
    const legacy = await ok(api(t.member2).post("/register", { event_types: JSON.stringify(["typing"]) }));
    const outsider = await ok(api(o.owner).post("/register", { event_types: JSON.stringify(["typing"]), client_capabilities: JSON.stringify({ stream_typing_notifications: true }) }));
    await ok(typing(t.member, { op: "start", type: "channel", stream_id: c.id, topic: "t" }));
    await ok(typing(t.member, { op: "stop", to: JSON.stringify([t.member2.id]) }));
    const events = async (u: TestUser, q: Record<string, any>) =>
      (await ok(api(u).get("/events", { queue_id: q.queue_id, last_event_id: -1, dont_block: "true" }))).events.filter((e: any) => e.type !== "heartbeat");
    const channelEvent = { type: "typing", op: "start", message_type: "stream", sender: person(t.member), stream_id: c.id, topic: "t" };
    const directEvent = { type: "typing", op: "stop", message_type: "direct", sender: person(t.member), recipients: [person(t.member2), person(t.member)] };
    assert.deepEqual(await events(t.member2, capable), [{ id: 0, ...channelEvent }, { id: 1, ...directEvent }]);
    assert.deepEqual(await events(t.member2, legacy), [{ id: 0, ...directEvent }]);
    assert.deepEqual(await events(o.owner, outsider), []);
  });
});

async function adminsGroup(): Promise<number> {
  const row = await srv.app.db.selectFrom("user_groups").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "role:administrators").executeTakeFirstOrThrow();
  return row.id;
}

describe("POST /messages/{id}/typing", () => {
  test("the sender editing a channel message tells the channel's subscribers", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
    const id = (await ok(api(t.member).post("/messages", { type: "stream", to: c.id, topic: "edits", content: "draft" }))).id;
    const log = new EventLog(srv);
    await ok(editTyping(t.member, id, "start"));
    await ok(editTyping(t.member, id, "stop"));
    const recipient = { type: "channel", channel_id: c.id, topic: "edits" };
    assert.deepEqual(log.stop(), ["start", "stop"].map((op) => ({
      realmId: t.realm.id,
      event: { type: "typing_edit_message", op, sender_id: t.member.id, message_id: id, recipient },
      userIds: sorted([t.owner.id, t.member.id, t.member2.id]),
    })));
  });

  test("a direct message's participants who want it are listed and told", async () => {
    const id = (await ok(api(t.guest).post("/messages", { type: "direct", to: JSON.stringify([t.member.id, t.admin.id]), content: "hi" }))).id;
    await setUserProp(srv.app.db, t.admin.id, "receives_typing_notifications", false);
    const log = new EventLog(srv);
    await ok(editTyping(t.guest, id));
    const userIds = [t.guest.id, t.member.id];
    assert.deepEqual(log.stop(), [
      { realmId: t.realm.id, event: { type: "typing_edit_message", op: "start", sender_id: t.guest.id, message_id: id, recipient: { type: "direct", user_ids: userIds } }, userIds },
    ]);
    await setUserProp(srv.app.db, t.guest.id, "send_private_typing_notifications", false);
    await refused(srv, () => editTyping(t.guest, id), "User has disabled typing notifications for direct messages");
  });

  test("only the sender, within the editing rules, of a message they can read", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2, t.moderator] });
    const id = (await ok(api(t.member).post("/messages", { type: "stream", to: c.id, topic: "edits", content: "mine" }))).id;
    for (const u of [t.owner, t.admin, t.moderator, t.member2]) await refused(srv, () => editTyping(u, id), "You don't have permission to edit this message");
    await refused(srv, () => editTyping(t.guest, id), "Invalid message(s)");
    await refused(srv, () => editTyping(o.owner, id), "Invalid message(s)");
    await refused(srv, () => editTyping(t.member, 99999999), "Invalid message(s)");
    await refused(srv, () => editTyping(t.member, id, "begin"), "Invalid op");
    await setUserProp(srv.app.db, t.member.id, "send_stream_typing_notifications", false);
    await refused(srv, () => editTyping(t.member, id), "User has disabled typing notifications for channel messages");
    await setUserProp(srv.app.db, t.member.id, "send_stream_typing_notifications", true);
    await setRealmProps(srv.app, t.realm.id, { message_content_edit_limit_seconds: 60 });
    clock.advance(61);
    await refused(srv, () => editTyping(t.member, id), "The time limit for editing this message has passed");
    await setRealmProps(srv.app, t.realm.id, { allow_message_editing: false });
    await refused(srv, () => editTyping(t.member, id), "Your organization has turned off message editing");
    await setRealmProps(srv.app, t.realm.id, { allow_message_editing: true, message_content_edit_limit_seconds: null });
  });
});
