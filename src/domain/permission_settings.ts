/**
 * Zulip's configuration of every group permission setting: which groups it may be set to and
 * its default. POST /register reports it as `server_supported_permission_settings`.
 */
export interface GroupPermissionSetting {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

function setting(
  defaultGroup: string,
  allowEveryone: boolean,
  extra: Partial<GroupPermissionSetting> = {},
): GroupPermissionSetting {
  return {
    require_system_group: false,
    allow_internet_group: false,
    allow_nobody_group: true,
    allow_everyone_group: allowEveryone,
    default_group_name: defaultGroup,
    default_for_system_groups: null,
    allowed_system_groups: [],
    ...extra,
  };
}

export const REALM_PERMISSION_SETTINGS: Record<string, GroupPermissionSetting> = {
  create_multiuse_invite_group: setting("role:administrators", false),
  can_access_all_users_group: setting("role:everyone", true, {
    require_system_group: true,
    allow_nobody_group: false,
    allowed_system_groups: ["role:everyone", "role:members"],
  }),
  can_add_subscribers_group: setting("role:members", false),
  can_add_custom_emoji_group: setting("role:members", false),
  can_create_bots_group: setting("role:members", false),
  can_create_groups: setting("role:members", false),
  can_create_public_channel_group: setting("role:members", false),
  can_create_private_channel_group: setting("role:members", false),
  can_create_web_public_channel_group: setting("role:owners", false, {
    require_system_group: true,
    allowed_system_groups: ["role:moderators", "role:administrators", "role:owners", "role:nobody"],
  }),
  can_create_write_only_bots_group: setting("role:members", false),
  can_delete_any_message_group: setting("role:administrators", false),
  can_delete_own_message_group: setting("role:everyone", true),
  can_invite_users_group: setting("role:members", false),
  can_manage_all_groups: setting("role:owners", false, { allow_nobody_group: false }),
  can_manage_billing_group: setting("role:administrators", false, { allow_nobody_group: false }),
  can_mention_many_users_group: setting("role:administrators", true),
  can_move_messages_between_channels_group: setting("role:members", false),
  can_move_messages_between_topics_group: setting("role:everyone", true),
  can_resolve_topics_group: setting("role:everyone", true),
  can_set_delete_message_policy_group: setting("role:moderators", false),
  can_set_topics_policy_group: setting("role:members", true),
  can_summarize_topics_group: setting("role:everyone", true),
  direct_message_initiator_group: setting("role:everyone", true),
  direct_message_permission_group: setting("role:everyone", true),
};

export const STREAM_PERMISSION_SETTINGS: Record<string, GroupPermissionSetting> = {
  can_add_subscribers_group: setting("role:nobody", false),
  can_administer_channel_group: setting("channel_creator", false),
  can_create_topic_group: setting("role:everyone", true),
  can_delete_any_message_group: setting("role:nobody", true),
  can_delete_own_message_group: setting("role:nobody", true),
  can_move_messages_out_of_channel_group: setting("role:nobody", true),
  can_move_messages_within_channel_group: setting("role:nobody", true),
  can_remove_subscribers_group: setting("role:administrators", true),
  can_send_message_group: setting("role:everyone", true),
  can_subscribe_group: setting("role:nobody", false),
  can_resolve_topics_group: setting("role:nobody", true),
};

export const GROUP_PERMISSION_SETTINGS: Record<string, GroupPermissionSetting> = {
  can_add_members_group: setting("group_creator", true, { default_for_system_groups: "role:nobody" }),
  can_join_group: setting("role:nobody", true, { default_for_system_groups: "role:nobody" }),
  can_leave_group: setting("role:everyone", true, { default_for_system_groups: "role:nobody" }),
  can_manage_group: setting("group_creator", true, { default_for_system_groups: "role:nobody" }),
  can_mention_group: setting("role:everyone", true, { default_for_system_groups: "role:everyone" }),
  can_remove_members_group: setting("role:nobody", true, { default_for_system_groups: "role:nobody" }),
};

/** Legacy integer policies still reported beside their group settings. */
const POLICY_BY_SYSTEM_GROUP: Record<string, number> = {
  "role:owners": 7,
  "role:administrators": 2,
  "role:moderators": 4,
  "role:fullmembers": 3,
  "role:members": 1,
  "role:everyone": 5,
  "role:nobody": 6,
};
const WILDCARD_POLICY_BY_SYSTEM_GROUP: Record<string, number> = {
  "role:everyone": 1,
  "role:members": 2,
  "role:fullmembers": 3,
  "role:moderators": 7,
  "role:administrators": 5,
  "role:nobody": 6,
};
const COMMON_POLICIES = [1, 2, 3, 4];
const WEB_PUBLIC_POLICIES = [2, 4, 6, 7];
const POLICY_ADMINS_ONLY = 2;
const WILDCARD_POLICY_EVERYONE = 1;
const WILDCARD_POLICY_ADMINS = 5;

/** The deprecated policy number matching a group setting (admins only when nothing matches). */
export function legacyPolicy(kind: "common" | "web_public" | "wildcard", systemGroupName: string | undefined): number {
  if (kind === "wildcard") {
    if (systemGroupName === undefined) return WILDCARD_POLICY_ADMINS;
    return WILDCARD_POLICY_BY_SYSTEM_GROUP[systemGroupName] ?? WILDCARD_POLICY_EVERYONE;
  }
  const policy = systemGroupName === undefined ? undefined : POLICY_BY_SYSTEM_GROUP[systemGroupName];
  const valid = kind === "common" ? COMMON_POLICIES : WEB_PUBLIC_POLICIES;
  return policy !== undefined && valid.includes(policy) ? policy : POLICY_ADMINS_ONLY;
}
