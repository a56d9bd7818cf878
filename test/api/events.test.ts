import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { ManualTime } from "../helpers/time.js";
import { nextLongPoll, restrictUserAccessToMembers, seedMessage } from "../helpers/event_queues.js";
import { addSubscriptions, removeSubscriptions } from "../../src/store/subscriptions.js";
import { createStreamInTx } from "../../src/actions/streams.js";
import { runAction } from "../../src/actions/run.js";
import { registerStateSection } from "../../src/events/state.js";

let time: ManualTime;
let srv: TestServer;
let t: TestRealm;
let other: TestRealm;
let api: (u: TestUser) => Api;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

before(async () => {
  time = new ManualTime();
  srv = await startTestServer({}, { clock: time, timers: time });
  t = await createTestRealm(srv.app);
  other = await createTestRealm(srv.app, "other");
  api = (u) => new Api(srv.url, u);
});
after(() => srv.close());

const queueCount = async (u: TestUser) => (await srv.app.eventQueues.queueIdsOf(u.id)).length;

async function register(u: TestUser, params: Record<string, unknown> = {}) {
  const r = await api(u).post("/register", params as never);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

function publish(userIds: number[], event: Record<string, unknown>, perUser?: Map<number, Record<string, unknown>>) {
  return srv.app.bus.publish({ realmId: t.realm.id, userIds, event, perUser });
}

const getEvents = (u: TestUser, params: Record<string, unknown>) => api(u).get("/events", params as never);

/** Starts a long-poll and returns (the pending response) once the server holds it. */
async function longPoll(u: TestUser, queueId: string, lastEventId = -1) {
  const waiting = nextLongPoll(srv, queueId);
  const response = getEvents(u, { queue_id: queueId, last_event_id: lastEventId });
  await waiting;
  return { response };
}

describe("POST /register", () => {
  test("creates a queue and returns the version, the queue id and every section", async () => {
    const before = await queueCount(t.member);
    const body = await register(t.member);
    assert.equal(await queueCount(t.member), before + 1);
    assert.match(body.queue_id, UUID);
    assert.equal(body.last_event_id, -1);
    assert.equal(body.zulip_feature_level, 420);
    assert.equal(typeof body.zulip_version, "string");
    assert.equal(body.zulip_merge_base, body.zulip_version);
    for (const key of ["realm_name", "realm_users", "presences", "max_message_id", "unread_msgs", "custom_profile_fields", "user_settings"]) {
      assert.ok(key in body, key);
    }
  });

  test("reports Zulip's limits and server constants", async () => {
    const body = await register(t.member, { fetch_event_types: ["realm"] });
    const expected = {
      max_stream_name_length: 60,
      max_stream_description_length: 1024,
      max_topic_length: 60,
      max_message_length: 10000,
      max_channel_folder_name_length: 60,
      max_channel_folder_description_length: 1024,
      max_bulk_new_subscription_messages: 100,
      realm_empty_topic_display_name: "general chat",
      event_queue_longpoll_timeout_seconds: 90,
      server_presence_ping_interval_seconds: 60,
      server_presence_offline_threshold_seconds: 200,
      realm_moderation_request_channel_id: -1,
      realm_topics_policy: "allow_empty_topic",
      realm_mandatory_topics: false,
      realm_presence_disabled: false,
      realm_url: srv.app.config.externalUrl,
      realm_uri: srv.app.config.externalUrl,
      realm_name: t.realm.name,
      realm_date_created: t.realm.date_created,
    };
    for (const [key, value] of Object.entries(expected)) assert.deepEqual(body[key], value, key);
    assert.equal(body.realm_can_access_all_users_group, t.realm.groupSettings.can_access_all_users_group);
    assert.equal(body.realm_create_public_stream_policy, 1);
    assert.equal(body.realm_create_web_public_stream_policy, 7);
    assert.equal(body.realm_wildcard_mention_policy, 5);
    assert.deepEqual(Object.keys(body.server_supported_permission_settings).sort(), ["group", "realm", "stream"]);
    assert.equal("realm_users" in body, false);
  });

  test("anonymous group settings are shown by their members", async () => {
    const [group] = await srv.app.db
      .insertInto("user_groups")
      .values({ realm_id: other.realm.id, name: null, description: "", is_system_group: 0, deactivated: 0, group_settings: "{}" })
      .returning("id")
      .execute();
    await srv.app.db.insertInto("user_group_members").values({ group_id: group.id, user_id: other.member.id }).execute();
    const settings = { ...other.realm.groupSettings, can_create_groups: group.id };
    await srv.app.db.updateTable("realms").set({ group_settings: JSON.stringify(settings) }).where("id", "=", other.realm.id).execute();
    const body = await register(other.member, { fetch_event_types: ["realm"] });
    assert.deepEqual(body.realm_can_create_groups, { direct_members: [other.member.id], direct_subgroups: [] });
  });

  test("fetch_event_types (or event_types) choose the sections; unknown types are ignored", async () => {
    let body = await register(t.member, { fetch_event_types: ["message"] });
    assert.deepEqual(Object.keys(body).sort(), [
      "last_event_id", "max_message_id", "msg", "queue_id", "result", "zulip_feature_level", "zulip_merge_base", "zulip_version",
    ]);
    body = await register(t.member, { event_types: ["presence"] });
    assert.deepEqual(Object.keys(body).filter((k) => k.startsWith("presence") || k === "server_timestamp").sort(), [
      "presence_last_update_id", "presences", "server_timestamp",
    ]);
    assert.equal("realm_name" in body, false);
    body = await register(t.member, { fetch_event_types: ["no_such_type"], event_types: ["message"] });
    assert.equal("max_message_id" in body, false);
    body = await register(t.member, { fetch_event_types: ["message", "update_message_flags"] });
    assert.deepEqual(body.unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
    body = await register(t.member, { fetch_event_types: ["update_message_flags"] });
    assert.equal("unread_msgs" in body, false);
  });

  test("realm_user: active users sorted, without is_active; system bots apart; the caller's own fields", async () => {
    const body = await register(t.member, { fetch_event_types: ["realm_user"], client_gravatar: false });
    const ids = body.realm_users.map((u: { user_id: number }) => u.user_id);
    assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.member2, t.guest, t.bot]) assert.ok(ids.includes(u.id));
    assert.ok(body.realm_users.every((u: object) => !("is_active" in u)));
    assert.ok(!body.realm_users.some((u: { user_id: number }) => other.member.id === u.user_id));
    assert.deepEqual(body.realm_non_active_users, []);
    assert.deepEqual(body.cross_realm_bots.map((b: { full_name: string }) => b.full_name).sort(), ["Email Gateway", "Notification Bot", "Welcome Bot"]);
    assert.ok(body.cross_realm_bots.every((b: { is_system_bot: boolean; is_bot: boolean }) => b.is_system_bot && b.is_bot));
    assert.ok(!body.cross_realm_bots.some((b: { user_id: number }) => ids.includes(b.user_id)));
    const me = body.realm_users.find((u: { user_id: number }) => u.user_id === t.member.id);
    assert.deepEqual(me.profile_data, {});
    assert.equal(body.user_id, t.member.id);
    assert.equal(body.delivery_email, t.member.email);
    assert.equal(body.full_name, t.member.fullName);
    assert.match(body.avatar_url, /gravatar/);
    assert.match(body.avatar_url_medium, /s=500/);
    const bot = body.realm_users.find((u: { user_id: number }) => u.user_id === t.bot.id);
    assert.equal(bot.bot_owner_id, t.owner.id);
    assert.equal("profile_data" in bot, false);
  });

  test("realm_user: one list is shared by viewers of a role, yet each sees their own address, and changes show at once", async () => {
    const entry = (body: Record<string, any>, u: TestUser) =>
      (body.realm_users as { user_id: number }[]).find((x) => x.user_id === u.id) as Record<string, unknown>;
    // Addresses are visible to administrators only (the default): members see their own alone.
    const first = await register(t.member, { fetch_event_types: ["realm_user"] });
    const second = await register(t.member2, { fetch_event_types: ["realm_user"] });
    assert.equal(entry(first, t.member).delivery_email, t.member.email);
    assert.equal(entry(first, t.member2).delivery_email, null);
    assert.equal(entry(second, t.member2).delivery_email, t.member2.email);
    assert.equal(entry(second, t.member).delivery_email, null);
    const admin = await register(t.admin, { fetch_event_types: ["realm_user"] });
    assert.equal(entry(admin, t.member).delivery_email, t.member.email);
    assert.equal(entry(admin, t.member2).delivery_email, t.member2.email);
    // The same viewer role with and without gravatar URLs are different lists.
    const gravatars = await register(t.member2, { fetch_event_types: ["realm_user"], client_gravatar: false });
    assert.match(String(entry(gravatars, t.owner).avatar_url), /gravatar/);

    // Text outside ASCII takes more bytes than characters: later entries must still be found.
    const renamed = `${t.member.fullName} (renamé 李)`;
    const r = await api(t.member).patch("/settings", { full_name: renamed });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    try {
      assert.equal(entry(await register(t.member2, { fetch_event_types: ["realm_user"] }), t.member).full_name, renamed);
      // A change queued while the list was read is applied to the shared entry, in this response only.
      let trigger: (() => Promise<void>) | undefined = () =>
        publish([t.member2.id], { type: "realm_user", op: "update", person: { user_id: t.owner.id, full_name: "Queued Nåme" } });
      registerStateSection({
        name: "realm_user_probe",
        fetchTypes: ["realm_user"],
        eventTypes: [],
        async fetch() {
          await trigger?.();
          trigger = undefined;
          return {};
        },
      });
      const folded = await register(t.member2, { fetch_event_types: ["realm_user"] });
      assert.equal(entry(folded, t.owner).full_name, "Queued Nåme");
      assert.equal(entry(folded, t.member).full_name, renamed);
      assert.equal(entry(folded, t.member2).delivery_email, t.member2.email);
      // One that adds a user changes the lists' shape; the new user takes its place in id order.
      trigger = async () => {
        await publish([t.member2.id], { type: "realm_user", op: "update", person: { user_id: t.owner.id, full_name: "Queued Again" } });
        await publish([t.member2.id], { type: "realm_user", op: "add", person: { user_id: 0, full_name: "Early Bird", email: "early@example.com", is_bot: false } });
      };
      const added = await register(t.member2, { fetch_event_types: ["realm_user"] });
      const ids = (added.realm_users as { user_id: number }[]).map((u) => u.user_id);
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b));
      assert.equal(ids[0], 0);
      assert.equal(entry(added, t.owner).full_name, "Queued Again");
      assert.deepEqual(entry(added, t.member2).delivery_email, t.member2.email);
      assert.equal(entry(await register(t.member2, { fetch_event_types: ["realm_user"] }), t.owner).full_name, t.owner.fullName);
    } finally {
      await api(t.member).patch("/settings", { full_name: t.member.fullName });
    }
  });

  test("each role's own permissions", async () => {
    const cases: [TestUser, Record<string, boolean>][] = [
      [t.owner, { is_owner: true, is_admin: true, is_moderator: false, is_guest: false, can_create_web_public_streams: true }],
      [t.admin, { is_owner: false, is_admin: true, is_moderator: false, can_create_web_public_streams: false }],
      [t.moderator, { is_admin: false, is_moderator: true, can_create_public_streams: true }],
      [t.member, { is_admin: false, is_moderator: false, is_guest: false, can_create_streams: true, can_invite_others_to_realm: true }],
      [t.guest, { is_guest: true, can_create_streams: false, can_subscribe_other_users: false, can_invite_others_to_realm: false }],
      [t.bot, { is_guest: false, can_create_public_streams: true }],
    ];
    for (const [user, expected] of cases) {
      const body = await register(user, { fetch_event_types: ["realm_user"] });
      for (const [key, value] of Object.entries(expected)) assert.equal(body[key], value, `${user.email} ${key}`);
    }
  });

  test("client_gravatar (on by default) leaves out avatars the client can compute", async () => {
    const avatar = (body: Record<string, any>, id: number) =>
      (body.realm_users as { user_id: number; avatar_url: string | null }[]).find((u) => u.user_id === id)!.avatar_url;
    // Bots' addresses are visible to everyone, so a client computes their gravatar itself.
    const withGravatar = await register(t.admin, { fetch_event_types: ["realm_user"] });
    assert.equal(avatar(withGravatar, t.bot.id), null);
    const without = await register(t.admin, { fetch_event_types: ["realm_user"], client_gravatar: false });
    assert.match(avatar(without, t.bot.id)!, /gravatar/);
    // A member's address is shown to administrators only, so everyone gets the URL.
    assert.match(avatar(withGravatar, t.member.id)!, /gravatar/);
    const member = await register(t.member, { fetch_event_types: ["realm_user"] });
    assert.match(avatar(member, t.member2.id)!, /gravatar/);
  });

  test("deactivated users are listed apart", async () => {
    await srv.app.db.updateTable("users").set({ is_active: 0 }).where("id", "=", other.member2.id).execute();
    try {
      const body = await register(other.owner, { fetch_event_types: ["realm_user"] });
      assert.deepEqual(body.realm_non_active_users.map((u: { user_id: number }) => u.user_id), [other.member2.id]);
      assert.ok(!body.realm_users.some((u: { user_id: number }) => u.user_id === other.member2.id));
    } finally {
      await srv.app.db.updateTable("users").set({ is_active: 1 }).where("id", "=", other.member2.id).execute();
    }
  });

  test("a guest limited to accessible users sees others as unknown, or not at all with user_list_incomplete", async () => {
    const restore = await restrictUserAccessToMembers(srv.app, other.realm.id);
    try {
      const body = await register(other.guest, { fetch_event_types: ["realm_user"] });
      const byId = new Map(body.realm_users.map((u: { user_id: number }) => [u.user_id, u]));
      assert.equal((byId.get(other.guest.id) as { full_name: string }).full_name, other.guest.fullName);
      assert.equal((byId.get(other.bot.id) as { full_name: string }).full_name, other.bot.fullName);
      const hidden = byId.get(other.owner.id) as Record<string, unknown>;
      assert.equal(hidden.full_name, "Unknown user");
      assert.equal(hidden.delivery_email, null);
      const incomplete = await register(other.guest, {
        fetch_event_types: ["realm_user"],
        client_capabilities: { notification_settings_null: true, user_list_incomplete: true },
      });
      assert.deepEqual(
        incomplete.realm_users.map((u: { user_id: number }) => u.user_id).sort(),
        [other.guest.id, other.bot.id].sort(),
      );
    } finally {
      await restore();
    }
  });

  test("custom_profile_fields: the fields (none yet) and the field types", async () => {
    const body = await register(t.member, { fetch_event_types: ["custom_profile_fields"] });
    assert.deepEqual(body.custom_profile_fields, []);
    assert.deepEqual(body.custom_profile_field_types.SHORT_TEXT, { id: 1, name: "Text (short)" });
    assert.equal(Object.keys(body.custom_profile_field_types).length, 8);
  });

  test("user_settings, and the legacy flat keys only without user_settings_object", async () => {
    let body = await register(t.member, { fetch_event_types: ["user_settings", "update_display_settings", "update_global_notifications"] });
    assert.equal(body.user_settings.presence_enabled, true);
    assert.equal(body.user_settings.emojiset, "google");
    assert.equal(body.user_settings.email_address_visibility, 3);
    assert.ok(Array.isArray(body.user_settings.emojiset_choices));
    assert.equal(body.enter_sends, false);
    assert.equal(body.presence_enabled, true);
    body = await register(t.member, {
      fetch_event_types: ["user_settings", "update_display_settings", "update_global_notifications"],
      client_capabilities: { notification_settings_null: true, user_settings_object: true },
    });
    assert.ok("user_settings" in body);
    assert.equal("enter_sends" in body, false);
    assert.equal("presence_enabled" in body, false);
  });

  test("every role can register; each gets its own queue", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot, other.member]) {
      const body = await register(u, { fetch_event_types: ["message"] });
      assert.equal((await srv.app.eventQueues.inspect(body.queue_id))?.userId, u.id);
    }
  });

  test("bad parameters are refused with Zulip's messages, and no queue is created", async () => {
    const before = await queueCount(t.member);
    const cases: [Record<string, unknown>, string][] = [
      [{ narrow: [["search", "x"]] }, "Operator search not supported."],
      [{ narrow: "x" }, "narrow is not valid JSON"],
      [{ narrow: { a: 1 } }, "narrow is not a list"],
      [{ include_subscribers: "yes" }, "Invalid include_subscribers"],
      [{ event_types: "message" }, "event_types is not valid JSON"],
      [{ event_types: [1] }, "event_types[0] is not a string"],
      [{ apply_markdown: "yes" }, "apply_markdown is not valid JSON"],
      [{ client_capabilities: { bulk_message_deletion: 1 } }, 'client_capabilities["bulk_message_deletion"] is not a boolean'],
      [{ queue_lifespan_secs: "1.5" }, "queue_lifespan_secs is not an integer"],
      [{ idle_queue_timeout: "desktop" }, "idle_queue_timeout is not valid JSON"],
    ];
    for (const [params, msg] of cases) {
      const r = await api(t.member).post("/register", params as never);
      assert.equal(r.status, 400, msg);
      assert.deepEqual(r.body, { result: "error", msg, code: "BAD_REQUEST" });
    }
    const guest = await api(t.guest).post("/register", { all_public_streams: true });
    assert.deepEqual(guest.body, { result: "error", msg: "User not authorized for this query", code: "BAD_REQUEST" });
    assert.equal(await queueCount(t.member), before);
  });

  test("tolerates unknown capabilities and reports unknown parameters", async () => {
    const r = await api(t.member).post("/register", {
      fetch_event_types: ["message"],
      client_capabilities: { notification_settings_null: true, some_future_capability: true },
      bogus: "1",
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.ignored_parameters_unsupported, ["bogus"]);
  });

  test("max_message_id and unread_msgs come from the user's message rows and flags", async () => {
    const o = await createTestRealm(srv.app, "messages");
    const r0 = await register(o.member, { fetch_event_types: ["message", "update_message_flags"] });
    assert.equal(r0.max_message_id, -1);
    const [denmark, muted, left] = await runAction(srv.app, async (tx) =>
      Promise.all(["Denmark", "Muted", "Left"].map((name) => createStreamInTx(tx, srv.app, o.realm, null, { name }))),
    );
    for (const s of [denmark, muted, left]) await addSubscriptions(srv.app.db, s.id, [o.member.id, o.member2.id]);
    await srv.app.db
      .updateTable("subscriptions")
      .set({ props: JSON.stringify({ is_muted: true }) })
      .where("user_id", "=", o.member.id)
      .where("stream_id", "=", muted.id)
      .execute();
    const READ = 1;
    const MENTIONED = 8;
    const WILDCARD = 16;
    const seed = (over: Partial<Parameters<typeof seedMessage>[1]>, flags = 0) =>
      seedMessage(srv.app, { realmId: o.realm.id, senderId: o.member2.id, recipients: [{ userId: o.member.id, flags }], ...over });
    const m1 = await seed({ streamId: denmark.id, topic: "Castle" });
    const m2 = await seed({ streamId: denmark.id, topic: "castle" }, MENTIONED);
    await seed({ streamId: denmark.id, topic: "read" }, READ);
    const m4 = await seed({ streamId: muted.id, topic: "" }, WILDCARD);
    await seed({ streamId: left.id, topic: "gone" });
    const m6 = await seed({});
    const m7 = await seed({ recipients: [{ userId: o.member.id, flags: 0 }, { userId: o.owner.id, flags: 0 }] });
    await removeSubscriptions(srv.app.db, left.id, [o.member.id]);

    const body = await register(o.member, { fetch_event_types: ["message", "update_message_flags"] });
    assert.equal(body.max_message_id, m7);
    assert.deepEqual(body.unread_msgs, {
      pms: [{ other_user_id: o.member2.id, sender_id: o.member2.id, unread_message_ids: [m6] }],
      streams: [
        { stream_id: denmark.id, topic: "Castle", unread_message_ids: [m1, m2] },
        { stream_id: muted.id, topic: "general chat", unread_message_ids: [m4] },
      ],
      huddles: [{ user_ids_string: [o.owner.id, o.member.id, o.member2.id].sort((a, b) => a - b).join(","), unread_message_ids: [m7] }],
      mentions: [m2],
      count: 4,
      old_unreads_missing: false,
    });
    const named = await register(o.member, {
      fetch_event_types: ["message", "update_message_flags"],
      client_capabilities: { notification_settings_null: true, empty_topic_name: true },
    });
    assert.equal(named.unread_msgs.streams[1].topic, "");
    assert.equal((await register(o.owner, { fetch_event_types: ["message"] })).max_message_id, m7);
    assert.equal((await register(o.guest, { fetch_event_types: ["message"] })).max_message_id, -1);
  });

  test("events queued while the state was read are folded in, and nothing after them is lost", async () => {
    let trigger: (() => Promise<void>) | undefined;
    registerStateSection({
      name: "race_probe",
      fetchTypes: ["race_probe"],
      eventTypes: ["race_probe"],
      async fetch() {
        await trigger?.();
        return { race_probe: [] };
      },
      apply(state, event) {
        (state.race_probe as unknown[]).push(event.value);
      },
    });
    let unappliedReads = 0;
    let onUnappliedRead: (() => Promise<void>) | undefined;
    registerStateSection({
      name: "race_unapplied",
      fetchTypes: ["race_probe"],
      eventTypes: ["race_unapplied"],
      async fetch() {
        unappliedReads++;
        await onUnappliedRead?.();
        return { race_unapplied: unappliedReads };
      },
    });

    // A change committed while register reads the state: applied, and counted as seen.
    trigger = () => publish([t.member.id], { type: "race_probe", value: 1 });
    let body = await register(t.member, { fetch_event_types: ["race_probe"] });
    assert.deepEqual(body.race_probe, [1]);
    assert.equal(body.last_event_id, 0);
    assert.equal(unappliedReads, 1);

    // A section that cannot apply an event it follows is read again; the events after it still apply.
    trigger = async () => {
      await publish([t.member.id], { type: "race_probe", value: 1 });
      await publish([t.member.id], { type: "race_unapplied" });
      await publish([t.member.id], { type: "race_probe", value: 2 });
    };
    unappliedReads = 0;
    body = await register(t.member, { fetch_event_types: ["race_probe"] });
    trigger = undefined;
    assert.deepEqual(body.race_probe, [1, 2]);
    assert.equal(body.race_unapplied, 2);
    assert.equal(body.last_event_id, 2);
    let rest = await getEvents(t.member, { queue_id: body.queue_id, last_event_id: 2, dont_block: true });
    assert.deepEqual(rest.body.events, []);

    // Reading again is bounded: when every reading meets a new event, the last one stays queued.
    onUnappliedRead = () => publish([t.member.id], { type: "race_unapplied", read: unappliedReads });
    unappliedReads = 0;
    body = await register(t.member, { fetch_event_types: ["race_probe"] });
    onUnappliedRead = undefined;
    assert.equal(unappliedReads, 4);
    assert.equal(body.race_unapplied, 4);
    assert.equal(body.last_event_id, 2);
    rest = await getEvents(t.member, { queue_id: body.queue_id, last_event_id: 2, dont_block: true });
    assert.deepEqual(rest.body.events, [{ type: "race_unapplied", read: 4, id: 3 }]);

    // A message arriving meanwhile counts in max_message_id and the unread summary.
    trigger = () =>
      publish(
        [t.member.id],
        { type: "message", message: { id: 5000, type: "private", display_recipient: [{ id: t.member.id }, { id: t.member2.id }] } },
        new Map([[t.member.id, { flags: ["mentioned"] }]]),
      );
    body = await register(t.member, { fetch_event_types: ["message", "update_message_flags", "race_probe"] });
    trigger = undefined;
    assert.equal(body.max_message_id, 5000);
    assert.deepEqual(body.unread_msgs.pms, [{ other_user_id: t.member2.id, sender_id: t.member2.id, unread_message_ids: [5000] }]);
    assert.deepEqual(body.unread_msgs.mentions, [5000]);
    assert.equal(body.last_event_id, 0);
  });
  test("a channel created and joined while the state was read is in it, and its events are not queued again", async () => {
    const name = "Raced in";
    let trigger: (() => Promise<void>) | undefined = async () => {
      const r = await api(t.owner).post("/users/me/subscriptions", { subscriptions: [{ name }], principals: [t.owner.id, t.member.id] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
    };
    registerStateSection({
      name: "channel_race_probe",
      fetchTypes: ["subscription"],
      async fetch() {
        await trigger?.();
        trigger = undefined;
        return {};
      },
    });
    const body = await register(t.member, { fetch_event_types: ["subscription", "stream"] });
    assert.ok(body.last_event_id >= 0, "the channel's events arrived while the state was read");
    const [channel] = (body.streams as { name: string; stream_id: number }[]).filter((s) => s.name === name);
    assert.ok(channel, "the new channel is listed");
    assert.ok((body.subscriptions as { stream_id: number }[]).some((s) => s.stream_id === channel.stream_id));
    assert.ok(!(body.never_subscribed as { stream_id: number }[]).some((s) => s.stream_id === channel.stream_id));
    const rest = await getEvents(t.member, { queue_id: body.queue_id, last_event_id: body.last_event_id, dont_block: true });
    assert.deepEqual(rest.body.events, []);
  });
});

describe("GET /events", () => {
  test("a long-poll wakes as soon as an event for its user arrives, and only then", async () => {
    const a = await register(t.member, { event_types: ["custom"] });
    const b = await register(t.member2, { event_types: ["custom"] });
    const pollA = (await longPoll(t.member, a.queue_id)).response;
    const pollB = (await longPoll(t.member2, b.queue_id)).response;
    await publish([t.member.id], { type: "custom", n: 1 });
    const r = await pollA;
    assert.deepEqual(r.body, { result: "success", msg: "", events: [{ type: "custom", n: 1, id: 0 }], queue_id: a.queue_id });
    assert.ok((await srv.app.eventQueues.inspect(b.queue_id))?.waiting, "the other user's request still waits");
    await publish([t.member2.id], { type: "custom", n: 2 });
    assert.deepEqual((await pollB).body.events, [{ type: "custom", n: 2, id: 0 }]);
  });

  test("dont_block answers at once; queue_id is echoed only for new queues", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    let r = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: -1, dont_block: true });
    assert.deepEqual(r.body, { result: "success", msg: "", events: [] });
    r = await getEvents(t.member, { dont_block: true, event_types: ["custom"], apply_markdown: true });
    assert.match(r.body.queue_id, UUID);
    assert.deepEqual(r.body.events, []);
    assert.equal((await srv.app.eventQueues.inspect(r.body.queue_id))?.spec.applyMarkdown, true);
  });

  test("queue_id and last_event_id are required to wait", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    let r = await getEvents(t.member, {});
    assert.deepEqual(r.body, { result: "error", msg: "Missing 'queue_id' argument", code: "BAD_REQUEST" });
    r = await getEvents(t.member, { queue_id: q.queue_id });
    assert.deepEqual(r.body, { result: "error", msg: "Missing 'last_event_id' argument", code: "BAD_REQUEST" });
    r = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: "x" });
    assert.equal(r.body.msg, "last_event_id is not valid JSON");
  });

  test("someone else's queue, or a made-up one, is BAD_EVENT_QUEUE_ID", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    for (const u of [t.member2, t.admin, t.owner, other.member]) {
      const r = await getEvents(u, { queue_id: q.queue_id, last_event_id: -1, dont_block: true });
      assert.equal(r.status, 400);
      assert.deepEqual(r.body, { result: "error", msg: `Bad event queue ID: ${q.queue_id}`, code: "BAD_EVENT_QUEUE_ID", queue_id: q.queue_id });
    }
    const r = await getEvents(t.member, { queue_id: "nope", last_event_id: -1 });
    assert.equal(r.body.code, "BAD_EVENT_QUEUE_ID");
    assert.equal(r.body.queue_id, "nope");
    assert.equal((await srv.app.eventQueues.inspect(q.queue_id))?.userId, t.member.id);
  });

  test("a client reconnecting with the last id it saw loses no event", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    for (let n = 1; n <= 3; n++) await publish([t.member.id], { type: "custom", n });
    const first = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: -1 });
    assert.deepEqual(first.body.events.map((e: { n: number }) => e.n), [1, 2, 3]);
    // The client saw only up to id 0 before the connection dropped.
    const again = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: 0 });
    assert.deepEqual(again.body.events.map((e: { id: number }) => e.id), [1, 2]);
    await publish([t.member.id], { type: "custom", n: 4 });
    const later = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: 2 });
    assert.deepEqual(later.body.events, [{ type: "custom", n: 4, id: 3 }]);
  });

  test("a client that hangs up keeps its queue; the event waits for the next poll", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    const waiting = nextLongPoll(srv, q.queue_id);
    const aborted = new AbortController();
    const request = fetch(`${srv.url}/api/v1/events?queue_id=${q.queue_id}&last_event_id=-1`, {
      headers: { authorization: "Basic " + Buffer.from(`${t.member.email}:${t.member.apiKey}`).toString("base64") },
      signal: aborted.signal,
    }).catch(() => "aborted");
    await waiting;
    const detached = new Promise<void>((resolve) => {
      const check = async () => ((await srv.app.eventQueues.inspect(q.queue_id))?.waiting ? setImmediate(check) : resolve());
      check();
    });
    aborted.abort();
    assert.equal(await request, "aborted");
    await detached;
    await publish([t.member.id], { type: "custom", n: 1 });
    const r = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: -1 });
    assert.deepEqual(r.body.events, [{ type: "custom", n: 1, id: 0 }]);
  });

  test("a waiting request gets a heartbeat after 45–55 s, whatever its event types", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    const pending = (await longPoll(t.member, q.queue_id)).response;
    time.advance(55);
    const r = await pending;
    assert.deepEqual(r.body.events, [{ type: "heartbeat", id: 0 }]);
    assert.equal(r.body.queue_id, q.queue_id);
  });

  test("a queue nobody polls expires after 600 s", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    const kept = await register(t.member, { event_types: ["custom"], queue_lifespan_secs: 3600 });
    time.advance(540);
    assert.equal((await getEvents(t.member, { queue_id: q.queue_id, last_event_id: -1, dont_block: true })).status, 200);
    time.advance(660);
    const r = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: -1, dont_block: true });
    assert.deepEqual(r.body, { result: "error", msg: `Bad event queue ID: ${q.queue_id}`, code: "BAD_EVENT_QUEUE_ID", queue_id: q.queue_id });
    assert.equal((await getEvents(t.member, { queue_id: kept.queue_id, last_event_id: -1, dont_block: true })).status, 200);
  });

  test("idle_queue_timeout sets how long a queue lives unpolled, \"mobile\" for half a day; register says what it got", async () => {
    const plain = await register(t.member, { event_types: ["custom"] });
    const phone = await register(t.member, { event_types: ["custom"], idle_queue_timeout: JSON.stringify("mobile") });
    const hour = await register(t.member, { event_types: ["custom"], idle_queue_timeout: 3600 });
    const week = await register(t.member, { event_types: ["custom"], idle_queue_timeout: 30 * 24 * 3600 });
    assert.equal(plain.idle_queue_timeout_secs, undefined, "feature level 420's answer has no such field");
    assert.deepEqual(
      [phone, hour, week].map((q) => q.idle_queue_timeout_secs),
      [12 * 3600, 3600, 7 * 24 * 3600],
      "asked-for lifespans are capped at a week",
    );
    const alive = async (q: Record<string, any>) =>
      (await getEvents(t.member, { queue_id: q.queue_id, last_event_id: -1, dont_block: true })).status === 200;
    time.advance(3660);
    assert.deepEqual([await alive(plain), await alive(hour), await alive(phone)], [false, false, true]);
    time.advance(12 * 3600 + 60);
    assert.equal(await alive(phone), false);
  });

  test("every role can poll its queue", async () => {
    for (const u of [t.owner, t.admin, t.moderator, t.member, t.guest, t.bot]) {
      const q = await register(u, { event_types: ["custom"] });
      await publish([u.id], { type: "custom" });
      const r = await getEvents(u, { queue_id: q.queue_id, last_event_id: -1 });
      assert.deepEqual(r.body.events, [{ type: "custom", id: 0 }], u.email);
    }
  });
});

