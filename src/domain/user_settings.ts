/**
 * Personal settings: every setting PATCH /settings and the organization's defaults take, its
 * Zulip default, the values it allows, and which legacy event family (display or notification
 * settings) it belonged to before the `user_settings` object.
 */
export type SettingKind =
  | { type: "bool" }
  | { type: "int"; values?: readonly number[] }
  | { type: "string"; values?: readonly string[] };

export interface SettingSpec {
  kind: SettingKind;
  default: boolean | number | string;
  /** The legacy event family; null for settings newer than it. */
  legacy: "display" | "notification" | null;
  /** Whether an organization default exists for it (PATCH /realm/user_settings_defaults). */
  realmDefault: boolean;
}

const bool = (d: boolean, legacy: SettingSpec["legacy"] = null, realmDefault = true): SettingSpec => ({
  kind: { type: "bool" },
  default: d,
  legacy,
  realmDefault,
});
const choice = (values: readonly number[], d: number, legacy: SettingSpec["legacy"] = null): SettingSpec => ({
  kind: { type: "int", values },
  default: d,
  legacy,
  realmDefault: true,
});
const strings = (values: readonly string[] | undefined, d: string, legacy: SettingSpec["legacy"] = null, realmDefault = true): SettingSpec => ({
  kind: { type: "string", values },
  default: d,
  legacy,
  realmDefault,
});

export const EMOJISET_CHOICES = [
  { key: "google", text: "Google" },
  { key: "twitter", text: "Twitter" },
  { key: "text", text: "Plain text" },
  { key: "google-blob", text: "Google blobs" },
];
export const NOTIFICATION_SOUNDS = ["chime", "ding", "droplet", "zulip"];

/** The languages Zulip's interface is offered in, by code. */
export const LANGUAGES: Readonly<Record<string, string>> = {
  ar: "العربية", be: "Беларуская", bg: "Български", bn: "বাংলা", ca: "Català", cs: "Čeština", cy: "Cymraeg",
  da: "Dansk", de: "Deutsch", el: "Ελληνικά", en: "English", "en-gb": "British English", eo: "Esperanto",
  es: "Español", fa: "فارسی", fi: "Suomi", fr: "Français", gl: "Galego", gu: "ગુજરાતી", hi: "हिन्दी",
  hu: "Magyar", id: "Bahasa Indonesia", it: "Italiano", ja: "日本語", ko: "한국어", lt: "Lietuvių", lv: "Latviešu",
  ml: "മലയാളം", mn: "Монгол", nl: "Nederlands", no: "Norsk", pa: "ਪੰਜਾਬੀ", pl: "Polski", pt: "Português",
  "pt-br": "Português Brasileiro", "pt-pt": "Português Europeu", ro: "Română", ru: "Русский", si: "සිංහල",
  sk: "Slovenčina", sr: "Српски", sv: "Svenska", ta: "தமிழ்", te: "తెలుగు", tl: "Tagalog", tr: "Türkçe",
  uk: "Українська", ur: "اُردُو", uz: "O‘zbek", vi: "Tiếng Việt", "zh-hans": "简体中文", "zh-hant": "繁體中文",
};

const POLICY_1_TO_4 = [1, 2, 3, 4];
const POLICY_1_TO_3 = [1, 2, 3];

