import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
/** Every active human and the test bot, in id order: what "everyone" means for events. */
let everyone: number[];
let nonGuests: number[];

const SUB_EXTRA_KEYS = [
  "audible_notifications",
  "color",
  "desktop_notifications",
  "email_notifications",
  "in_home_view",
  "is_muted",
  "pin_to_top",
  "push_notifications",
  "wildcard_mentions_notify",
];

async function streamId(name: string): Promise<number> {
  const row = await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", t.realm.id).where("name", "=", name).executeTakeFirstOrThrow();
  return row.id;
}

async function subscriberIdsOf(name: string): Promise<number[]> {
  const rows = await srv.app.db
    .selectFrom("subscriptions")
    .select("user_id")
    .where("stream_id", "=", await streamId(name))
    .where("active", "=", 1)
    .orderBy("user_id")
    .execute();
  return rows.map((r) => r.user_id);
}

const without = (ids: number[], ...drop: number[]) => ids.filter((id) => !drop.includes(id));

async function countRows() {
  const streams = await srv.app.db.selectFrom("streams").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  const subs = await srv.app.db.selectFrom("subscriptions").select((eb) => eb.fn.countAll<number>().as("n")).where("active", "=", 1).executeTakeFirstOrThrow();
  const msgs = await srv.app.db.selectFrom("messages").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  return [Number(streams.n), Number(subs.n), Number(msgs.n)];
}

/** Runs a request that must fail with `msg`, and checks that it changed nothing. */
async function refused(u: TestUser, params: Record<string, unknown>, msg: string, method: "post" | "delete" = "post") {
  const before = await countRows();
  const r = await api(u)[method]("/users/me/subscriptions", params as never);
  assert.equal(r.body.msg, msg, JSON.stringify(r.body));
  assert.equal(r.body.result, "error");
  assert.deepEqual(await countRows(), before);
  return r;
}

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  everyone = [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot].map((u) => u.id).sort((a, b) => a - b);
  nonGuests = without(everyone, t.guest.id);
});
after(() => srv.close());

