import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { createTestRealm, type TestRealm, type TestUser } from "../helpers/realm.js";
import { runAction } from "../../src/actions/run.js";
import { createUserInTx } from "../../src/actions/users.js";
import { getRealm } from "../../src/store/realms.js";
import { Role } from "../../src/domain/roles.js";
import { allIntegrations } from "../../src/integrations/registry.js";

let srv: TestServer;
let t: TestRealm;
let memberBot: TestUser;

const api = (u: TestUser) => new Api(srv.url, u);

/** The keys each `fetch_event_types` value brings, as the FL 420 register response schema says. */
const KEYS_BY_TYPE: Record<string, string[]> = {
  alert_words: ["alert_words"],
  channel_folders: ["channel_folders"],
  custom_profile_fields: ["custom_profile_fields", "custom_profile_field_types"],
  default_stream_groups: ["realm_default_stream_groups"],
  default_streams: ["realm_default_streams"],
  drafts: ["drafts"],
  giphy: ["giphy_api_key"],
  message: ["max_message_id"],
  muted_topics: ["muted_topics"],
  muted_users: ["muted_users"],
  navigation_views: ["navigation_views"],
  onboarding_steps: ["onboarding_steps", "navigation_tour_video_url"],
  presence: ["presences", "presence_last_update_id", "server_timestamp"],
  push_device: ["push_devices"],
  realm: ["realm_name", "realm_date_created", "max_reminder_note_length", "server_supported_permission_settings", "max_bulk_new_subscription_messages"],
  realm_billing: ["realm_billing"],
  realm_bot: ["realm_bots"],
  realm_domains: ["realm_domains"],
  realm_embedded_bots: ["realm_embedded_bots"],
  realm_emoji: ["realm_emoji"],
  realm_filters: ["realm_filters"],
  realm_incoming_webhook_bots: ["realm_incoming_webhook_bots"],
  realm_linkifiers: ["realm_linkifiers"],
  realm_playgrounds: ["realm_playgrounds"],
  realm_user: ["realm_users", "realm_non_active_users", "cross_realm_bots", "user_id", "is_admin"],
  realm_user_groups: ["realm_user_groups"],
  realm_user_settings_defaults: ["realm_user_settings_defaults"],
  recent_private_conversations: ["recent_private_conversations"],
  reminders: ["reminders"],
  saved_snippets: ["saved_snippets"],
  scheduled_messages: ["scheduled_messages"],
  starred_messages: ["starred_messages"],
  stop_words: ["stop_words"],
  stream: ["streams"],
  subscription: ["subscriptions", "unsubscribed", "never_subscribed"],
  update_display_settings: ["emojiset_choices"],
  update_global_notifications: ["available_notification_sounds"],
  user_settings: ["user_settings"],
  user_status: ["user_status"],
  user_topic: ["user_topics"],
  video_calls: ["has_zoom_token"],
};

/** Keys every register answer has, whatever was asked for. */
const ALWAYS = ["result", "msg", "queue_id", "last_event_id", "zulip_version", "zulip_feature_level", "zulip_merge_base"];

before(async () => {
  srv = await startTestServer();
  t = await createTestRealm(srv.app);
  memberBot = await runAction(srv.app, async (tx) => {
    const realm = (await getRealm(tx, t.realm.id))!;
    const u = await createUserInTx(tx, srv.app, realm, {
      email: "helper-bot@zulip.example.com",
      fullName: "Helper Bot",
      role: Role.MEMBER,
      isBot: true,
      botOwnerId: t.member.id,
    });
    return { id: u.id, email: u.delivery_email, apiKey: u.api_key, role: Role.MEMBER, fullName: "Helper Bot" };
  });
});
after(() => srv.close());

async function register(u: TestUser, params: Record<string, unknown> = {}) {
  const r = await api(u).post("/register", params as Record<string, string>);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body;
}