export const USER_SETTINGS: Readonly<Record<string, SettingSpec>> = {
  // Display settings.
  twenty_four_hour_time: bool(false, "display"),
  color_scheme: choice(POLICY_1_TO_3, 1, "display"),
  default_language: strings(Object.keys(LANGUAGES), "en", "display", false),
  web_home_view: strings(["recent_topics", "inbox", "all_messages"], "inbox", "display"),
  demote_inactive_streams: choice(POLICY_1_TO_3, 1, "display"),
  emojiset: strings(EMOJISET_CHOICES.map((c) => c.key), "google", "display"),
  enable_drafts_synchronization: bool(true, "display"),
  enter_sends: bool(false, "display"),
  fluid_layout_width: bool(false, "display"),
  high_contrast_mode: bool(false, "display"),
  left_side_userlist: bool(false, "display"),
  starred_message_counts: bool(true, "display"),
  translate_emoticons: bool(false, "display"),
  // Notification settings.
  desktop_icon_count_display: choice(POLICY_1_TO_4, 1, "notification"),
  email_notifications_batching_period_seconds: { kind: { type: "int" }, default: 120, legacy: "notification", realmDefault: true },
  enable_desktop_notifications: bool(true, "notification"),
  enable_digest_emails: bool(true, "notification"),
  enable_login_emails: bool(true, "notification", false),
  enable_marketing_emails: bool(true, "notification", false),
  enable_offline_email_notifications: bool(true, "notification"),
  enable_offline_push_notifications: bool(true, "notification"),
  enable_online_push_notifications: bool(true, "notification"),
  enable_sounds: bool(true, "notification"),
  enable_stream_audible_notifications: bool(false, "notification"),
  enable_stream_desktop_notifications: bool(false, "notification"),
  enable_stream_email_notifications: bool(false, "notification"),
  enable_stream_push_notifications: bool(false, "notification"),
  message_content_in_email_notifications: bool(true, "notification"),
  notification_sound: strings([...NOTIFICATION_SOUNDS, "none"], "zulip", "notification"),
  pm_content_in_desktop_notifications: bool(true, "notification"),
  presence_enabled: bool(true, "notification"),
  realm_name_in_email_notifications_policy: choice(POLICY_1_TO_3, 1, "notification"),
  wildcard_mentions_notify: bool(true, "notification"),
  // Newer settings, only in the `user_settings` object.
  display_emoji_reaction_users: bool(true),
  email_address_visibility: choice([1, 2, 3, 4, 5], 1),
  web_escape_navigates_to_home_view: bool(true),
  receives_typing_notifications: bool(true),
  send_private_typing_notifications: bool(true),
  send_read_receipts: bool(true),
  send_stream_typing_notifications: bool(true),
  allow_private_data_export: bool(false, null, false),
  web_mark_read_on_scroll_policy: choice(POLICY_1_TO_3, 1),
  web_channel_default_view: choice([1, 2, 4], 1),
  user_list_style: choice(POLICY_1_TO_3, 3),
  web_animate_image_previews: strings(["always", "on_hover", "never"], "on_hover"),
  web_stream_unreads_count_display_policy: choice(POLICY_1_TO_3, 2),
  web_font_size_px: { kind: { type: "int" }, default: 16, legacy: null, realmDefault: true },
  web_line_height_percent: { kind: { type: "int" }, default: 140, legacy: null, realmDefault: true },
  web_navigate_to_sent_message: bool(true),
  web_suggest_update_timezone: bool(true),
  hide_ai_features: bool(false),
  resolved_topic_notice_auto_read_policy: strings(["always", "except_followed", "never"], "except_followed"),
  web_left_sidebar_show_channel_folders: bool(true),
  web_left_sidebar_unreads_count_summary: bool(true),
  enable_followed_topic_desktop_notifications: bool(true),
  enable_followed_topic_email_notifications: bool(true),
  enable_followed_topic_push_notifications: bool(true),
  enable_followed_topic_audible_notifications: bool(true),
  enable_followed_topic_wildcard_mentions_notify: bool(true),
  automatically_follow_topics_policy: choice(POLICY_1_TO_4, 3),
  automatically_unmute_topics_in_muted_streams_policy: choice(POLICY_1_TO_4, 2),
  automatically_follow_topics_where_mentioned: bool(true),
};

export const SETTING_NAMES = Object.keys(USER_SETTINGS);
export const REALM_DEFAULT_SETTING_NAMES = SETTING_NAMES.filter((n) => USER_SETTINGS[n].realmDefault);

/** Zulip limits batching to one week. */
const MAX_BATCHING_PERIOD_SECS = 7 * 24 * 3600;

/** Why a value of this setting is refused, in Zulip's words, or null. Types are checked before. */
export function settingRefusal(name: string, value: unknown): string | null {
  const spec = USER_SETTINGS[name];
  if (name === "default_language" && !(String(value) in LANGUAGES)) return "Invalid default_language";
  if (name === "notification_sound" && !(spec.kind as { values?: readonly string[] }).values?.includes(String(value))) {
    return `Invalid notification sound '${String(value)}'`;
  }
  if (name === "email_notifications_batching_period_seconds") {
    const v = Number(value);
    return v <= 0 || v > MAX_BATCHING_PERIOD_SECS ? `Invalid email batching period: ${v} seconds` : null;
  }
  const values = (spec.kind as { values?: readonly (string | number)[] }).values;
  if (values && !values.includes(value as never)) return `Invalid ${name}`;
  return null;
}

/** A person's value for a setting: what they stored, else Zulip's default. */
export function settingValue(stored: Readonly<Record<string, unknown>>, name: string): unknown {
  return name in stored ? stored[name] : USER_SETTINGS[name].default;
}

/** The same for several settings (all by default). */
export function settingValues(stored: Readonly<Record<string, unknown>>, names: readonly string[] = SETTING_NAMES): Record<string, unknown> {
  return Object.fromEntries(names.map((name) => [name, settingValue(stored, name)]));
}

// IANA names are short and plain; ICU takes seconds to refuse a long enough string.
const TIMEZONE_SHAPE = /^[A-Za-z0-9_+\-/]{1,64}$/;

/** Timezones are IANA names, or "" for none. */
export function isKnownTimezone(tz: string): boolean {
  if (tz === "") return true;
  if (!TIMEZONE_SHAPE.test(tz)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