describe("POST /users/me/subscriptions: existing channels", () => {
  test("subscribing oneself: response, subscription event and peer events", async () => {
    const log = new EventLog(srv);
    const r = await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }] });
    log.stop();
    assert.deepEqual(r.body, {
      result: "success",
      msg: "",
      subscribed: { [t.member.id]: ["general"] },
      already_subscribed: {},
      new_subscription_messages_sent: true,
    });
    const add = log.of("subscription", "add");
    assert.equal(add.length, 1);
    assert.deepEqual(add[0].userIds, [t.member.id]);
    const sub = (add[0].event.subscriptions as Record<string, unknown>[])[0];
    assert.equal(sub.name, "general");
    assert.deepEqual(sub.subscribers, [t.member.id]);
    for (const k of SUB_EXTRA_KEYS) assert.ok(k in sub, k);
    assert.equal(sub.in_home_view, true);
    assert.equal(sub.desktop_notifications, null);
    const peers = log.of("subscription", "peer_add");
    assert.equal(peers.length, 1);
    assert.deepEqual(peers[0].event, { type: "subscription", op: "peer_add", stream_ids: [await streamId("general")], user_ids: [t.member.id] });
    assert.deepEqual(peers[0].userIds, without(nonGuests, t.member.id));
    assert.equal(log.of("message").length, 0);
  });

  test("subscribing again reports already_subscribed and sends nothing", async () => {
    const log = new EventLog(srv);
    const r = await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "GENERAL" }] });
    log.stop();
    assert.deepEqual(r.body.subscribed, {});
    assert.deepEqual(r.body.already_subscribed, { [t.member.id]: ["general"] });
    assert.equal(log.notices.length, 0);
  });

  test("subscribing others by id or email sends them a Notification Bot DM", async () => {
    const log = new EventLog(srv);
    const r = await api(t.member).post("/users/me/subscriptions", {
      subscriptions: [{ name: "general" }],
      principals: [t.member2.id, t.moderator.id],
    });
    log.stop();
    assert.deepEqual(r.body.subscribed, { [t.member2.id]: ["general"], [t.moderator.id]: ["general"] });
    assert.equal(r.body.new_subscription_messages_sent, true);
    const dms = log.of("message");
    assert.equal(dms.length, 2);
    for (const dm of dms) assert.equal(dm.userIds.length, 2, "the bot and the subscribed user");
    const toMember2 = dms.find((n) => n.userIds.includes(t.member2.id))!;
    const message = toMember2.event.message as Record<string, unknown>;
    assert.equal(message.sender_full_name, "Notification Bot");
    assert.equal(message.type, "private");
    assert.equal(message.content, `@_**Mel Member|${t.member.id}** subscribed you to #**general**.`);
    assert.match(message.rendered_content as string, /<span class="user-mention silent" data-user-id="\d+">Mel Member<\/span> subscribed you to <a class="stream"/);
    assert.deepEqual(toMember2.perUser!.get(t.member2.id), { flags: [] });
    const byEmail = await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [t.owner.email] });
    assert.equal(byEmail.body.result, "error", "real addresses are hidden; principals use the API email");
    const apiEmail = (await srv.app.db.selectFrom("users").select("email").where("id", "=", t.owner.id).executeTakeFirstOrThrow()).email;
    const ok = await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [apiEmail] });
    assert.deepEqual(ok.body.subscribed, { [t.owner.id]: ["general"] });
  });

  test("a guest added to a public channel is told it exists; peers then include the guest's channel-mates", async () => {
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "lobby" }] });
    const log = new EventLog(srv);
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "lobby" }], principals: [t.guest.id] });
    log.stop();
    const create = log.of("stream", "create");
    assert.deepEqual(create.map((n) => n.userIds), [[t.guest.id]]);
    assert.equal((create[0].event.streams as { name: string }[])[0].name, "lobby");
    const peers = log.of("subscription", "peer_add");
    assert.deepEqual(peers.map((n) => n.userIds), [without(nonGuests)]);
    assert.deepEqual(peers[0].event.user_ids, [t.guest.id]);
  });

  test("send_new_subscription_messages=false sends no DM and reports nothing", async () => {
    const log = new EventLog(srv);
    const r = await api(t.member).post("/users/me/subscriptions", {
      subscriptions: [{ name: "general" }],
      principals: [t.bot.id],
      send_new_subscription_messages: false,
    });
    log.stop();
    assert.deepEqual(r.body, { result: "success", msg: "", subscribed: { [t.bot.id]: ["general"] }, already_subscribed: {} });
    assert.equal(log.of("message").length, 0);
  });

  test("guests may not use this endpoint at all", async () => {
    await refused(t.guest, { subscriptions: [{ name: "general" }] }, "Not allowed for guest users");
    await refused(t.guest, { subscriptions: "bad" }, "Not allowed for guest users");
  });

  test("bad principals are refused", async () => {
    await refused(t.member, { subscriptions: [{ name: "general" }], principals: [99999] }, "Invalid user ID: 99999");
    await refused(t.member, { subscriptions: [{ name: "general" }], principals: [o.member.id] }, `Invalid user ID: ${o.member.id}`);
    await refused(t.member, { subscriptions: [{ name: "general" }], principals: ["nobody@example.com"] }, "No such user");
    await refused(t.member, { subscriptions: [{ name: "general" }], principals: [1, "x"] }, "Invalid principals");
  });

  test("malformed subscriptions are refused", async () => {
    await refused(t.member, { subscriptions: "general" }, "subscriptions is not valid JSON");
    await refused(t.member, { subscriptions: [{ name: "x", nom: "x" }] }, 'Argument "nom" at subscriptions[0]["nom"] is unexpected');
    await refused(t.member, { subscriptions: [{}] }, 'subscriptions[0]["name"] is not a string');
    await refused(t.member, {}, "Missing 'subscriptions' argument");
    await refused(
      t.member,
      { subscriptions: [{ name: "x", description: "d".repeat(1025) }] },
      'subscriptions[0]["description"] is too long (limit: 1024 characters)',
    );
  });
});