describe("POST /register fetch_event_types", () => {
  for (const [type, keys] of Object.entries(KEYS_BY_TYPE)) {
    test(`${type} brings ${keys.join(", ")}`, async () => {
      const body = await register(t.member, { fetch_event_types: [type] });
      for (const key of keys) assert.ok(key in body, `${key} missing for ${type}`);
    });
  }

  test("an unknown type is ignored, as the spec says, and brings nothing", async () => {
    const body = await register(t.member, { fetch_event_types: ["no_such_type"] });
    assert.deepEqual(Object.keys(body).sort(), [...ALWAYS].sort());
    const mixed = await register(t.member, { fetch_event_types: ["no_such_type", "stop_words"] });
    assert.deepEqual(Object.keys(mixed).sort(), [...ALWAYS, "stop_words"].sort());
  });

  test("a full register has no keys Zulip does not send at FL 420", async () => {
    const body = await register(t.admin);
    assert.equal("realm_send_channel_events_messages" in body, false);
    assert.equal("server_report_message_types" in body, false);
    assert.equal(body.zulip_feature_level, 420);
  });

  test("features Confab does not offer answer with Zulip's nothing-configured values", async () => {
    const body = await register(t.member, {
      fetch_event_types: ["onboarding_steps", "realm_domains", "default_stream_groups", "realm_billing", "giphy", "video_calls", "realm_embedded_bots", "realm_incoming_webhook_bots"],
    });
    assert.deepEqual(body.onboarding_steps, []);
    assert.equal(body.navigation_tour_video_url, null);
    assert.deepEqual(body.realm_domains, []);
    assert.deepEqual(body.realm_default_stream_groups, []);
    assert.deepEqual(body.realm_billing, {});
    assert.equal(body.giphy_api_key, "");
    assert.equal(body.has_zoom_token, false);
    assert.deepEqual(body.realm_embedded_bots, []);
    const words = (await register(t.member, { fetch_event_types: ["stop_words"] })).stop_words;
    assert.ok(words.includes("the") && words.includes("because"));
  });
});

test("realm_incoming_webhook_bots lists every integration a webhook URL can name, by Zulip's schema", async () => {
  const body = await register(t.member, { fetch_event_types: ["realm_incoming_webhook_bots"] });
  const listed = body.realm_incoming_webhook_bots as { name: string; display_name: string; all_event_types: null; config_options: unknown[]; url_options: unknown[] }[];
  assert.deepEqual(listed.map((i) => i.name), allIntegrations().map((i) => i.name));
  assert.deepEqual(listed.find((i) => i.name === "github"), { name: "github", display_name: "GitHub", all_event_types: null, config_options: [], url_options: [] });
});

describe("realm_bots", () => {
  const botIds = async (u: TestUser) =>
    ((await register(u, { fetch_event_types: ["realm_bot"] })).realm_bots as { user_id: number }[]).map((b) => b.user_id).sort();

  test("administrators get every bot of the organization, others only the bots they own", async () => {
    const all = [t.bot.id, memberBot.id].sort();
    assert.deepEqual(await botIds(t.owner), all);
    assert.deepEqual(await botIds(t.admin), all);
    assert.deepEqual(await botIds(t.member), [memberBot.id]);
    assert.deepEqual(await botIds(t.moderator), []);
    assert.deepEqual(await botIds(t.guest), []);
  });

  test("a bot is described as Zulip describes it", async () => {
    const [bot] = (await register(t.member, { fetch_event_types: ["realm_bot"] })).realm_bots;
    assert.deepEqual(Object.keys(bot).sort(), [
      "api_key", "avatar_url", "bot_type", "default_all_public_streams", "default_events_register_stream",
      "default_sending_stream", "email", "full_name", "is_active", "owner_id", "services", "user_id",
    ]);
    assert.equal(bot.user_id, memberBot.id);
    assert.equal(bot.owner_id, t.member.id);
    assert.equal(bot.api_key, memberBot.apiKey);
    assert.equal(bot.is_active, true);
  });
});

