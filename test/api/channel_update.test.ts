import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { EventLog } from "../helpers/events.js";
import { makeChannel as makeChannelFor, ok, refused, setRealmGroupSetting, setRealmProps, systemGroupId, type MadeChannel } from "../helpers/channels.js";

let srv: TestServer;
let t: TestRealm;
let o: TestRealm;
const api = (u: TestUser) => new Api(srv.url, u);
let everyone: number[];
let nonGuests: number[];
let seq = 0;

const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
const without = (ids: number[], ...drop: number[]) => ids.filter((id) => !drop.includes(id));

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  o = await createTestRealm(srv.app, "other");
  everyone = sorted([t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot].map((u) => u.id));
  nonGuests = without(everyone, t.guest.id);
});
after(() => srv.close());

type Made = MadeChannel;
const makeChannel = (opts: Parameters<typeof makeChannelFor>[2] = {}) => makeChannelFor(srv, t, opts);

const patch = (u: TestUser, c: Made, params: Record<string, unknown>) => api(u).patch(`/streams/${c.id}`, params as never);
const row = (c: Made) => srv.app.db.selectFrom("streams").selectAll().where("id", "=", c.id).executeTakeFirstOrThrow();
const NO_ADMIN = "You do not have permission to administer this channel.";

describe("PATCH /streams/{id}: who may administer", () => {
  test("public channel: realm admins and the channel's administrators; others who can see it are told no; others see nothing", async () => {
    const c = await makeChannel();
    for (const u of [t.owner, t.admin, t.member2]) {
      await ok(patch(u, c, { description: `by ${u.fullName}` }));
      assert.equal((await row(c)).description, `by ${u.fullName}`);
    }
    for (const u of [t.moderator, t.member, t.bot]) await refused(srv, () => patch(u, c, { description: "x" }), NO_ADMIN);
    await refused(srv, () => patch(t.guest, c, { description: "x" }), "Invalid channel ID");
    await refused(srv, () => patch(o.owner, c, { description: "x" }), "Invalid channel ID");
    await refused(srv, () => api(t.owner).patch("/streams/999999", { description: "x" }), "Invalid channel ID");
  });

  test("private channel: unsubscribed realm admins and group members administer it; subscribers who cannot are told no; everyone else sees nothing", async () => {
    const c = await makeChannel({ private: true, subscribers: [t.moderator] });
    for (const u of [t.owner, t.admin, t.member2]) await ok(patch(u, c, { description: `by ${u.fullName}` }));
    await refused(srv, () => patch(t.moderator, c, { description: "x" }), NO_ADMIN);
    for (const u of [t.member, t.guest, t.bot, o.admin]) await refused(srv, () => patch(u, c, { description: "x" }), "Invalid channel ID");
  });

  test("guests never administer, even when named in the group: hidden unless subscribed", async () => {
    const c = await makeChannel({ extra: { can_administer_channel_group: { direct_members: [t.guest.id], direct_subgroups: [] } } });
    await refused(srv, () => patch(t.guest, c, { description: "x" }), "Invalid channel ID");
    await ok(api(t.admin).post("/users/me/subscriptions", { subscriptions: [{ name: c.name }], principals: [t.guest.id] }));
    await refused(srv, () => patch(t.guest, c, { description: "x" }), NO_ADMIN);
  });

  test("an empty request changes nothing and succeeds", async () => {
    const c = await makeChannel();
    const log = new EventLog(srv);
    const r = await ok(patch(t.admin, c, {}));
    log.stop();
    assert.deepEqual(r, { result: "success", msg: "" });
    assert.equal(log.notices.length, 0);
  });
});

