/** The `realm` section: organization settings, limits and server constants. */
import { registerStateSection, type StateContext } from "../state.js";
import { LIMITS } from "../../domain/limits.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../../domain/limits.js";
import { PRESENCE } from "../../domain/presence.js";
import {
  GROUP_PERMISSION_SETTINGS,
  REALM_PERMISSION_SETTINGS,
  STREAM_PERMISSION_SETTINGS,
  legacyPolicy,
} from "../../domain/permission_settings.js";
import { groupDescriptions } from "../../actions/group_settings.js";
import { groupSettingValues } from "../../format/group_setting.js";
import { realmImageState } from "../../media/realm_images.js";
import { THUMBNAIL_OUTPUT_FORMATS, formatName } from "../../media/thumbnails.js";

/** Zulip's organization properties, reported as `realm_<name>`. */
const REALM_PROPERTIES = [
  "allow_message_editing",
  "avatar_changes_disabled",
  "default_code_block_language",
  "default_language",
  "description",
  "digest_emails_enabled",
  "digest_weekday",
  "disallow_disposable_email_addresses",
  "email_changes_disabled",
  "emails_restricted_to_domains",
  "enable_guest_user_dm_warning",
  "enable_guest_user_indicator",
  "enable_read_receipts",
  "enable_spectator_access",
  "giphy_rating",
  "inline_image_preview",
  "inline_url_embed_preview",
  "invite_required",
  "jitsi_server_url",
  "message_content_allowed_in_email_notifications",
  "message_content_edit_limit_seconds",
  "message_content_delete_limit_seconds",
  "message_edit_history_visibility_policy",
  "move_messages_between_streams_limit_seconds",
  "move_messages_within_stream_limit_seconds",
  "message_retention_days",
  "name",
  "name_changes_disabled",
  "push_notifications_enabled",
  "require_e2ee_push_notifications",
  "require_unique_names",
  "send_welcome_emails",
  "topics_policy",
  "video_chat_provider",
  "waiting_period_threshold",
  "want_advertise_in_communities_directory",
  "welcome_message_custom_text",
];

/** Zulip's defaults for the properties Confab's organizations do not store (yet). */
const UNSTORED_PROPERTY_DEFAULTS: Record<string, unknown> = {
  default_code_block_language: "",
  enable_guest_user_dm_warning: true,
  enable_guest_user_indicator: true,
  message_edit_history_visibility_policy: "all",
  push_notifications_enabled: false,
  require_e2ee_push_notifications: false,
  send_welcome_emails: true,
  presence_disabled: false,
};

const ANNOUNCEMENT_CHANNELS = [
  "moderation_request_channel_id",
  "new_stream_announcements_stream_id",
  "signup_announcements_stream_id",
  "zulip_update_announcements_stream_id",
];

const SERVER_GENERATION = Math.floor(Date.now() / 1000);
const JITSI_SERVER_URL = "https://meet.jit.si";

const GIPHY_RATING_OPTIONS = {
  disabled: { name: "GIPHY integration disabled", id: 0 },
  y: { name: "Allow GIFs rated Y (Very young audience)", id: 1 },
  g: { name: "Allow GIFs rated G (General audience)", id: 2 },
  pg: { name: "Allow GIFs rated PG (Parental guidance)", id: 3 },
  "pg-13": { name: "Allow GIFs rated PG-13 (Parental guidance - under 13)", id: 4 },
  r: { name: "Allow GIFs rated R (Restricted)", id: 5 },
};

const DEFAULT_EXTERNAL_ACCOUNTS = {
  twitter: { text: "Twitter", url_pattern: "https://twitter.com/%(username)s", name: "Twitter username", hint: "" },
  github: { text: "GitHub", url_pattern: "https://github.com/%(username)s", name: "GitHub username", hint: "" },
};

const THUMBNAIL_FORMATS = THUMBNAIL_OUTPUT_FORMATS.map((f) => ({
  name: formatName(f),
  max_width: f.maxWidth,
  max_height: f.maxHeight,
  format: f.extension,
  animated: f.animated,
}));