describe("POST /users/me/subscriptions: private channels and permissions", () => {
  let secretId: number;
  before(async () => {
    const r = await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], invite_only: true });
    assert.equal(r.body.result, "success");
    secretId = await streamId("secret");
  });

  test("a private channel one cannot read is refused, or listed when errors are not fatal", async () => {
    await refused(t.member, { subscriptions: [{ name: "secret" }] }, "Unable to access channel (secret).");
    await refused(t.owner, { subscriptions: [{ name: "secret" }] }, "Unable to access channel (secret).");
    const r = await api(t.member).post("/users/me/subscriptions", {
      subscriptions: [{ name: "secret" }, { name: "general" }],
      authorization_errors_fatal: false,
    });
    assert.deepEqual(r.body.unauthorized, ["secret"]);
    assert.deepEqual(r.body.already_subscribed, { [t.member.id]: ["general"] });
    assert.deepEqual(await subscriberIdsOf("secret"), [t.admin.id]);
  });

  test("subscribers may add others; newly visible users get a stream create event first", async () => {
    const log = new EventLog(srv);
    const r = await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }], principals: [t.member.id, t.guest.id] });
    log.stop();
    assert.deepEqual(r.body.subscribed, { [t.member.id]: ["secret"], [t.guest.id]: ["secret"] });
    const create = log.of("stream", "create");
    assert.equal(create.length, 1);
    assert.deepEqual(create[0].userIds, [t.member.id, t.guest.id].sort((a, b) => a - b));
    assert.equal(log.notices.indexOf(create[0]) < log.notices.indexOf(log.of("subscription", "add")[0]), true);
    const peers = log.of("subscription", "peer_add");
    assert.equal(peers.length, 1);
    assert.deepEqual(peers[0].userIds, [t.owner.id, t.admin.id], "subscribers and organization admins, minus the added users");
    assert.deepEqual(peers[0].event.user_ids, [t.member.id, t.guest.id].sort((a, b) => a - b));
  });

  test("with the organization's can_add_subscribers_group narrowed, members need channel permission", async () => {
    const admins = (await srv.app.db.selectFrom("user_groups").select("id").where("realm_id", "=", t.realm.id).where("name", "=", "role:administrators").executeTakeFirstOrThrow()).id;
    const original = t.realm.groupSettings;
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify({ ...original, can_add_subscribers_group: admins }) }).where("id", "=", t.realm.id).execute();
    try {
      await refused(t.member2, { subscriptions: [{ name: "general" }], principals: [t.guest.id] }, "Insufficient permission");
      const self = await api(t.member2).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [t.member2.id] });
      assert.equal(self.body.result, "success", "naming only oneself is not subscribing others");
      const r = await api(t.member2).post("/users/me/subscriptions", {
        subscriptions: [{ name: "added by group" }],
        can_add_subscribers_group: { direct_members: [t.member2.id], direct_subgroups: [] },
      });
      assert.equal(r.body.result, "success");
      const ok = await api(t.member2).post("/users/me/subscriptions", { subscriptions: [{ name: "added by group" }], principals: [t.guest.id] });
      assert.deepEqual(ok.body.subscribed, { [t.guest.id]: ["added by group"] });
      const admin = await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "general" }], principals: [t.guest.id] });
      assert.equal(admin.body.result, "success");
    } finally {
      await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(original) }).where("id", "=", t.realm.id).execute();
    }
  });

  test("another organization's channel of the same name is never touched", async () => {
    const r = await api(o.member).post("/users/me/subscriptions", { subscriptions: [{ name: "secret" }] });
    assert.equal(r.body.result, "success");
    assert.notEqual((await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", o.realm.id).where("name", "=", "secret").executeTakeFirstOrThrow()).id, secretId);
    assert.deepEqual(await subscriberIdsOf("secret"), [t.admin.id, t.member.id, t.guest.id].sort((a, b) => a - b));
  });
});