describe("recent_private_conversations", () => {
  const send = async (from: TestUser, to: TestUser[]) => {
    const r = await api(from).post("/messages", { type: "direct", to: JSON.stringify(to.map((u) => u.id)), content: "hello" });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.id as number;
  };
  const recent = async (u: TestUser) => (await register(u, { fetch_event_types: ["recent_private_conversations"] })).recent_private_conversations;

  test("one entry per conversation, other participants only, newest first", async () => {
    assert.deepEqual(await recent(t.moderator), []);
    const a = await send(t.moderator, [t.member]);
    const self = await send(t.moderator, [t.moderator]);
    const group = await send(t.member2, [t.moderator, t.member]);
    const b = await send(t.member, [t.moderator]);
    assert.ok(a < self && self < group && group < b);
    assert.deepEqual(await recent(t.moderator), [
      { max_message_id: b, user_ids: [t.member.id] },
      { max_message_id: group, user_ids: [t.member.id, t.member2.id].sort((x, y) => x - y) },
      { max_message_id: self, user_ids: [] },
    ]);
    // Channel messages and other people's conversations do not count.
    assert.deepEqual(await recent(t.guest), []);
    assert.deepEqual(await recent(t.member2), [{ max_message_id: group, user_ids: [t.moderator.id, t.member.id].sort((x, y) => x - y) }]);
  });
});

describe("what real clients read", () => {
  const present = (body: Record<string, unknown>, keys: string[]) =>
    keys.filter((k) => !(k in body));

  test("zulip-terminal's register (it asks for zulip_version, which is not a type) has every key it reads", async () => {
    const body = await register(t.member, {
      event_types: ["message", "update_message", "reaction", "submessage", "subscription", "typing", "update_message_flags", "user_settings", "realm_emoji", "realm_user"],
      fetch_event_types: [
        "realm", "presence", "subscription", "message", "starred_messages", "update_message_flags", "muted_topics",
        "realm_user", "realm_user_groups", "user_settings", "realm_emoji", "custom_profile_fields", "zulip_version",
      ],
      client_gravatar: true,
      apply_markdown: true,
      include_subscribers: true,
    });
    const reads = [
      "zulip_version", "zulip_feature_level", "subscriptions", "muted_topics", "realm_user_groups", "realm_emoji", "user_settings",
      "realm_message_retention_days", "presences", "realm_allow_message_editing", "max_stream_name_length", "max_topic_length",
      "max_message_length", "server_typing_started_wait_period_milliseconds", "server_typing_stopped_wait_period_milliseconds",
      "server_typing_started_expiry_period_milliseconds", "server_presence_offline_threshold_seconds",
      "server_presence_ping_interval_seconds", "user_id", "email", "full_name", "realm_name", "custom_profile_fields",
      "realm_users", "cross_realm_bots", "max_message_id", "queue_id", "last_event_id", "unread_msgs",
    ];
    assert.deepEqual(present(body, reads), []);
    const settings = body.user_settings as Record<string, unknown>;
    for (const k of ["send_private_typing_notifications", "twenty_four_hour_time", "pm_content_in_desktop_notifications"]) assert.ok(k in settings, k);
  });

  test("the Flutter app's full register has every field it requires", async () => {
    const body = await register(t.member);
    const required = [
      "queue_id", "last_event_id", "zulip_feature_level", "zulip_version", "zulip_merge_base", "alert_words", "custom_profile_fields",
      "max_stream_name_length", "max_topic_length", "server_presence_ping_interval_seconds", "server_presence_offline_threshold_seconds",
      "muted_users", "presences", "realm_emoji", "realm_user_groups", "recent_private_conversations", "subscriptions", "unread_msgs",
      "starred_messages", "streams", "user_status", "user_settings", "user_topics", "realm_wildcard_mention_policy", "realm_name",
      "realm_waiting_period_threshold", "realm_allow_message_editing", "realm_enable_read_receipts", "realm_icon_url",
      "realm_presence_disabled", "realm_default_external_accounts", "max_file_upload_size_mib", "server_emoji_data_url",
      "event_queue_longpoll_timeout_seconds", "realm_users", "realm_non_active_users", "cross_realm_bots",
    ];
    assert.deepEqual(present(body, required), []);
    assert.deepEqual(Object.keys(body.unread_msgs).filter((k) => ["count", "pms", "streams", "huddles", "mentions", "old_unreads_missing"].includes(k)).length, 6);
    assert.equal(typeof body.realm_wildcard_mention_policy, "number");
    assert.doesNotThrow(() => new URL(body.realm_icon_url as string));
    assert.doesNotThrow(() => new URL(body.server_emoji_data_url as string));
  });
});
