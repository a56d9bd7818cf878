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
  subscribers?: ReadonlyMap<number, readonly number[]>;
  weeklyTraffic: Map<number, number | null>;
  recentlyActive: Map<number, boolean>;
}

/** The fields that follow from the channel's row alone. */
function rowFields(row: StreamRow): Record<string, unknown> {
  return {
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
    message_retention_days: row.message_retention_days,
    topics_policy: row.topics_policy,
  };
}

/** The fields that come from the organization's state (groups, subscriptions, traffic), in this order. */
const DISPLAY_FIELDS = [
  "is_recently_active",
  "stream_post_policy",
  "is_announcement_only",
  "stream_weekly_traffic",
  "subscriber_count",
  ...CHANNEL_GROUP_SETTINGS,
] as const;

function displayValues(row: StreamRow, data: StreamDisplayData): unknown[] {
  const postPolicy = streamPostPolicy(data.groupNames.get(row.can_send_message_group) ?? null);
  const values: unknown[] = [
    data.recentlyActive.get(row.id) ?? true,
    postPolicy,
    postPolicy === 2,
    data.weeklyTraffic.get(row.id) ?? null,
    data.subscriberCounts.get(row.id) ?? 0,
  ];
  for (const setting of CHANNEL_GROUP_SETTINGS) values.push(data.groupValues.get(row[setting]) ?? row[setting]);
  return values;
}

function formatWith(row: StreamRow, values: readonly unknown[]): Record<string, unknown> {
  const out = rowFields(row);
  DISPLAY_FIELDS.forEach((field, i) => (out[field] = values[i]));
  return out;
}

export function formatStream(row: StreamRow, data: StreamDisplayData): Record<string, unknown> {
  return formatWith(row, displayValues(row, data));
}

/** Equal as JSON: numbers and flags, or an anonymous group's members (built anew on each read). */
function sameJson(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === "object" && typeof b === "object" && JSON.stringify(a) === JSON.stringify(b));
}

/**
 * Each row's JSON (UTF-8) and the display values it was made with. Rows are replaced when a
 * channel changes, never altered (the cached ones are frozen), so an entry is stale only if its
 * values are.
 */
const serialized = new WeakMap<StreamRow, { values: unknown[]; json: Buffer }>();

/**
 * `JSON.stringify(formatStream(row, data))` as UTF-8, kept while the row and its display values
 * stay the same: POST /register sends every channel of the organization, most of them unchanged
 * since the last one.
 */
export function streamJson(row: StreamRow, data: StreamDisplayData): Buffer {
  const values = displayValues(row, data);
  const known = serialized.get(row);
  if (known && values.every((v, i) => sameJson(v, known.values[i]))) return known.json;
  const json = Buffer.from(JSON.stringify(formatWith(row, values)));
  serialized.set(row, { values, json });
  return json;
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
  // Added to the channel's object in place: spreading its 29 fields and the subscription's into
  // a new literal cost about ten times as much (30 µs against 3.4 µs a subscription, measured).
  const out = formatStream(row, data);
  out.color = sub.color;
  Object.assign(out, props);
  out.in_home_view = !props.is_muted;
  if (opts.includeSubscribers) {
    if (!data.subscribers) throw new Error("subscribers were not loaded");
    out.subscribers = data.subscribers.get(row.id) ?? [];
  }
  return out;
}
