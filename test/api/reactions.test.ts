import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api, type ApiResponse } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { makeChannel, ok, refused, type MadeChannel } from "../helpers/channels.js";
import { FLAG_BITS } from "../../src/domain/message_flags.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
const apiEmail = new Map<number, string>();
const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  for (const u of await srv.app.db.selectFrom("users").select(["id", "email"]).execute()) apiEmail.set(u.id, u.email);
});
after(() => srv.close());

const send = async (u: TestUser, c: MadeChannel, content = "hello") =>
  (await ok(api(u).post("/messages", { type: "stream", to: c.id, topic: "reactions", content }))).id as number;
const sendDm = async (u: TestUser, to: TestUser[]) =>
  (await ok(api(u).post("/messages", { type: "direct", to: JSON.stringify(to.map((x) => x.id)), content: "psst" }))).id as number;
const react = (u: TestUser, id: number, params: Record<string, string>) => api(u).post(`/messages/${id}/reactions`, params);
const unreact = (u: TestUser, id: number, params: Record<string, string>) => api(u).delete(`/messages/${id}/reactions`, params);
const reactionsOf = (id: number) =>
  srv.app.db.selectFrom("reactions").select(["user_id", "emoji_name", "emoji_code", "reaction_type"]).where("message_id", "=", id).orderBy("id").execute();
const SMILE = { emoji_name: "smile", emoji_code: "1f604", reaction_type: "unicode_emoji" };
const OCTOPUS = { emoji_name: "octopus", emoji_code: "1f419", reaction_type: "unicode_emoji" };

/** A custom emoji of the test organization, added directly (the endpoints for them are another feature's). */
async function customEmoji(name: string, deactivated: 0 | 1 = 0): Promise<number> {
  const row = await srv.app.db
    .insertInto("realm_emoji")
    .values({ realm_id: t.realm.id, name, author_id: t.owner.id, file_name: `${name}.png`, is_animated: 0, deactivated })
    .returning("id")
    .executeTakeFirstOrThrow();
  return row.id;
}

/** A refused request that also left every reaction as it was. */
async function refusedReaction(call: () => Promise<ApiResponse>, msg: string, code = "BAD_REQUEST") {
  const before = await srv.app.db.selectFrom("reactions").selectAll().orderBy("id").execute();
  await refused(srv, call, msg, code);
  assert.deepEqual(await srv.app.db.selectFrom("reactions").selectAll().orderBy("id").execute(), before);
}

function reactionEvent(u: TestUser, op: string, messageId: number, emoji: Record<string, string>) {
  return {
    type: "reaction",
    op,
    user_id: u.id,
    user: { user_id: u.id, email: apiEmail.get(u.id), full_name: u.fullName },
    message_id: messageId,
    ...emoji,
  };
}

