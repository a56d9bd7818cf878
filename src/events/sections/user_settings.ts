/**
 * The caller's personal settings: the modern `user_settings` object and, for clients without the
 * `user_settings_object` capability, the legacy flat keys.
 */
import { registerStateSection, type StateContext } from "../state.js";
import { userProps } from "../../format/users.js";

/** Zulip's defaults for the personal settings Confab does not store (yet). */
const DISPLAY_SETTING_DEFAULTS = {
  color_scheme: 1,
  default_language: "en",
  web_home_view: "inbox",
  demote_inactive_streams: 1,
  emojiset: "google",
  enable_drafts_synchronization: true,
  enter_sends: false,
  fluid_layout_width: false,
  high_contrast_mode: false,
  left_side_userlist: false,
  starred_message_counts: true,
  translate_emoticons: false,
  twenty_four_hour_time: false,
};

const NOTIFICATION_SETTING_DEFAULTS = {
  desktop_icon_count_display: 1,
  email_notifications_batching_period_seconds: 120,
  enable_desktop_notifications: true,
  enable_digest_emails: true,
  enable_login_emails: true,
  enable_marketing_emails: true,
  enable_offline_email_notifications: true,
  enable_offline_push_notifications: true,
  enable_online_push_notifications: true,
  enable_sounds: true,
  enable_stream_audible_notifications: false,
  enable_stream_desktop_notifications: false,
  enable_stream_email_notifications: false,
  enable_stream_push_notifications: false,
  message_content_in_email_notifications: true,
  notification_sound: "zulip",
  pm_content_in_desktop_notifications: true,
  presence_enabled: true,
  realm_name_in_email_notifications_policy: 1,
  wildcard_mentions_notify: true,
};

const MODERN_SETTING_DEFAULTS = {
  display_emoji_reaction_users: true,
  email_address_visibility: 1,
  web_escape_navigates_to_home_view: true,
  receives_typing_notifications: true,
  send_private_typing_notifications: true,
  send_read_receipts: true,
  send_stream_typing_notifications: true,
  allow_private_data_export: false,
  web_mark_read_on_scroll_policy: 1,
  web_channel_default_view: 1,
  user_list_style: 3,
  web_animate_image_previews: "on_hover",
  web_stream_unreads_count_display_policy: 2,
  web_font_size_px: 16,
  web_line_height_percent: 140,
  web_navigate_to_sent_message: true,
  web_suggest_update_timezone: true,
  hide_ai_features: false,
  resolved_topic_notice_auto_read_policy: "except_followed",
  web_left_sidebar_unreads_count_summary: true,
  enable_followed_topic_desktop_notifications: true,
  enable_followed_topic_email_notifications: true,
  enable_followed_topic_push_notifications: true,
  enable_followed_topic_audible_notifications: true,
  enable_followed_topic_wildcard_mentions_notify: true,
  automatically_follow_topics_policy: 3,
  automatically_unmute_topics_in_muted_streams_policy: 2,
  automatically_follow_topics_where_mentioned: true,
};

const EMOJISET_CHOICES = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
  { key: "google-blob", text: "Google blobs" },
];
const NOTIFICATION_SOUNDS = ["chime", "ding", "droplet", "zulip"];

/** The user's value for each setting: what they stored, else the default. */
function settingValues<T extends Record<string, unknown>>(ctx: StateContext, defaults: T): T {
  const stored = userProps(ctx.user);
  const out: Record<string, unknown> = {};
  for (const [key, fallback] of Object.entries(defaults)) out[key] = key in stored ? stored[key] : fallback;
  if ("presence_enabled" in out) out.presence_enabled = ctx.user.presence_enabled === 1;
  return out as T;
}

registerStateSection({
  name: "user_settings",
  fetchTypes: ["user_settings"],
  eventTypes: ["user_settings"],
  async fetch(ctx) {
    return {
      user_settings: {
        ...settingValues(ctx, DISPLAY_SETTING_DEFAULTS),
        ...settingValues(ctx, NOTIFICATION_SETTING_DEFAULTS),
        ...settingValues(ctx, MODERN_SETTING_DEFAULTS),
        emojiset_choices: EMOJISET_CHOICES,
        timezone: ctx.user.timezone,
        available_notification_sounds: NOTIFICATION_SOUNDS,
      },
    };
  },
  apply(state, event) {
    if (event.op === "update") (state.user_settings as Record<string, unknown>)[String(event.property)] = event.value;
  },
});

/**
 * The legacy flat keys, for clients without `user_settings_object`. Their own legacy events name
 * the setting in `nameKey` / `valueKey`; modern `user_settings` events update them too.
 */
function legacySettingsSection(type: string, defaults: Record<string, unknown>, extra: Record<string, unknown>, nameKey: string, valueKey: string) {
  registerStateSection({
    name: type,
    fetchTypes: [type],
    eventTypes: [type, "user_settings"],
    async fetch(ctx) {
      if (ctx.options.capabilities.user_settings_object) return {};
      return { ...settingValues(ctx, defaults), ...extra, ...(type === "update_display_settings" ? { timezone: ctx.user.timezone } : {}) };
    },
    apply(state, event) {
      const [name, value] = event.type === "user_settings" ? [event.property, event.value] : [event[nameKey], event[valueKey]];
      if (String(name) in state) state[String(name)] = value;
    },
  });
}

legacySettingsSection("update_display_settings", DISPLAY_SETTING_DEFAULTS, { emojiset_choices: EMOJISET_CHOICES }, "setting_name", "setting");
legacySettingsSection(
  "update_global_notifications",
  NOTIFICATION_SETTING_DEFAULTS,
  { available_notification_sounds: NOTIFICATION_SOUNDS },
  "notification_name",
  "setting",
);