describe("DELETE /events", () => {
  test("deletes the queue; a second delete is BAD_EVENT_QUEUE_ID", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    let r = await api(t.member).delete("/events", { queue_id: q.queue_id });
    assert.deepEqual(r.body, { result: "success", msg: "" });
    r = await api(t.member).delete("/events", { queue_id: q.queue_id });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body, { result: "error", msg: `Bad event queue ID: ${q.queue_id}`, code: "BAD_EVENT_QUEUE_ID", queue_id: q.queue_id });
    const g = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: -1, dont_block: true });
    assert.equal(g.body.code, "BAD_EVENT_QUEUE_ID");
  });

  test("someone else's queue cannot be deleted and survives", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    for (const u of [t.member2, t.owner, t.admin, other.owner]) {
      const r = await api(u).delete("/events", { queue_id: q.queue_id });
      assert.deepEqual(r.body, { result: "error", msg: `Bad event queue ID: ${q.queue_id}`, code: "BAD_EVENT_QUEUE_ID", queue_id: q.queue_id });
    }
    assert.equal((await srv.app.eventQueues.inspect(q.queue_id))?.userId, t.member.id);
  });

  test("answers a waiting request, accepts the id in the query string, and requires it", async () => {
    const q = await register(t.member, { event_types: ["custom"] });
    const pending = (await longPoll(t.member, q.queue_id)).response;
    const r = await api(t.member).call("DELETE", `/events?queue_id=${q.queue_id}`);
    assert.equal(r.status, 200);
    assert.deepEqual((await pending).body.events, []);
    const missing = await api(t.member).delete("/events", {});
    assert.deepEqual(missing.body, {
      result: "error",
      msg: "Missing 'queue_id' argument",
      code: "REQUEST_VARIABLE_MISSING",
      var_name: "queue_id",
    });
  });
});