describe("POST /users/me/subscriptions: creating channels", () => {
  test("a public channel: create event to every non-guest, a notice in the channel", async () => {
    const log = new EventLog(srv);
    const r = await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "  New Public  ", description: "line\nbreak" }] });
    log.stop();
    assert.deepEqual(r.body.subscribed, { [t.member.id]: ["New Public"] });
    const create = log.of("stream", "create");
    assert.equal(create.length, 1);
    assert.deepEqual(create[0].userIds, nonGuests);
    const stream = (create[0].event.streams as Record<string, unknown>[])[0];
    assert.equal(stream.name, "New Public");
    assert.equal(stream.description, "line break");
    assert.equal(stream.creator_id, t.member.id);
    assert.equal(stream.stream_weekly_traffic, null);
    assert.deepEqual(stream.can_administer_channel_group, { direct_members: [t.member.id], direct_subgroups: [] });
    const notice = log.of("message");
    assert.equal(notice.length, 1);
    const m = notice[0].event.message as Record<string, unknown>;
    assert.equal(m.subject, "channel events");
    assert.equal(m.display_recipient, "New Public");
    assert.deepEqual(notice[0].perUser!.get(t.member.id), { flags: ["read"] }, "the creator has already seen it");
    const raw = await srv.app.db.selectFrom("messages").select("content").where("id", "=", m.id as number).executeTakeFirstOrThrow();
    assert.equal(raw.content, `**Public** channel created by @_**Mel Member|${t.member.id}**. **Description:**\n\`\`\`\` quote\nline break\n\`\`\`\``);
  });

  test("a private channel: create event only to admins and the creator", async () => {
    const log = new EventLog(srv);
    const r = await api(t.member2).post("/users/me/subscriptions", { subscriptions: [{ name: "hideout" }], invite_only: true, history_public_to_subscribers: true });
    log.stop();
    assert.equal(r.body.result, "success");
    assert.deepEqual(log.of("stream", "create")[0].userIds, [t.owner.id, t.admin.id, t.member2.id].sort((a, b) => a - b));
    const row = await srv.app.db.selectFrom("streams").selectAll().where("name", "=", "hideout").executeTakeFirstOrThrow();
    assert.equal(row.invite_only, 1);
    assert.equal(row.history_public_to_subscribers, 1);
    const raw = await srv.app.db.selectFrom("messages").select("content").where("stream_id", "=", row.id).executeTakeFirstOrThrow();
    assert.ok(raw.content.startsWith("**Private, shared history** channel created by"));
    assert.ok(raw.content.includes("*No description.*"));
  });

  test("public channels always share history", async () => {
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "open history" }], history_public_to_subscribers: false });
    const row = await srv.app.db.selectFrom("streams").selectAll().where("name", "=", "open history").executeTakeFirstOrThrow();
    assert.equal(row.history_public_to_subscribers, 1);
  });

  test("announce posts to the new-channel announcements channel", async () => {
    const log = new EventLog(srv);
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "announced" }], announce: true });
    log.stop();
    const announcement = log.of("message").find((n) => (n.event.message as Record<string, unknown>).display_recipient === "general")!;
    const m = announcement.event.message as Record<string, unknown>;
    assert.equal(m.subject, "new channels");
    assert.equal(m.content, `@_**Mel Member|${t.member.id}** created a new channel #**announced**.`);
    assert.match(m.rendered_content as string, /created a new channel <a class="stream" data-stream-id="\d+" href="[^"]*">#announced<\/a>/);
  });

  test("channel names are checked", async () => {
    await refused(t.member, { subscriptions: [{ name: "   " }] }, "Channel name can't be empty.");
    await refused(t.member, { subscriptions: [{ name: "x".repeat(61) }] }, "Channel name too long (limit: 60 characters).");
    await refused(t.member, { subscriptions: [{ name: "bad\u0001name" }] }, "Invalid character in channel name, at position 4.");
  });

  test("creation permissions", async () => {
    await refused(t.member, { subscriptions: [{ name: "dflt" }], is_default_stream: true }, "Insufficient permission");
    await refused(t.admin, { subscriptions: [{ name: "dflt" }], is_default_stream: true, invite_only: true }, "A default channel cannot be private.");
    await refused(t.owner, { subscriptions: [{ name: "wp" }], is_web_public: true }, "Web-public channels are not enabled.");
    await refused(t.admin, { subscriptions: [{ name: "keep" }], message_retention_days: 30 }, "Must be an organization owner");
    await refused(t.owner, { subscriptions: [{ name: "keep" }], message_retention_days: -3 }, "Bad value for 'message_retention_days': -3");
    await refused(t.owner, { subscriptions: [{ name: "keep" }], message_retention_days: '"forever"' }, "Bad value for 'message_retention_days': forever");
    await refused(t.member, { subscriptions: [{ name: "tp" }], topics_policy: '"sometimes"' }, "Invalid topics_policy");
    await refused(t.member, { subscriptions: [{ name: "f" }], folder_id: 999 }, "Invalid channel folder ID");
    const ok = await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "dflt" }], is_default_stream: true });
    assert.equal(ok.body.result, "success");
    const defaults = await api(t.member).get("/streams", { include_default: true });
    assert.equal(defaults.body.streams.find((s: { name: string }) => s.name === "dflt").is_default, true);
    const kept = await api(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: "keep" }], message_retention_days: '"unlimited"' });
    assert.equal(kept.body.result, "success");
    assert.equal((await srv.app.db.selectFrom("streams").select("message_retention_days").where("name", "=", "keep").executeTakeFirstOrThrow()).message_retention_days, -1);
  });

  test("web-public channels when the organization allows spectators", async () => {
    const props = { ...t.realm.props, enable_spectator_access: true };
    await srv.app.db.updateTable("realms").set({ props: JSON.stringify(props) }).where("id", "=", t.realm.id).execute();
    try {
      await refused(t.admin, { subscriptions: [{ name: "wp" }], is_web_public: true }, "Insufficient permission");
      const log = new EventLog(srv);
      const r = await api(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name: "wp" }], is_web_public: true });
      log.stop();
      assert.equal(r.body.result, "success");
      assert.deepEqual(log.of("stream", "create")[0].userIds, everyone);
    } finally {
      await srv.app.db.updateTable("realms").set({ props: JSON.stringify(t.realm.props) }).where("id", "=", t.realm.id).execute();
    }
  });

  test("group settings: ids, anonymous groups, and Zulip's refusals", async () => {
    const groups = await srv.app.db.selectFrom("user_groups").select(["id", "name"]).where("realm_id", "=", t.realm.id).where("is_system_group", "=", 1).execute();
    const id = (name: string) => groups.find((g) => g.name === name)!.id;
    const r = await api(t.member).post("/users/me/subscriptions", {
      subscriptions: [{ name: "announcements" }],
      can_send_message_group: id("role:administrators"),
      can_remove_subscribers_group: { direct_members: [], direct_subgroups: [id("role:moderators")] },
      can_subscribe_group: { direct_members: [t.member2.id, t.member.id], direct_subgroups: [id("role:moderators")] },
      topics_policy: '"disable_empty_topic"',
    });
    assert.equal(r.body.result, "success", JSON.stringify(r.body));
    const s = (await api(t.member).get(`/streams/${await streamId("announcements")}`)).body.stream;
    assert.equal(s.can_send_message_group, id("role:administrators"));
    assert.equal(s.stream_post_policy, 2);
    assert.equal(s.is_announcement_only, true);
    assert.equal(s.can_remove_subscribers_group, id("role:moderators"));
    assert.deepEqual(s.can_subscribe_group, { direct_members: [t.member.id, t.member2.id].sort((a, b) => a - b), direct_subgroups: [id("role:moderators")] });
    assert.equal(s.topics_policy, "disable_empty_topic");

    await refused(t.member, { subscriptions: [{ name: "g1" }], can_add_subscribers_group: id("role:everyone") }, "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.");
    await refused(t.member, { subscriptions: [{ name: "g1" }], can_send_message_group: id("role:internet") }, "'can_send_message_group' setting cannot be set to 'role:internet' group.");
    await refused(t.member, { subscriptions: [{ name: "g1" }], can_send_message_group: 99999 }, "Invalid user group");
    await refused(t.member, { subscriptions: [{ name: "g1" }], can_send_message_group: { direct_members: [99999], direct_subgroups: [] } }, "Invalid user ID: 99999");
    await refused(t.member, { subscriptions: [{ name: "g1" }], can_send_message_group: { direct_members: [t.owner.id, t.member.id], direct_subgroups: [99999] } }, "Invalid user group ID: 99999");
    await refused(t.member, { subscriptions: [{ name: "g1" }], can_send_message_group: "admins" }, "can_send_message_group is not valid JSON");
    await refused(t.member, { subscriptions: [{ name: "g1" }], can_delete_any_message_group: id("role:members") }, "Insufficient permission");
  });
});