describe("POST /messages/{id}/reactions", () => {
  test("every role that can read the message may react; the event reaches everyone who has it", async () => {
    const everyone = [t.admin, t.moderator, t.member, t.member2, t.guest, t.bot];
    const c = await makeChannel(srv, t, { subscribers: everyone });
    const id = await send(t.member, c);
    for (const u of [t.owner, ...everyone]) {
      const log = new EventLog(srv);
      await ok(react(u, id, SMILE));
      assert.deepEqual(log.stop(), [
        { realmId: t.realm.id, event: reactionEvent(u, "add", id, SMILE), userIds: sorted([t.owner, ...everyone].map((x) => x.id)) },
      ]);
    }
    assert.deepEqual(
      (await reactionsOf(id)).map((r) => r.user_id),
      [t.owner, ...everyone].map((u) => u.id),
    );
  });

  test("the name is enough: the code and type come from it, custom emoji first", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send(t.member, c);
    await ok(react(t.member, id, { emoji_name: "octopus" }));
    await ok(react(t.member, id, { emoji_name: "zulip" }));
    const custom = await customEmoji("green_tick");
    await ok(react(t.member, id, { emoji_name: "green_tick" }));
    assert.deepEqual(await reactionsOf(id), [
      { user_id: t.member.id, ...OCTOPUS },
      { user_id: t.member.id, emoji_name: "zulip", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" },
      { user_id: t.member.id, emoji_name: "green_tick", emoji_code: String(custom), reaction_type: "realm_emoji" },
    ]);
    await refusedReaction(() => react(t.member, id, { emoji_name: "no_such_emoji" }), "Emoji 'no_such_emoji' does not exist");
    // Another organization's custom emoji is unknown here.
    await refusedReaction(() => react(t.member, id, { emoji_name: "green_tick", emoji_code: String(custom), reaction_type: "realm_emoji" }), "Reaction already exists.", "REACTION_ALREADY_EXISTS");
    const oc = await makeChannel(srv, o, { subscribers: [o.member] });
    const oid = await send(o.member, oc);
    await refusedReaction(() => react(o.member, oid, { emoji_name: "green_tick" }), "Emoji 'green_tick' does not exist");
    await refusedReaction(() => react(o.member, oid, { emoji_name: "green_tick", emoji_code: String(custom), reaction_type: "realm_emoji" }), "Invalid custom emoji.");
  });

  test("name, code and type must agree, as Zulip checks them", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send(t.member, c);
    const custom = await customEmoji("retired", 1);
    const cases: [Record<string, string>, string][] = [
      [{ emoji_name: "smile", emoji_code: "1f419", reaction_type: "unicode_emoji" }, "Invalid emoji name."],
      [{ emoji_name: "smile", emoji_code: "ffff", reaction_type: "unicode_emoji" }, "Invalid emoji code."],
      [{ emoji_name: "smile", emoji_code: "1f604", reaction_type: "sticker" }, "Invalid emoji type."],
      [{ emoji_name: "zulip", emoji_code: "zulip2", reaction_type: "zulip_extra_emoji" }, "Invalid emoji code."],
      [{ emoji_name: "smile", emoji_code: "zulip", reaction_type: "zulip_extra_emoji" }, "Invalid emoji name."],
      [{ emoji_name: "x", emoji_code: "99999999999", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
      [{ emoji_name: "x", emoji_code: "abc", reaction_type: "realm_emoji" }, "Invalid custom emoji."],
      [{ emoji_name: "other", emoji_code: String(custom), reaction_type: "realm_emoji" }, "Invalid custom emoji name."],
      [{ emoji_name: "retired", emoji_code: String(custom), reaction_type: "realm_emoji" }, "This custom emoji has been deactivated."],
      [{ emoji_name: "retired" }, "Emoji 'retired' does not exist"],
    ];
    for (const [params, msg] of cases) await refusedReaction(() => react(t.member, id, params), msg);
    const missing = await react(t.member, id, { emoji_code: "1f604" });
    assert.deepEqual(missing.body, { result: "error", msg: "Missing 'emoji_name' argument", code: "REQUEST_VARIABLE_MISSING", var_name: "emoji_name" });
  });

  test("joining someone's reaction keeps their name, even for an emoji no longer valid", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2, t.moderator] });
    const id = await send(t.member, c);
    await ok(react(t.member, id, { emoji_name: "thumbs_up", emoji_code: "1f44d", reaction_type: "unicode_emoji" }));
    const log = new EventLog(srv);
    // "+1" names the same code; the vote is shown under the first name.
    await ok(react(t.member2, id, { emoji_name: "+1", emoji_code: "1f44d", reaction_type: "unicode_emoji" }));
    assert.equal(log.stop()[0].event.emoji_name, "thumbs_up");
    const custom = await customEmoji("party_parrot");
    await ok(react(t.member, id, { emoji_name: "party_parrot" }));
    await srv.app.db.updateTable("realm_emoji").set({ deactivated: 1 }).where("id", "=", custom).execute();
    await ok(react(t.moderator, id, { emoji_name: "whatever", emoji_code: String(custom), reaction_type: "realm_emoji" }));
    assert.deepEqual((await reactionsOf(id)).map((r) => [r.user_id, r.emoji_name]), [
      [t.member.id, "thumbs_up"],
      [t.member2.id, "thumbs_up"],
      [t.member.id, "party_parrot"],
      [t.moderator.id, "party_parrot"],
    ]);
    await refusedReaction(() => react(t.member2, id, { emoji_name: "+1" }), "Reaction already exists.", "REACTION_ALREADY_EXISTS");
  });

  test("only users who can read the message may react", async () => {
    const priv = await makeChannel(srv, t, { private: true, subscribers: [t.member] });
    const privId = await send(t.member, priv);
    const pub = await makeChannel(srv, t, { subscribers: [t.member] });
    const pubId = await send(t.member, pub);
    const dm = await sendDm(t.member, [t.member2]);
    for (const u of [t.admin, t.moderator, t.member2, t.guest, t.bot]) {
      await refusedReaction(() => react(u, privId, SMILE), "Invalid message(s)");
    }
    // A guest reads no channel they are not subscribed to; nobody reads another's conversation.
    await refusedReaction(() => react(t.guest, pubId, SMILE), "Invalid message(s)");
    for (const u of [t.owner, t.guest, t.bot]) await refusedReaction(() => react(u, dm, SMILE), "Invalid message(s)");
    for (const id of [privId, pubId, dm]) await refusedReaction(() => react(o.owner, id, SMILE), "Invalid message(s)");
    await refusedReaction(() => react(t.member, 99999999, SMILE), "Invalid message(s)");
    await refusedReaction(() => react(t.member, 2 ** 40, SMILE), "Invalid message(s)");
    const log = new EventLog(srv);
    await ok(react(t.member2, dm, SMILE));
    assert.deepEqual(log.stop().map((n) => n.userIds), [sorted([t.member.id, t.member2.id])]);
  });

  test("reacting to a public channel's message without a copy gives the reactor a read, historical one", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send(t.member, c);
    await ok(api(t.member2).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: c.name }]) }));
    const log = new EventLog(srv);
    await ok(react(t.moderator, id, SMILE));
    // Subscribers who joined after the message hear of it too, since they can read it.
    assert.deepEqual(log.stop().map((n) => n.userIds), [sorted([t.owner.id, t.moderator.id, t.member.id, t.member2.id])]);
    const row = await srv.app.db.selectFrom("user_messages").select("flags").where("user_id", "=", t.moderator.id).where("message_id", "=", id).executeTakeFirstOrThrow();
    assert.equal(row.flags, FLAG_BITS.read | FLAG_BITS.historical);
    const again = new EventLog(srv);
    await ok(react(t.admin, id, SMILE));
    assert.deepEqual(again.stop().map((n) => n.userIds), [sorted([t.owner.id, t.member.id, t.member2.id, t.moderator.id, t.admin.id])]);
  });

  test("a channel with protected history tells only those who have the message", async () => {
    const c = await makeChannel(srv, t, { private: true, subscribers: [t.member], extra: { history_public_to_subscribers: false } });
    const id = await send(t.member, c);
    await ok(api(t.owner).post("/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: c.name }]), principals: JSON.stringify([t.member2.id]) }));
    await refusedReaction(() => react(t.member2, id, SMILE), "Invalid message(s)");
    const log = new EventLog(srv);
    await ok(react(t.member, id, SMILE));
    assert.deepEqual(log.stop().map((n) => n.userIds), [sorted([t.owner.id, t.member.id])]);
  });
});