describe("PATCH /streams/{id}: description and name", () => {
  test("description: one line, rendered, announced to everyone who can see a public channel, with a notice", async () => {
    const c = await makeChannel();
    const log = new EventLog(srv);
    await ok(patch(t.member2, c, { description: "**bold**\nnext" }));
    log.stop();
    assert.equal((await row(c)).description, "**bold** next");
    const updates = log.of("stream", "update");
    assert.equal(updates.length, 1);
    assert.deepEqual(updates[0].event, {
      type: "stream",
      op: "update",
      property: "description",
      value: "**bold** next",
      rendered_description: "<p><strong>bold</strong> next</p>",
      stream_id: c.id,
      name: c.name,
    });
    assert.deepEqual(updates[0].userIds, sorted([...nonGuests]));
    const notice = log.of("message")[0].event.message as Record<string, unknown>;
    assert.equal(notice.subject, "channel events");
    assert.equal(
      notice.content,
      `@_**Max Member|${t.member2.id}** changed the description for this channel.\n\n* **Old description:**\n\`\`\`\` quote\n*No description.*\n\`\`\`\`\n* **New description:**\n\`\`\`\` quote\n**bold** next\n\`\`\`\``,
    );
  });

  test("description longer than 1024 characters is refused", async () => {
    const c = await makeChannel();
    await refused(srv, () => patch(t.admin, c, { description: "x".repeat(1025) }), "description is too long (limit: 1024 characters)");
  });

  test("private channel events reach subscribers, administrators and metadata groups only", async () => {
    const c = await makeChannel({ private: true, subscribers: [t.guest] });
    const log = new EventLog(srv);
    await ok(patch(t.owner, c, { description: "secret" }));
    log.stop();
    assert.deepEqual(log.of("stream", "update")[0].userIds, sorted([t.owner.id, t.admin.id, t.member2.id, t.guest.id]));
  });

  test("renaming: the event names the old name; case-only changes are allowed; a notice is posted", async () => {
    const c = await makeChannel();
    const log = new EventLog(srv);
    await ok(patch(t.admin, c, { new_name: `  Renamed ${c.name}  ` }));
    log.stop();
    const update = log.of("stream", "update")[0].event;
    assert.deepEqual(update, { type: "stream", op: "update", property: "name", value: `Renamed ${c.name}`, stream_id: c.id, name: c.name });
    assert.equal((log.of("message")[0].event.message as { content: string }).content, `@_**Adam Admin|${t.admin.id}** renamed channel **${c.name}** to **Renamed ${c.name}**.`);
    await ok(patch(t.admin, c, { new_name: `RENAMED ${c.name}` }));
    assert.equal((await row(c)).name, `RENAMED ${c.name}`);
  });

  test("name errors: unchanged, taken (409, archived channels too), empty, too long, unprintable", async () => {
    const c = await makeChannel();
    const other = await makeChannel();
    await refused(srv, () => patch(t.admin, c, { new_name: c.name }), "Channel already has that name.");
    await refused(srv, () => patch(t.admin, c, { new_name: other.name.toUpperCase() }), `Channel '${other.name.toUpperCase()}' already exists`, "CHANNEL_ALREADY_EXISTS", 409);
    await ok(api(t.admin).delete(`/streams/${other.id}`));
    await refused(srv, () => patch(t.admin, c, { new_name: other.name }), `Channel '${other.name}' already exists`, "CHANNEL_ALREADY_EXISTS", 409);
    await refused(srv, () => patch(t.admin, c, { new_name: "   " }), "Channel name can't be empty.");
    await refused(srv, () => patch(t.admin, c, { new_name: "n".repeat(61) }), "Channel name too long (limit: 60 characters).");
    await refused(srv, () => patch(t.admin, c, { new_name: "a\u0001b" }), "Invalid character in channel name, at position 2.");
  });

  test("all or nothing: a refused later step undoes the earlier ones", async () => {
    const c = await makeChannel();
    const other = await makeChannel();
    await refused(srv, () => patch(t.admin, c, { description: "changed", is_private: true, new_name: other.name }), `Channel '${other.name}' already exists`, "CHANNEL_ALREADY_EXISTS", 409);
  });
});

