/** How channels and subscriptions are shown in the API (feature level 420 shapes). */
import { CHANNEL_GROUP_SETTINGS } from "../store/schema.js";
import type { StreamRow, SubscriptionRow } from "../store/streams.js";
import { streamPostPolicy } from "../domain/channels.js";
import type { GroupSettingValue } from "./group_setting.js";

/** What showing a set of channels needs beyond their rows. */
export interface StreamDisplayData {
  groupValues: Map<number, GroupSettingValue>;
  /** Names of the groups settings point at (null for anonymous groups). */
  groupNames: Map<number, string | null>;
  subscriberCounts: Map<number, number>;
  /** Present when the caller asked for the subscribers themselves. */
  subscribers?: Map<number, number[]>;
  weeklyTraffic: Map<number, number | null>;
  recentlyActive: Map<number, boolean>;
}

export function formatStream(row: StreamRow, data: StreamDisplayData): Record<string, unknown> {
  const postPolicy = streamPostPolicy(data.groupNames.get(row.can_send_message_group) ?? null);
  const out: Record<string, unknown> = {
    stream_id: row.id,
    name: row.name,
    description: row.description,
    rendered_description: row.rendered_description,
    date_created: Number(row.date_created),
    creator_id: row.creator_id,
    invite_only: row.invite_only === 1,
    is_web_public: row.is_web_public === 1,
    history_public_to_subscribers: row.history_public_to_subscribers === 1,
    first_message_id: row.first_message_id,
    folder_id: row.folder_id,
    is_archived: row.is_archived === 1,
    is_recently_active: data.recentlyActive.get(row.id) ?? true,
    message_retention_days: row.message_retention_days,
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === 2,
    topics_policy: row.topics_policy,
    stream_weekly_traffic: data.weeklyTraffic.get(row.id) ?? null,
    subscriber_count: data.subscriberCounts.get(row.id) ?? 0,
  };
  for (const setting of CHANNEL_GROUP_SETTINGS) out[setting] = data.groupValues.get(row[setting]) ?? row[setting];
  return out;
}

export interface SubscriptionProps {
  is_muted: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
}

export const SUBSCRIPTION_PROP_DEFAULTS: SubscriptionProps = {
  is_muted: false,
  pin_to_top: false,
  desktop_notifications: null,
  audible_notifications: null,
  push_notifications: null,
  email_notifications: null,
  wildcard_mentions_notify: null,
};

export function subscriptionProps(sub: SubscriptionRow): SubscriptionProps {
  return { ...SUBSCRIPTION_PROP_DEFAULTS, ...JSON.parse(sub.props) };
}

/** A subscription: the channel's fields plus the user's own settings for it. */
export function formatSubscription(
  row: StreamRow,
  sub: SubscriptionRow,
  data: StreamDisplayData,
  opts: { includeSubscribers: boolean },
): Record<string, unknown> {
  const props = subscriptionProps(sub);
  const out: Record<string, unknown> = {
    ...formatStream(row, data),
    color: sub.color,
    ...props,
    in_home_view: !props.is_muted,
  };
  if (opts.includeSubscribers) {
    if (!data.subscribers) throw new Error("subscribers were not loaded");
    out.subscribers = data.subscribers.get(row.id) ?? [];
  }
  return out;
}