describe("DELETE /messages/{id}/reactions", () => {
  test("removes one's own reaction, by code or by name, and tells the same audience", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.guest] });
    const id = await send(t.member, c);
    await ok(react(t.guest, id, SMILE));
    await ok(react(t.member, id, SMILE));
    await ok(react(t.member, id, OCTOPUS));
    await refusedReaction(() => unreact(t.member2, id, SMILE), "Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST");
    await refusedReaction(() => unreact(t.member, id, { emoji_code: "1f604", reaction_type: "realm_emoji" }), "Reaction doesn't exist.", "REACTION_DOES_NOT_EXIST");
    await refusedReaction(() => unreact(t.member, id, {}), "At least one of the following arguments must be present: emoji_name, emoji_code");
    await refusedReaction(() => unreact(t.member, id, { emoji_name: "no_such_emoji" }), "Emoji 'no_such_emoji' does not exist");
    await refusedReaction(() => unreact(o.member, id, SMILE), "Invalid message(s)");
    let log = new EventLog(srv);
    await ok(unreact(t.member, id, { emoji_code: "1f604" }));
    const audience = sorted([t.owner.id, t.member.id, t.guest.id]);
    assert.deepEqual(log.stop(), [{ realmId: t.realm.id, event: reactionEvent(t.member, "remove", id, SMILE), userIds: audience }]);
    log = new EventLog(srv);
    await ok(unreact(t.member, id, { emoji_name: "octopus" }));
    assert.deepEqual(log.stop(), [{ realmId: t.realm.id, event: reactionEvent(t.member, "remove", id, OCTOPUS), userIds: audience }]);
    assert.deepEqual(await reactionsOf(id), [{ user_id: t.guest.id, ...SMILE }]);
  });

  test("a reaction with a since-deactivated emoji can still be removed", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member] });
    const id = await send(t.member, c);
    const custom = await customEmoji("fading");
    await ok(react(t.member, id, { emoji_name: "fading" }));
    await srv.app.db.updateTable("realm_emoji").set({ deactivated: 1 }).where("id", "=", custom).execute();
    await ok(unreact(t.member, id, { emoji_code: String(custom), reaction_type: "realm_emoji" }));
    assert.deepEqual(await reactionsOf(id), []);
  });
});