describe("PATCH /streams/{id}: privacy", () => {
  test("the four policies; history can only be protected for private channels; web-public channels cannot be private", async () => {
    const c = await makeChannel();
    await refused(srv, () => patch(t.admin, c, { history_public_to_subscribers: false }), "Invalid parameters");
    await refused(srv, () => patch(t.admin, c, { is_private: false, history_public_to_subscribers: false }), "Invalid parameters");
    await setRealmProps(srv.app, t.realm.id, { enable_spectator_access: true });
    try {
      await refused(srv, () => patch(t.owner, c, { is_web_public: true, history_public_to_subscribers: false }), "Invalid parameters");
      await refused(srv, () => patch(t.owner, c, { is_web_public: true, is_private: true }), "Invalid parameters");
    } finally {
      await setRealmProps(srv.app, t.realm.id, { enable_spectator_access: false });
    }
    await ok(patch(t.admin, c, { is_private: true }));
    let r = await row(c);
    assert.deepEqual([r.invite_only, r.history_public_to_subscribers, r.is_web_public], [1, 0, 0], "history follows is_private");
    await ok(patch(t.admin, c, { history_public_to_subscribers: true }));
    r = await row(c);
    assert.deepEqual([r.invite_only, r.history_public_to_subscribers], [1, 1]);
    await ok(patch(t.owner, c, { is_private: false }));
    r = await row(c);
    assert.deepEqual([r.invite_only, r.history_public_to_subscribers], [0, 1]);
  });

  test("web-public needs the server setting, the organization's spectator access and the creation group", async () => {
    const c = await makeChannel();
    await refused(srv, () => patch(t.owner, c, { is_web_public: true }), "Web-public channels are not enabled.");
    await setRealmProps(srv.app, t.realm.id, { enable_spectator_access: true });
    try {
      await refused(srv, () => patch(t.admin, c, { is_web_public: true }), "Insufficient permission");
      await ok(patch(t.owner, c, { is_web_public: true }));
      assert.equal((await row(c)).is_web_public, 1);
      await ok(patch(t.admin, c, { is_web_public: false }));
    } finally {
      await setRealmProps(srv.app, t.realm.id, { enable_spectator_access: false });
    }
  });

  test("a default channel cannot become private unless it stops being default in the same request", async () => {
    const c = await makeChannel();
    await ok(patch(t.admin, c, { is_default_stream: true }));
    await refused(srv, () => patch(t.admin, c, { is_private: true }), "A default channel cannot be private.");
    await ok(patch(t.admin, c, { is_private: true, is_default_stream: false }));
    const defaults = await srv.app.db.selectFrom("default_streams").select("stream_id").where("stream_id", "=", c.id).execute();
    assert.deepEqual(defaults, []);
  });

  test("the moderation request channel must stay private", async () => {
    const c = await makeChannel({ private: true });
    await setRealmProps(srv.app, t.realm.id, { moderation_request_channel_id: c.id });
    try {
      await refused(srv, () => patch(t.owner, c, { is_private: false }), "Moderation request channel must be private.");
    } finally {
      await setRealmProps(srv.app, t.realm.id, { moderation_request_channel_id: -1 });
    }
  });

  test("changing is_private needs content access: unsubscribed administrators are refused, subscribed ones are not", async () => {
    const c = await makeChannel({ private: true });
    await refused(srv, () => patch(t.admin, c, { is_private: false }), "Channel content access is required.");
    await refused(srv, () => patch(t.member2, c, { is_private: false }), "Channel content access is required.");
    await ok(patch(t.admin, c, { history_public_to_subscribers: true }));
    await ok(patch(t.owner, c, { is_private: false }));
  });

  test("making a channel public or private needs the organization's creation permission", async () => {
    const c = await makeChannel({ subscribers: [t.member2] });
    await setRealmGroupSetting(srv.app, t.realm.id, "can_create_private_channel_group", "role:administrators");
    try {
      await refused(srv, () => patch(t.member2, c, { is_private: true }), "Insufficient permission");
      await ok(patch(t.admin, c, { is_private: true }));
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_create_private_channel_group", "role:members");
    }
    await setRealmGroupSetting(srv.app, t.realm.id, "can_create_public_channel_group", "role:administrators");
    try {
      await refused(srv, () => patch(t.member2, c, { is_private: false }), "Insufficient permission");
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_create_public_channel_group", "role:members");
    }
  });

  test("private to public: newcomers get the channel and its subscribers, the others an update, and a notice is posted", async () => {
    const c = await makeChannel({ private: true, subscribers: [t.member] });
    const log = new EventLog(srv);
    await ok(patch(t.owner, c, { is_private: false }));
    log.stop();
    const newcomers = sorted([t.moderator.id, t.bot.id]);
    const creates = log.of("stream", "create");
    assert.deepEqual(creates.map((n) => n.userIds), [newcomers]);
    const created = (creates[0].event.streams as Record<string, unknown>[])[0];
    assert.equal(created.invite_only, false);
    const peers = log.of("subscription", "peer_add");
    assert.deepEqual(peers.map((n) => [n.userIds, n.event]), [
      [newcomers, { type: "subscription", op: "peer_add", stream_ids: [c.id], user_ids: sorted([t.owner.id, t.member.id]) }],
    ]);
    const updates = log.of("stream", "update");
    assert.deepEqual(updates.map((n) => n.userIds), [sorted([t.owner.id, t.admin.id, t.member.id, t.member2.id])]);
    assert.deepEqual(updates[0].event, {
      type: "stream",
      op: "update",
      property: "invite_only",
      value: false,
      history_public_to_subscribers: true,
      is_web_public: false,
      stream_id: c.id,
      name: c.name,
    });
    assert.equal(
      (log.of("message")[0].event.message as { content: string }).content,
      `@_**Olivia Owner|${t.owner.id}** changed the [access permissions](/help/channel-permissions) for this channel from **Private, protected history** to **Public**.`,
    );
  });

  test("public to private: users who can no longer see the channel are told it is gone", async () => {
    const c = await makeChannel({ subscribers: [t.member] });
    const log = new EventLog(srv);
    await ok(patch(t.admin, c, { is_private: true, history_public_to_subscribers: true }));
    log.stop();
    assert.deepEqual(log.of("stream", "delete").map((n) => [n.userIds, n.event]), [
      [sorted([t.moderator.id, t.bot.id]), { type: "stream", op: "delete", streams: [{ stream_id: c.id }], stream_ids: [c.id] }],
    ]);
    assert.deepEqual(log.of("stream", "update")[0].userIds, sorted([t.owner.id, t.admin.id, t.member.id, t.member2.id]));
  });

  test("repeating the current privacy still announces it, without a notice", async () => {
    const c = await makeChannel();
    const log = new EventLog(srv);
    await ok(patch(t.admin, c, { is_private: false }));
    log.stop();
    assert.equal(log.of("stream", "update").length, 1);
    assert.equal(log.of("message").length, 0);
  });
});