async function realmState(ctx: StateContext) {
  const { app, realm } = ctx;
  const props: Record<string, unknown> = { ...UNSTORED_PROPERTY_DEFAULTS, ...realm.props };
  const base = app.config.externalUrl;
  const dev = app.config.development;
  const state: Record<string, unknown> = {};
  for (const name of REALM_PROPERTIES) {
    state[`realm_${name}`] = name === "name" ? realm.name : name === "description" ? realm.description : (props[name] ?? null);
  }

  const settingIds = Object.values(realm.groupSettings);
  const groups = await groupDescriptions(app, app.db, settingIds);
  const values = groupSettingValues(groups);
  const systemNames = new Map(groups.filter((g) => g.isSystem).map((g) => [g.id, g.name!]));
  for (const [setting, groupId] of Object.entries(realm.groupSettings)) state[`realm_${setting}`] = values.get(groupId) ?? groupId;
  const systemName = (setting: string) => systemNames.get(realm.groupSettings[setting]);
  state.realm_create_public_stream_policy = legacyPolicy("common", systemName("can_create_public_channel_group"));
  state.realm_create_private_stream_policy = legacyPolicy("common", systemName("can_create_private_channel_group"));
  state.realm_create_web_public_stream_policy = legacyPolicy("web_public", systemName("can_create_web_public_channel_group"));
  state.realm_wildcard_mention_policy = legacyPolicy("wildcard", systemName("can_mention_many_users_group"));

  for (const field of ANNOUNCEMENT_CHANNELS) {
    const value = props[field];
    state[`realm_${field}`] = value === null || value === undefined ? -1 : value;
  }

  const topicsPolicy = String(props.topics_policy);
  const editHistory = String(props.message_edit_history_visibility_policy);
  Object.assign(state, {
    realm_authentication_methods: {
      ...(dev ? { Dev: { enabled: true, available: true } } : {}),
      Email: { enabled: true, available: true },
    },
    realm_allow_message_editing: props.allow_message_editing,
    realm_presence_disabled: Boolean(props.presence_disabled),
    realm_is_zephyr_mirror_realm: false,
    max_avatar_file_size_mib: 5,
    max_file_upload_size_mib: app.config.maxFileUploadSizeMib,
    max_icon_file_size_mib: 5,
    max_logo_file_size_mib: 5,
    realm_upload_quota_mib: null,
    ...realmImageState(realm),
    realm_url: base,
    realm_uri: base,
    realm_bot_domain: app.config.fakeEmailDomain,
    realm_available_video_chat_providers: {
      disabled: { name: "None", id: 0 },
      jitsi_meet: { name: "Jitsi Meet", id: 1 },
    },
    settings_send_digest_emails: true,
    realm_digest_emails_enabled: Boolean(props.digest_emails_enabled),
    realm_email_auth_enabled: true,
    realm_password_auth_enabled: true,
    server_generation: SERVER_GENERATION,
    development_environment: dev,
    realm_org_type: props.org_type,
    realm_plan_type: props.plan_type,
    zulip_plan_is_not_limited: props.plan_type !== 2,
    upgrade_text_for_wide_organization_logo: "Available on Zulip Cloud Standard. Upgrade to access.",
    realm_push_notifications_enabled_end_timestamp: null,
    password_min_length: dev ? 0 : 6,
    password_max_length: 100,
    password_min_guesses: dev ? 0 : 10000,
    server_inline_image_preview: true,
    server_inline_url_embed_preview: app.config.inlineUrlEmbedPreview,
    server_thumbnail_formats: THUMBNAIL_FORMATS,
    server_avatar_changes_disabled: false,
    server_name_changes_disabled: false,
    server_web_public_streams_enabled: app.config.webPublicStreamsEnabled,
    giphy_rating_options: GIPHY_RATING_OPTIONS,
    server_emoji_data_url: `${base}/static/generated/emoji/emoji_api.json`,
    server_needs_upgrade: false,
    event_queue_longpoll_timeout_seconds: app.config.eventQueue.longpollTimeoutSecs,
    realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
    server_jitsi_server_url: JITSI_SERVER_URL,
    jitsi_server_url: props.jitsi_server_url ?? JITSI_SERVER_URL,
    server_can_summarize_topics: false,
    max_stream_name_length: LIMITS.maxStreamNameLength,
    max_stream_description_length: LIMITS.maxStreamDescriptionLength,
    max_bulk_new_subscription_messages: LIMITS.maxBulkNewSubscriptionMessages,
    max_topic_length: LIMITS.maxTopicLength,
    max_message_length: LIMITS.maxMessageLength,
    max_channel_folder_name_length: LIMITS.maxChannelFolderNameLength,
    max_channel_folder_description_length: LIMITS.maxChannelFolderDescriptionLength,
    max_reminder_note_length: 1000,
    realm_date_created: realm.date_created,
    server_presence_ping_interval_seconds: PRESENCE.pingIntervalSecs,
    server_presence_offline_threshold_seconds: PRESENCE.offlineThresholdSecs,
    server_typing_started_expiry_period_milliseconds: 45000,
    server_typing_stopped_wait_period_milliseconds: 12000,
    server_typing_started_wait_period_milliseconds: 30000,
    server_supported_permission_settings: {
      realm: REALM_PERMISSION_SETTINGS,
      stream: STREAM_PERMISSION_SETTINGS,
      group: GROUP_PERMISSION_SETTINGS,
    },
    server_min_deactivated_realm_deletion_days: 14,
    server_max_deactivated_realm_deletion_days: null,
    realm_empty_topic_display_name: EMPTY_TOPIC_DISPLAY_NAME,
    realm_allow_edit_history: editHistory !== "none",
    realm_message_edit_history_visibility_policy: editHistory,
    realm_topics_policy: topicsPolicy,
    realm_mandatory_topics: topicsPolicy === "disable_empty_topic",
  });
  return state;
}

registerStateSection({
  name: "realm",
  fetchTypes: ["realm"],
  eventTypes: ["realm"],
  fetch: realmState,
  apply(state, event) {
    // Organization setting changes arrive as realm/update and realm/update_dict.
    if (event.op === "update" && typeof event.property === "string") {
      state[`realm_${event.property}`] = event.value;
    } else if (event.op === "update_dict" && event.data && typeof event.data === "object") {
      for (const [key, value] of Object.entries(event.data)) state[`realm_${key}`] = value;
    }
  },
});