describe("DELETE /users/me/subscriptions", () => {
  test("unsubscribing oneself: removed / not_removed, remove and peer_remove events", async () => {
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "leave me" }] });
    const log = new EventLog(srv);
    const r = await api(t.member).delete("/users/me/subscriptions", { subscriptions: ["leave me"] });
    log.stop();
    assert.deepEqual(r.body, { result: "success", msg: "", removed: ["leave me"], not_removed: [] });
    const id = await streamId("leave me");
    assert.deepEqual(log.of("subscription", "remove").map((n) => [n.event, n.userIds]), [
      [{ type: "subscription", op: "remove", subscriptions: [{ name: "leave me", stream_id: id }] }, [t.member.id]],
    ]);
    assert.deepEqual(log.of("subscription", "peer_remove")[0].userIds, without(nonGuests, t.member.id));
    assert.equal(log.of("stream", "delete").length, 0, "a public channel stays visible");
    const again = await api(t.member).delete("/users/me/subscriptions", { subscriptions: ["leave me"] });
    assert.deepEqual(again.body, { result: "success", msg: "", removed: [], not_removed: ["leave me"] });
  });

  test("leaving a private channel hides it: stream delete event", async () => {
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "tiny" }], invite_only: true });
    await api(t.member).post("/users/me/subscriptions", { subscriptions: [{ name: "tiny" }], principals: [t.member2.id] });
    const id = await streamId("tiny");
    const log = new EventLog(srv);
    await api(t.member2).delete("/users/me/subscriptions", { subscriptions: ["tiny"] });
    log.stop();
    assert.deepEqual(log.of("stream", "delete").map((n) => [n.event, n.userIds]), [
      [{ type: "stream", op: "delete", streams: [{ stream_id: id }], stream_ids: [id] }, [t.member2.id]],
    ]);
    assert.deepEqual(log.of("subscription", "peer_remove")[0].userIds, [t.owner.id, t.admin.id, t.member.id].sort((a, b) => a - b));
  });

  test("removing others needs permission; admins and bot owners have it", async () => {
    await api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: "crowd" }], principals: [t.member.id, t.member2.id, t.bot.id] });
    await refused(t.member, { subscriptions: ["crowd"], principals: [t.member2.id] }, "Insufficient permission", "delete");
    await refused(t.moderator, { subscriptions: ["crowd"], principals: [t.member2.id] }, "Insufficient permission", "delete");
    const own = await api(t.owner).delete("/users/me/subscriptions", { subscriptions: ["crowd"], principals: [t.bot.id] });
    assert.deepEqual(own.body.removed, ["crowd"], "owners directly control their bots");
    const admin = await api(t.admin).delete("/users/me/subscriptions", { subscriptions: ["crowd"], principals: [t.member2.id, t.guest.id] });
    assert.deepEqual(admin.body, { result: "success", msg: "", removed: ["crowd"], not_removed: ["crowd"] });
  });

  test("unknown channels and bad parameters", async () => {
    await refused(t.member, { subscriptions: ["nope", "general", "nada"] }, "Channel(s) (nope, nada) do not exist", "delete");
    await refused(t.member, { subscriptions: [""] }, "Channel name can't be empty.", "delete");
    await refused(t.member, { subscriptions: "general" }, "subscriptions is not valid JSON", "delete");
    await refused(t.member, {}, "Missing 'subscriptions' argument", "delete");
    await refused(t.member, { subscriptions: ["general"], principals: [o.member.id] }, `Invalid user ID: ${o.member.id}`, "delete");
  });
});

