/** Per-setting rules for a channel's permission groups (Zulip's stream_permission_group_settings). */
import type { ChannelGroupSetting } from "../store/schema.js";

export interface ChannelSettingRule {
  /** Whether role:everyone (which includes guests) may hold the setting. */
  allowEveryone: boolean;
}

export const CHANNEL_SETTING_RULES: Record<ChannelGroupSetting, ChannelSettingRule> = {
  can_add_subscribers_group: { allowEveryone: false },
  can_administer_channel_group: { allowEveryone: false },
  can_delete_any_message_group: { allowEveryone: true },
  can_delete_own_message_group: { allowEveryone: true },
  can_move_messages_out_of_channel_group: { allowEveryone: true },
  can_move_messages_within_channel_group: { allowEveryone: true },
  can_remove_subscribers_group: { allowEveryone: true },
  can_resolve_topics_group: { allowEveryone: true },
  can_send_message_group: { allowEveryone: true },
  can_subscribe_group: { allowEveryone: false },
};

/** Settings that, set to anything but role:nobody, need the realm's delete-policy permission. */
export const DELETE_POLICY_SETTINGS: readonly ChannelGroupSetting[] = ["can_delete_any_message_group", "can_delete_own_message_group"];

/** Zulip's message_retention_days values: "realm_default", "unlimited", or a positive count. */
export function parseRetentionDays(value: string | number): number | null {
  if (value === "realm_default") return null;
  if (value === "unlimited") return -1;
  if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  return Number.NaN;
}