describe("reactions in messages", () => {
  test("GET /messages and GET /messages/{id} show each message's reactions; deleting the message drops them", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
    const first = await send(t.member, c, "first");
    const second = await send(t.member, c, "second");
    await ok(react(t.member2, first, SMILE));
    await ok(react(t.member, first, OCTOPUS));
    await ok(react(t.member, second, SMILE));
    const page = await ok(api(t.member2).get("/messages", { anchor: "newest", num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: "channel", operand: c.id }]) }));
    assert.deepEqual(
      page.messages.filter((m: any) => m.id >= first).map((m: any) => [m.id, m.reactions]),
      [
        [first, [{ ...SMILE, user_id: t.member2.id }, { ...OCTOPUS, user_id: t.member.id }]],
        [second, [{ ...SMILE, user_id: t.member.id }]],
      ],
    );
    assert.deepEqual((await ok(api(t.member).get(`/messages/${second}`))).message.reactions, [{ ...SMILE, user_id: t.member.id }]);
    await ok(api(t.owner).delete(`/messages/${first}`));
    assert.deepEqual(await reactionsOf(first), []);
  });

  test("a client's event queue receives the reaction; another organization's does not", async () => {
    const c = await makeChannel(srv, t, { subscribers: [t.member, t.member2] });
    const id = await send(t.member, c);
    const queue = await ok(api(t.member).post("/register", { event_types: JSON.stringify(["reaction"]) }));
    const outsider = await ok(api(o.owner).post("/register", { event_types: JSON.stringify(["reaction"]) }));
    const notHolder = await ok(api(t.guest).post("/register", { event_types: JSON.stringify(["reaction"]) }));
    await ok(react(t.member2, id, SMILE));
    const events = (await ok(api(t.member).get("/events", { queue_id: queue.queue_id, last_event_id: -1 }))).events;
    assert.deepEqual(events, [{ id: 0, ...reactionEvent(t.member2, "add", id, SMILE) }]);
    for (const [u, q] of [[o.owner, outsider], [t.guest, notHolder]] as const) {
      const r = await ok(api(u).get("/events", { queue_id: q.queue_id, last_event_id: -1, dont_block: "true" }));
      assert.deepEqual(r.events.filter((e: any) => e.type !== "heartbeat"), []);
    }
  });
});