describe("events already produced by the server, delivered through the queues", () => {
  const message = (over: Record<string, unknown> = {}) => ({
    type: "message",
    message: {
      id: 99,
      type: "stream",
      stream_id: 1,
      display_recipient: "general",
      subject: "greetings",
      sender_id: t.member.id,
      sender_email: t.member.email,
      content: "**hi**",
      rendered_content: "<p><strong>hi</strong></p>",
      avatar_url: "https://secure.gravatar.com/avatar/x?d=identicon&version=1",
      sender_email_address_visibility: 1,
      ...over,
    },
  });

  test("message events carry each recipient's flags and the content form the queue asked for", async () => {
    const html = await register(t.member, { event_types: ["message"], apply_markdown: true });
    const md = await register(t.member2, { event_types: ["message"], client_gravatar: false });
    const outsider = await register(t.admin, { event_types: ["message"] });
    await publish(
      [t.member.id, t.member2.id],
      { ...message(), local_id: "7.01", sender_queue_id: html.queue_id },
      new Map([
        [t.member.id, { flags: ["read"] }],
        [t.member2.id, { flags: ["mentioned"] }],
      ]),
    );
    const a = (await getEvents(t.member, { queue_id: html.queue_id, last_event_id: -1 })).body.events[0];
    assert.deepEqual(Object.keys(a).sort(), ["flags", "id", "local_message_id", "message", "type"]);
    assert.deepEqual(a.flags, ["read"]);
    assert.equal(a.local_message_id, "7.01");
    assert.equal(a.message.content, "<p><strong>hi</strong></p>");
    assert.equal(a.message.content_type, "text/html");
    assert.equal(a.message.avatar_url, null);
    assert.equal("rendered_content" in a.message, false);
    const b = (await getEvents(t.member2, { queue_id: md.queue_id, last_event_id: -1 })).body.events[0];
    assert.deepEqual(b.flags, ["mentioned"]);
    assert.equal(b.message.content, "**hi**");
    assert.equal(b.message.content_type, "text/x-markdown");
    assert.match(b.message.avatar_url, /gravatar/);
    assert.equal("local_message_id" in b, false);
    const c = await getEvents(t.admin, { queue_id: outsider.queue_id, last_event_id: -1, dont_block: true });
    assert.deepEqual(c.body.events, []);
  });

  test("the narrow and event_types filter what a queue receives", async () => {
    const narrowed = await register(t.member, { narrow: [["channel", "general"], ["topic", "other"]] });
    const presenceOnly = await register(t.member, { event_types: ["presence"] });
    const everything = await register(t.member);
    await publish([t.member.id], message(), new Map([[t.member.id, { flags: [] }]]));
    for (const [q, count] of [[narrowed, 0], [presenceOnly, 0], [everything, 1]] as const) {
      const r = await getEvents(t.member, { queue_id: q.queue_id, last_event_id: -1, dont_block: true });
      assert.equal(r.body.events.filter((e: { type: string }) => e.type === "message").length, count);
    }
    await publish([t.member.id], message({ subject: "Other" }), new Map([[t.member.id, { flags: [] }]]));
    const r = await getEvents(t.member, { queue_id: narrowed.queue_id, last_event_id: -1, dont_block: true });
    assert.equal(r.body.events.length, 1);
  });

  test("subscription, stream, user and group events reach exactly the users they name", async () => {
    const events = [
      { type: "subscription", op: "add", subscriptions: [] },
      { type: "subscription", op: "peer_add", stream_ids: [1], user_ids: [t.member2.id] },
      { type: "subscription", op: "peer_remove", stream_ids: [1], user_ids: [t.member2.id] },
      { type: "subscription", op: "remove", subscriptions: [] },
      { type: "stream", op: "create", streams: [] },
      { type: "realm_user", op: "add", person: { user_id: 1234 } },
      { type: "user_group", op: "add", group: { id: 5 } },
    ];
    const queues = new Map<TestUser, string>();
    for (const u of [t.member, t.member2, t.guest]) queues.set(u, (await register(u, { fetch_event_types: [] })).queue_id);
    for (const event of events) await publish([t.member.id, t.guest.id], event);
    for (const [u, queueId] of queues) {
      const r = await getEvents(u, { queue_id: queueId, last_event_id: -1, dont_block: true });
      const expected = u === t.member2 ? [] : events.map((e) => `${e.type}/${e.op}`);
      assert.deepEqual(r.body.events.map((e: { type: string; op: string }) => `${e.type}/${e.op}`), expected, u.email);
    }
  });
});