describe("PATCH /streams/{id}: default, retention, archive, folder, topics policy", () => {
  test("is_default_stream: organization administrators only; the organization's non-guests hear of it", async () => {
    const c = await makeChannel();
    await refused(srv, () => patch(t.member2, c, { is_default_stream: true }), "Must be an organization administrator", "UNAUTHORIZED_PRINCIPAL");
    const log = new EventLog(srv);
    await ok(patch(t.admin, c, { is_default_stream: true }));
    await ok(patch(t.admin, c, { is_default_stream: true }));
    log.stop();
    const events = log.of("default_streams");
    assert.equal(events.length, 1, "only a change is announced");
    assert.deepEqual(events[0].userIds, nonGuests);
    assert.ok((events[0].event.default_streams as number[]).includes(c.id));
    await ok(patch(t.admin, c, { is_default_stream: false }));
  });

  test("message_retention_days: owners only; integer, unlimited or the organization default", async () => {
    const c = await makeChannel();
    await refused(srv, () => patch(t.admin, c, { message_retention_days: 30 }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    await refused(srv, () => patch(t.member2, c, { message_retention_days: 30 }), "Must be an organization owner", "UNAUTHORIZED_PRINCIPAL");
    for (const bad of ["forever", 0, -5]) {
      const r = await refused(srv, () => patch(t.owner, c, { message_retention_days: JSON.stringify(bad) }), `Bad value for 'message_retention_days': ${bad}`, "REQUEST_VARIABLE_INVALID");
      assert.equal(r.body.var_name, "message_retention_days");
    }
    const log = new EventLog(srv);
    await ok(patch(t.owner, c, { message_retention_days: 30 }));
    log.stop();
    assert.equal((await row(c)).message_retention_days, 30);
    assert.deepEqual(log.of("stream", "update")[0].event, { type: "stream", op: "update", property: "message_retention_days", value: 30, stream_id: c.id, name: c.name });
    assert.equal(
      (log.of("message")[0].event.message as { content: string }).content,
      `@_**Olivia Owner|${t.owner.id}** has changed the [message retention period](/help/message-retention-policy) for this channel:\n* **Old retention period**: Forever\n* **New retention period**: 30 days\n\nMessages in this channel will now be automatically deleted 30 days after they are sent.`,
    );
    await ok(patch(t.owner, c, { message_retention_days: JSON.stringify("unlimited") }));
    assert.equal((await row(c)).message_retention_days, -1);
    await ok(patch(t.owner, c, { message_retention_days: JSON.stringify("realm_default") }));
    assert.equal((await row(c)).message_retention_days, null);
  });

  test("is_archived: only unarchiving; privacy stays editable while archived", async () => {
    const c = await makeChannel({ private: true, extra: { history_public_to_subscribers: true } });
    await refused(srv, () => patch(t.admin, c, { is_archived: false }), "Channel is not currently deactivated");
    await ok(patch(t.admin, c, { is_archived: true }));
    assert.equal((await row(c)).is_archived, 0, "true does nothing");
    await ok(api(t.admin).delete(`/streams/${c.id}`));
    await ok(patch(t.owner, c, { history_public_to_subscribers: false }));
    assert.equal((await row(c)).history_public_to_subscribers, 0);
    await refused(srv, () => patch(t.member, c, { is_archived: false }), "Invalid channel ID");
    const log = new EventLog(srv);
    await ok(patch(t.member2, c, { is_archived: false }));
    log.stop();
    assert.equal((await row(c)).is_archived, 0);
    const audience = sorted([t.owner.id, t.admin.id, t.member2.id]);
    assert.deepEqual(log.of("stream", "update").map((n) => [n.userIds, n.event]), [
      [audience, { type: "stream", op: "update", property: "is_archived", value: false, stream_id: c.id, name: c.name }],
    ]);
    const create = log.of("stream", "create");
    assert.deepEqual(create.map((n) => n.userIds), [audience]);
    assert.equal(create[0].event.for_unarchiving, true);
    assert.equal((log.of("message")[0].event.message as { content: string }).content, `Channel #**${c.name}** has been unarchived.`);
  });

  test("a private archived channel with no subscribers cannot be unarchived", async () => {
    const c = await makeChannel({ private: true });
    await ok(api(t.owner).delete(`/streams/${c.id}`));
    await ok(api(t.owner).delete("/users/me/subscriptions", { subscriptions: [c.name] }));
    await refused(srv, () => patch(t.admin, c, { is_archived: false }), "Channel is private and have no subscribers");
  });

  test("folder_id: a folder of this organization, or null to leave it", async () => {
    const c = await makeChannel();
    const folder = async (realmId: number, name: string) =>
      (
        await srv.app.db
          .insertInto("channel_folders")
          .values({ realm_id: realmId, name, description: "", rendered_description: "", order: 0, date_created: 0, creator_id: null, is_archived: 0 })
          .returning("id")
          .executeTakeFirstOrThrow()
      ).id;
    const mine = await folder(t.realm.id, `F${seq}`);
    const theirs = await folder(o.realm.id, `G${seq}`);
    await refused(srv, () => patch(t.admin, c, { folder_id: theirs }), "Invalid channel folder ID");
    await refused(srv, () => patch(t.admin, c, { folder_id: 99999 }), "Invalid channel folder ID");
    const log = new EventLog(srv);
    await ok(patch(t.member2, c, { folder_id: mine }));
    await ok(patch(t.member2, c, { folder_id: null }));
    log.stop();
    assert.deepEqual(log.of("stream", "update").map((n) => n.event.value), [mine, null]);
    assert.equal((await row(c)).folder_id, null);
  });

  test("topics_policy: every value; the organization's group decides, administrators always may, inherit is free", async () => {
    const c = await makeChannel();
    for (const policy of ["allow_empty_topic", "disable_empty_topic", "inherit"]) {
      await ok(patch(t.member2, c, { topics_policy: policy }));
      assert.equal((await row(c)).topics_policy, policy);
    }
    await refused(srv, () => patch(t.admin, c, { topics_policy: "sometimes" }), "Invalid topics_policy");
    await setRealmGroupSetting(srv.app, t.realm.id, "can_set_topics_policy_group", "role:nobody");
    try {
      await refused(srv, () => patch(t.member2, c, { topics_policy: "allow_empty_topic" }), "Insufficient permission");
      await ok(patch(t.member2, c, { topics_policy: "inherit" }));
      await ok(patch(t.admin, c, { topics_policy: "allow_empty_topic" }));
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_set_topics_policy_group", "role:members");
    }
    const log = new EventLog(srv);
    await ok(patch(t.admin, c, { topics_policy: "allow_empty_topic" }));
    log.stop();
    assert.equal(log.notices.length, 0, "an unchanged policy is not announced");
  });

  test("empty_topic_only only when every message is in the empty topic", async () => {
    const c = await makeChannel({ extra: { topics_policy: JSON.stringify("allow_empty_topic") } });
    await srv.app.db.deleteFrom("user_messages").where("message_id", "in", srv.app.db.selectFrom("messages").select("id").where("stream_id", "=", c.id)).execute();
    await srv.app.db.deleteFrom("messages").where("stream_id", "=", c.id).execute();
    await ok(api(t.owner).post("/messages", { type: "stream", to: c.id, topic: "", content: "hi" }));
    await ok(patch(t.admin, c, { topics_policy: "empty_topic_only" }));
    await ok(patch(t.admin, c, { topics_policy: "allow_empty_topic" }));
    await ok(api(t.owner).post("/messages", { type: "stream", to: c.id, topic: "named", content: "hi" }));
    await refused(
      srv,
      () => patch(t.admin, c, { topics_policy: "empty_topic_only" }),
      "To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.",
    );
  });
});

describe("PATCH /streams/{id}: permission groups", () => {
  test("update objects: new alone, a matching old, a mismatching old, and no-ops", async () => {
    const c = await makeChannel();
    const admins = await systemGroupId(srv.app, t.realm.id, "role:administrators");
    const moderators = await systemGroupId(srv.app, t.realm.id, "role:moderators");
    const log = new EventLog(srv);
    await ok(patch(t.member2, c, { can_remove_subscribers_group: { new: moderators } }));
    await ok(patch(t.member2, c, { can_remove_subscribers_group: { new: moderators, old: moderators } }));
    log.stop();
    assert.equal(log.of("stream", "update").length, 1, "setting the current value again is a no-op");
    assert.deepEqual(log.of("stream", "update")[0].event, {
      type: "stream",
      op: "update",
      property: "can_remove_subscribers_group",
      value: moderators,
      stream_id: c.id,
      name: c.name,
    });
    await refused(
      srv,
      () => patch(t.member2, c, { can_remove_subscribers_group: { new: admins, old: admins } }),
      "'old' value does not match the expected value.",
      "EXPECTATION_MISMATCH",
    );
    await ok(patch(t.member2, c, { can_remove_subscribers_group: { new: admins, old: { direct_members: [], direct_subgroups: [moderators] } } }));
    assert.equal((await row(c)).can_remove_subscribers_group, admins);
  });

  test("anonymous values are shown as members and subgroups", async () => {
    const c = await makeChannel();
    const moderators = await systemGroupId(srv.app, t.realm.id, "role:moderators");
    const log = new EventLog(srv);
    await ok(patch(t.admin, c, { can_move_messages_within_channel_group: { new: { direct_members: [t.member.id, t.guest.id], direct_subgroups: [moderators] } } }));
    log.stop();
    assert.deepEqual(log.of("stream", "update")[0].event.value, { direct_members: sorted([t.member.id, t.guest.id]), direct_subgroups: [moderators] });
    const r = await api(t.member).get(`/streams/${c.id}`);
    assert.deepEqual(r.body.stream.can_move_messages_within_channel_group, { direct_members: sorted([t.member.id, t.guest.id]), direct_subgroups: [moderators] });
  });

  test("values each setting refuses", async () => {
    const c = await makeChannel();
    const everyoneGroup = await systemGroupId(srv.app, t.realm.id, "role:everyone");
    const internet = await systemGroupId(srv.app, t.realm.id, "role:internet");
    const theirs = await systemGroupId(srv.app, o.realm.id, "role:members");
    await refused(srv, () => patch(t.admin, c, { can_add_subscribers_group: { new: everyoneGroup } }), "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.");
    await refused(srv, () => patch(t.admin, c, { can_subscribe_group: { new: everyoneGroup } }), "'can_subscribe_group' setting cannot be set to 'role:everyone' group.");
    await refused(srv, () => patch(t.admin, c, { can_administer_channel_group: { new: everyoneGroup } }), "'can_administer_channel_group' setting cannot be set to 'role:everyone' group.");
    await refused(srv, () => patch(t.admin, c, { can_send_message_group: { new: internet } }), "'can_send_message_group' setting cannot be set to 'role:internet' group.");
    await refused(srv, () => patch(t.admin, c, { can_send_message_group: { new: theirs } }), "Invalid user group");
    await refused(srv, () => patch(t.admin, c, { can_send_message_group: { new: { direct_members: [o.member.id], direct_subgroups: [] } } }), `Invalid user ID: ${o.member.id}`);
    await refused(srv, () => patch(t.admin, c, { can_send_message_group: { new: { direct_members: [], direct_subgroups: [theirs, 1] } } }), `Invalid user group ID: ${theirs}`);
    await refused(srv, () => patch(t.admin, c, { can_send_message_group: { old: everyoneGroup } }), 'Invalid can_send_message_group["new"]');
    await refused(srv, () => patch(t.admin, c, { can_send_message_group: "x" }), "can_send_message_group is not valid JSON");
    await ok(patch(t.admin, c, { can_send_message_group: { new: everyoneGroup } }));
  });

  test("every setting can be changed by the channel's administrators", async () => {
    const c = await makeChannel({ subscribers: [t.member2] });
    await setRealmGroupSetting(srv.app, t.realm.id, "can_set_delete_message_policy_group", "role:members");
    const moderators = await systemGroupId(srv.app, t.realm.id, "role:moderators");
    try {
      for (const setting of [
        "can_add_subscribers_group",
        "can_delete_any_message_group",
        "can_delete_own_message_group",
        "can_move_messages_out_of_channel_group",
        "can_move_messages_within_channel_group",
        "can_remove_subscribers_group",
        "can_send_message_group",
        "can_subscribe_group",
        "can_resolve_topics_group",
        "can_administer_channel_group",
      ]) {
        await ok(patch(t.member2, c, { [setting]: { new: moderators } }));
        assert.equal((await row(c))[setting as "can_send_message_group"], moderators, setting);
      }
    } finally {
      await setRealmGroupSetting(srv.app, t.realm.id, "can_set_delete_message_policy_group", "role:moderators");
    }
    await refused(srv, () => patch(t.member2, c, { can_send_message_group: { new: moderators } }), NO_ADMIN);
  });

  test("deleting policies need the organization's can_set_delete_message_policy_group", async () => {
    const c = await makeChannel();
    const members = await systemGroupId(srv.app, t.realm.id, "role:members");
    await refused(srv, () => patch(t.member2, c, { can_delete_any_message_group: { new: members } }), "Insufficient permission");
    await refused(srv, () => patch(t.member2, c, { can_delete_own_message_group: { new: members } }), "Insufficient permission");
    await ok(patch(t.admin, c, { can_delete_own_message_group: { new: members } }));
  });

  test("settings granting content access need content access to a private channel; the others do not", async () => {
    const c = await makeChannel({ private: true });
    const moderators = await systemGroupId(srv.app, t.realm.id, "role:moderators");
    for (const setting of ["can_add_subscribers_group", "can_subscribe_group"]) {
      await refused(srv, () => patch(t.admin, c, { [setting]: { new: moderators } }), "Channel content access is required.");
      await refused(srv, () => patch(t.member2, c, { [setting]: { new: moderators } }), "Channel content access is required.");
    }
    await ok(patch(t.admin, c, { can_remove_subscribers_group: { new: moderators } }));
    await ok(patch(t.owner, c, { can_add_subscribers_group: { new: moderators } }));
    // Now every moderator (administrators included) may read it, so the admin may change the other one.
    await ok(patch(t.admin, c, { can_subscribe_group: { new: moderators } }));
  });

  test("metadata groups of a private channel: new members see it arrive, removed ones see it go", async () => {
    const c = await makeChannel({ private: true, subscribers: [t.guest] });
    const log = new EventLog(srv);
    await ok(patch(t.owner, c, { can_subscribe_group: { new: { direct_members: [t.member.id, t.guest.id], direct_subgroups: [] } } }));
    log.stop();
    assert.deepEqual(log.of("stream", "create").map((n) => n.userIds), [[t.member.id]]);
    assert.deepEqual(log.of("subscription", "peer_add").map((n) => [n.userIds, n.event.user_ids]), [[[t.member.id], sorted([t.owner.id, t.guest.id])]]);
    assert.deepEqual(log.of("stream", "update").map((n) => n.userIds), [sorted([t.owner.id, t.admin.id, t.member2.id, t.guest.id])]);
    const nobody = await systemGroupId(srv.app, t.realm.id, "role:nobody");
    const log2 = new EventLog(srv);
    await ok(patch(t.owner, c, { can_subscribe_group: { new: nobody } }));
    log2.stop();
    assert.deepEqual(log2.of("stream", "delete").map((n) => n.userIds), [[t.member.id]]);
    assert.deepEqual(log2.of("stream", "update").map((n) => n.userIds), [sorted([t.owner.id, t.admin.id, t.member2.id, t.guest.id])]);
  });

  test("posting permission changes also report the legacy stream_post_policy", async () => {
    const c = await makeChannel();
    const admins = await systemGroupId(srv.app, t.realm.id, "role:administrators");
    const log = new EventLog(srv);
    await ok(patch(t.admin, c, { can_send_message_group: { new: admins } }));
    log.stop();
    assert.deepEqual(log.of("stream", "update").map((n) => [n.event.property, n.event.value]), [
      ["can_send_message_group", admins],
      ["stream_post_policy", 2],
      ["is_announcement_only", true],
    ]);
  });
});

describe("PATCH /streams/{id}: through an event queue", () => {
  test("a subscriber's queue receives the rename and description updates in order", async () => {
    const c = await makeChannel({ subscribers: [t.member] });
    const reg = await ok(api(t.member).post("/register", { event_types: ["stream"] }));
    await ok(patch(t.admin, c, { new_name: `${c.name} renamed`, description: "fresh" }));
    const body = await ok(api(t.member).get("/events", { queue_id: reg.queue_id, last_event_id: -1 }));
    assert.deepEqual(
      body.events.map((e: Record<string, unknown>) => [e.property, e.value, e.name]),
      [
        ["description", "fresh", c.name],
        ["name", `${c.name} renamed`, c.name],
      ],
    );
  });
});
