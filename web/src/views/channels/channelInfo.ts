/**
 * What the channels overlay says about a channel (privacy, who may post, subscribers) and the
 * requests it makes. Changes come back as `subscription` and `stream` events, which the model applies.
 */
import { api } from "../../api";
import { model, userName, type Stream } from "../../model";
import { holdsGroupSetting, isGuest, userGroups } from "../../permissions";
import type { SubscriptionProperty } from "../../messages";

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

/** The id of one of the organization's system groups (`role:everyone`, `role:administrators`…). */
export const systemGroupId = (name: string) => userGroups().find((g) => g.is_system_group && g.name === name)?.id;

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
    const g = userGroups().find((x) => x.id === value);
    if (!g) return "a group";
    return g.is_system_group ? (SYSTEM_NAMES[g.name] ?? g.name) : g.name;
  }
  if (value && typeof value === "object") {
    const v = value as { direct_members?: number[]; direct_subgroups?: number[] };
    const names = [...(v.direct_subgroups ?? []).map((id) => groupSettingText(id)), ...(v.direct_members ?? []).map(userName)];
    return names.length ? names.join(", ") : "Nobody";
  }
  return "Unknown";
}

/** The privacies the reader may create channels with; an organization without settings allows members the usual ones. */
export function creatablePrivacies(): Privacy[] {
  if (isGuest()) return [];
  const known = userGroups().length > 0;
  const holds = (setting: string) => holdsGroupSetting(model.realmSettings[`realm_${setting}`]);
  const may = (setting: string) => !known || holds(setting);
  const out: Privacy[] = [];
  if (may("can_create_public_channel_group")) out.push("public");
  if (may("can_create_private_channel_group")) out.push("private-shared", "private-protected");
  if (model.realmSettings.realm_enable_spectator_access === true && known && holds("can_create_web_public_channel_group")) out.push("web-public");
  return out;
}

export const subscriberCount = (id: number): number | undefined => {
  const n = model.streams.get(id)?.subscriber_count ?? model.subs.get(id)?.subscriber_count;
  return typeof n === "number" ? n : undefined;
};

export const subscribe = (name: string) => api("POST", "/users/me/subscriptions", { subscriptions: [{ name }] });
export const unsubscribe = (name: string) => api("DELETE", "/users/me/subscriptions", { subscriptions: [name] });

/** Leaving a private channel asks once more: without an invitation there is no way back in. */
export const leaveNeedsConfirmation = (s: Stream) => !!s.invite_only;
export const leaveConfirmText = "A private channel: you will need an invitation to rejoin.";

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
