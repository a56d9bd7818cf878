/**
 * What the channels overlay says about a channel (privacy, who may post, subscribers) and the
 * requests it makes. Changes come back as `subscription` and `stream` events, which the model applies.
 */
import { api } from "../../api";
import { model, type Stream } from "../../model";

export type Privacy = "public" | "web-public" | "private-protected" | "private-shared";

export function privacyOf(s: Stream): Privacy {
  if (s.invite_only) return s.history_public_to_subscribers === false ? "private-protected" : "private-shared";
  return s.is_web_public ? "web-public" : "public";
}

export const PRIVACY_CHOICES: { value: Privacy; label: string; hint: string }[] = [
  { value: "public", label: "Public", hint: "Members of the organization can join and read the whole history." },
  { value: "private-shared", label: "Private, shared history", hint: "Only by invitation; new subscribers see all the history." },
  { value: "private-protected", label: "Private, protected history", hint: "Only by invitation; new subscribers see messages from the time they join." },
  { value: "web-public", label: "Web-public", hint: "Anyone on the internet can read it without an account; members can join." },
];

export const privacyLabel = (p: Privacy) => PRIVACY_CHOICES.find((c) => c.value === p)!.label;

/** The parameters of POST /channels/create (and PATCH /streams) for a privacy. */
export function privacyParams(p: Privacy) {
  return {
    invite_only: p.startsWith("private"),
    history_public_to_subscribers: p !== "private-protected",
    is_web_public: p === "web-public",
  };
}

interface UserGroup {
  id: number;
  name: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
}

const groups = () => (model.realmSettings.realm_user_groups ?? []) as UserGroup[];

/** The id of one of the organization's system groups (`role:everyone`, `role:administrators`…). */
export const systemGroupId = (name: string) => groups().find((g) => g.is_system_group && g.name === name)?.id;

const SYSTEM_NAMES: Record<string, string> = {
  "role:everyone": "Everyone, guests included",
  "role:members": "Members",
  "role:fullmembers": "Full members",
  "role:moderators": "Moderators and administrators",
  "role:administrators": "Administrators",
  "role:owners": "Owners",
  "role:nobody": "Nobody",
  "role:internet": "Everyone on the internet",
};

/** A group setting's value in words: a group by name, or the people and groups it lists. */
export function groupSettingText(value: unknown): string {
  if (typeof value === "number") {
    const g = groups().find((x) => x.id === value);
    if (!g) return "a group";
    return g.is_system_group ? (SYSTEM_NAMES[g.name] ?? g.name) : g.name;
  }
  if (value && typeof value === "object") {
    const v = value as { direct_members?: number[]; direct_subgroups?: number[] };
    const names = [
      ...(v.direct_subgroups ?? []).map((id) => groupSettingText(id)),
      ...(v.direct_members ?? []).map((id) => model.users.get(id)?.full_name ?? `User ${id}`),
    ];
    return names.length ? names.join(", ") : "Nobody";
  }
  return "Unknown";
}

/** Whether the reader is in the group an organization setting names, directly or through subgroups. */
export function holdsRealmSetting(setting: string): boolean {
  const value = model.realmSettings[`realm_${setting}`];
  const byId = new Map(groups().map((g) => [g.id, g]));
  const me = model.me.user_id;
  const seen = new Set<number>();
  const inGroup = (id: number): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    const g = byId.get(id);
    return !!g && (g.members.includes(me) || g.direct_subgroup_ids.some(inGroup));
  };
  if (typeof value === "number") return inGroup(value);
  if (value && typeof value === "object") {
    const v = value as { direct_members?: number[]; direct_subgroups?: number[] };
    return (v.direct_members ?? []).includes(me) || (v.direct_subgroups ?? []).some(inGroup);
  }
  return false;
}

const GUEST = 600;

/** The privacies the reader may create channels with; an organization without settings allows members the usual ones. */
export function creatablePrivacies(): Privacy[] {
  if (model.me.role === GUEST) return [];
  const known = groups().length > 0;
  const may = (setting: string) => !known || holdsRealmSetting(setting);
  const out: Privacy[] = [];
  if (may("can_create_public_channel_group")) out.push("public");
  if (may("can_create_private_channel_group")) out.push("private-shared", "private-protected");
  if (model.realmSettings.realm_enable_spectator_access === true && known && holdsRealmSetting("can_create_web_public_channel_group")) out.push("web-public");
  return out;
}

export const subscriberCount = (id: number): number | undefined => {
  const n = model.streams.get(id)?.subscriber_count ?? model.subs.get(id)?.subscriber_count;
  return typeof n === "number" ? n : undefined;
};

export const subscribe = (name: string) => api("POST", "/users/me/subscriptions", { subscriptions: [{ name }] });
export const unsubscribe = (name: string) => api("DELETE", "/users/me/subscriptions", { subscriptions: [name] });

export type SubscriptionProperty =
  | "color"
  | "is_muted"
  | "pin_to_top"
  | "desktop_notifications"
  | "audible_notifications"
  | "push_notifications"
  | "email_notifications"
  | "wildcard_mentions_notify";

export const setProperty = (streamId: number, property: SubscriptionProperty, value: boolean | string) =>
  api("POST", "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: streamId, property, value }] });

/** Per-channel notification settings; null follows the user's setting named beside it. */
export const NOTIFICATIONS: [SubscriptionProperty, string, string][] = [
  ["desktop_notifications", "enable_stream_desktop_notifications", "Desktop notifications"],
  ["audible_notifications", "enable_stream_audible_notifications", "Audible desktop notifications"],
  ["push_notifications", "enable_stream_push_notifications", "Mobile notifications"],
  ["email_notifications", "enable_stream_email_notifications", "Email notifications"],
  ["wildcard_mentions_notify", "wildcard_mentions_notify", "Notify for @all, @everyone and @channel mentions"],
];

/** Channels by name, for lists; a filter matches the name or the description. */
export function channelMatches(s: Stream, filter: string): boolean {
  const f = filter.trim().toLowerCase();
  return !f || s.name.toLowerCase().includes(f) || s.description.toLowerCase().includes(f);
}