describe("GET /users/me/subscriptions", () => {
  test("lists the user's channels by name, with subscribers on request", async () => {
    const plain = await api(t.member2).get("/users/me/subscriptions");
    const namesOf = (r: typeof plain) => r.body.subscriptions.map((s: { name: string }) => s.name);
    assert.deepEqual(namesOf(plain), [...namesOf(plain)].sort());
    assert.ok(namesOf(plain).includes("general"));
    assert.equal("subscribers" in plain.body.subscriptions[0], false);
    const general = plain.body.subscriptions.find((s: { name: string }) => s.name === "general");
    for (const k of SUB_EXTRA_KEYS) assert.ok(k in general, k);
    assert.match(general.color, /^#[0-9a-f]{6}$/);
    const full = await api(t.member2).get("/users/me/subscriptions", { include_subscribers: true });
    const g = full.body.subscriptions.find((s: { name: string }) => s.name === "general");
    assert.deepEqual(g.subscribers, await subscriberIdsOf("general"));
    assert.equal(g.subscriber_count, g.subscribers.length);
    const bad = await api(t.member2).get("/users/me/subscriptions", { include_subscribers: "sometimes" });
    assert.equal(bad.body.msg, "Invalid include_subscribers");
  });

  test("guests and other organizations see only their own", async () => {
    const guest = await api(t.guest).get("/users/me/subscriptions");
    assert.ok(guest.body.subscriptions.every((s: { stream_id: number }) => typeof s.stream_id === "number"));
    const other = await api(o.member).get("/users/me/subscriptions");
    assert.deepEqual(other.body.subscriptions.map((s: { name: string }) => s.name), ["secret"]);
  });
});
