/**
 * The per-subscription settings a user changes through POST /users/me/subscriptions/properties:
 * which exist, what values they take, and the events a change produces (Zulip's rules).
 */
import { badRequest } from "../http/errors.js";

export const BOOLEAN_SUBSCRIPTION_PROPERTIES = [
  "in_home_view",
  "is_muted",
  "desktop_notifications",
  "audible_notifications",
  "push_notifications",
  "email_notifications",
  "pin_to_top",
  "wildcard_mentions_notify",
] as const;

export type StoredSubscriptionProperty = "color" | Exclude<(typeof BOOLEAN_SUBSCRIPTION_PROPERTIES)[number], "in_home_view">;

export interface SubscriptionChange {
  property: StoredSubscriptionProperty;
  value: boolean | string;
}

/** Zulip's check_color: a "#" and three to six hex digits. */
export const isHexColor = (value: string) => /^#[0-9a-fA-F]{3,6}$/.test(value);

/**
 * Checks one requested change (the `index`th of the list) and returns what is stored: the legacy
 * `in_home_view` is stored as the inverse `is_muted`.
 */
export function checkSubscriptionChange(index: number, property: string, value: boolean | string): SubscriptionChange {
  if (property === "color") {
    if (!isHexColor(String(value))) {
      throw badRequest(`Invalid subscription_data[${index}]: Value error, color is not a valid hex color code`);
    }
    return { property, value: String(value) };
  }
  if (!(BOOLEAN_SUBSCRIPTION_PROPERTIES as readonly string[]).includes(property)) {
    throw badRequest(`Unknown subscription property: ${property}`);
  }
  if (typeof value !== "boolean") throw badRequest(`${property} is not a boolean`);
  if (property === "in_home_view") return { property: "is_muted", value: !value };
  return { property: property as StoredSubscriptionProperty, value };
}

/**
 * The `subscription` update events for a stored change. Muting is also announced under its
 * legacy inverse name `in_home_view`, first, for clients that only know that one.
 */
export function subscriptionUpdateEvents(streamId: number, change: SubscriptionChange): Record<string, unknown>[] {
  const event = (property: string, value: unknown) => ({ type: "subscription", op: "update", property, value, stream_id: streamId });
  if (change.property === "is_muted") return [event("in_home_view", !change.value), event("is_muted", change.value)];
  return [event(change.property, change.value)];
}
