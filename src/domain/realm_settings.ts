import type { SystemGroupName } from "./system_groups.js";

/** Organization permission settings and the system group each defaults to. */
export const REALM_GROUP_SETTING_DEFAULTS: Record<string, SystemGroupName> = {
  can_access_all_users_group: "role:everyone",
  can_add_custom_emoji_group: "role:members",
  can_add_subscribers_group: "role:members",
  can_create_bots_group: "role:members",
  can_create_groups: "role:members",
  can_create_private_channel_group: "role:members",
  can_create_public_channel_group: "role:members",
  can_create_web_public_channel_group: "role:owners",
  can_create_write_only_bots_group: "role:members",
  can_delete_any_message_group: "role:administrators",
  can_delete_own_message_group: "role:everyone",
  can_invite_users_group: "role:members",
  can_manage_all_groups: "role:owners",
  can_manage_billing_group: "role:administrators",
  can_mention_many_users_group: "role:administrators",
  can_move_messages_between_channels_group: "role:members",
  can_move_messages_between_topics_group: "role:everyone",
  can_resolve_topics_group: "role:everyone",
  can_set_delete_message_policy_group: "role:moderators",
  can_set_topics_policy_group: "role:members",
  can_summarize_topics_group: "role:everyone",
  create_multiuse_invite_group: "role:administrators",
  direct_message_initiator_group: "role:everyone",
  direct_message_permission_group: "role:everyone",
};

export const EMAIL_ADDRESS_VISIBILITY = {
  EVERYONE: 1,
  MEMBERS: 2,
  ADMINS: 3,
  NOBODY: 4,
  MODERATORS: 5,
} as const;

/** Scalar organization settings and their defaults for a new organization. */
export const REALM_PROP_DEFAULTS = {
  invite_required: true,
  emails_restricted_to_domains: false,
  disallow_disposable_email_addresses: true,
  waiting_period_threshold: 0,
  message_retention_days: -1,
  topics_policy: "allow_empty_topic",
  enable_spectator_access: false,
  send_channel_events_messages: true,
  allow_message_editing: true,
  message_content_edit_limit_seconds: 600 as number | null,
  message_content_delete_limit_seconds: null as number | null,
  move_messages_within_stream_limit_seconds: 604800 as number | null,
  move_messages_between_streams_limit_seconds: 604800 as number | null,
  default_language: "en",
  org_type: 0,
  plan_type: 1,
  new_stream_announcements_stream_id: -1,
  signup_announcements_stream_id: -1,
  zulip_update_announcements_stream_id: -1,
  moderation_request_channel_id: -1,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  mandatory_topics: false,
  digest_emails_enabled: false,
  digest_weekday: 1,
  message_content_allowed_in_email_notifications: true,
  enable_read_receipts: false,
  require_unique_names: false,
  name_changes_disabled: false,
  email_changes_disabled: false,
  avatar_changes_disabled: false,
  welcome_message_custom_text: "",
  jitsi_server_url: null as string | null,
  video_chat_provider: 1,
  giphy_rating: 2,
  want_advertise_in_communities_directory: false,
  /** Default `email_address_visibility` for users who join. */
  email_address_visibility: EMAIL_ADDRESS_VISIBILITY.ADMINS as number,
};
export type RealmProps = typeof REALM_PROP_DEFAULTS;

/** Zulip's RealmTopicsPolicyEnum: the organization-wide policies and their stored numbers. */
export const REALM_TOPICS_POLICIES = { allow_empty_topic: 2, disable_empty_topic: 3 } as const;
export type RealmTopicsPolicyName = keyof typeof REALM_TOPICS_POLICIES;

/** Organization permission settings only owners may change. */
export const OWNER_ONLY_REALM_GROUP_SETTINGS = [
  "create_multiuse_invite_group",
  "can_create_groups",
  "can_invite_users_group",
  "can_manage_all_groups",
  "can_manage_billing_group",
];

/** Zulip's text for features a limited (free Cloud) plan lacks. */
export const UPGRADE_TEXT_STANDARD = "Available on Zulip Cloud Standard. Upgrade to access.";
export const PLAN_TYPE_LIMITED = 2;
export const PLAN_TYPE_SELF_HOSTED = 1;
