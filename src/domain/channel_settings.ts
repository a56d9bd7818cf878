/** Per-setting rules for a channel's permission groups (Zulip's stream_permission_group_settings). */
import type { ChannelGroupSetting } from "../store/schema.js";
import { ZulipError } from "../http/errors.js";
import { permissionConfig, type GroupPermissionConfig } from "./group_setting_value.js";

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

/** What values a channel setting accepts, in the shared group-setting terms. */
export const channelSettingConfig = (setting: ChannelGroupSetting): GroupPermissionConfig =>
  permissionConfig({ allowEveryoneGroup: CHANNEL_SETTING_RULES[setting].allowEveryone });

/** The order Zulip's model lists the settings in, which is the order updates apply them. */
export const CHANNEL_SETTINGS_IN_MODEL_ORDER: readonly ChannelGroupSetting[] = [
  "can_add_subscribers_group",
  "can_administer_channel_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
  "can_move_messages_out_of_channel_group",
  "can_move_messages_within_channel_group",
  "can_remove_subscribers_group",
  "can_send_message_group",
  "can_subscribe_group",
  "can_resolve_topics_group",
];

/** Settings that let their members read a private channel, so changing them needs that access too. */
export const CONTENT_ACCESS_SETTINGS: readonly ChannelGroupSetting[] = ["can_add_subscribers_group", "can_subscribe_group"];

/** Settings that, set to anything but role:nobody, need the realm's delete-policy permission. */
export const DELETE_POLICY_SETTINGS: readonly ChannelGroupSetting[] = ["can_delete_any_message_group", "can_delete_own_message_group"];

/** Zulip's message_retention_days values: "realm_default", "unlimited", or a positive count. */
export function parseRetentionDays(value: string | number): number | null {
  if (value === "realm_default") return null;
  if (value === "unlimited") return -1;
  if (typeof value === "number" && Number.isInteger(value) && value > 0) return value;
  return Number.NaN;
}

/** parseRetentionDays, refusing anything else the way Zulip's parameter converter does. */
export function checkedRetentionDays(value: string | number): number | null {
  const days = parseRetentionDays(value);
  if (Number.isNaN(days)) {
    throw new ZulipError(`Bad value for 'message_retention_days': ${value}`, "REQUEST_VARIABLE_INVALID", 400, {
      var_name: "message_retention_days",
    });
  }
  return days;
}

/** How a retention period is named in notices (-1: forever). */
export const retentionPeriodText = (days: number) => (days === -1 ? "Forever" : `${days} days`);
