/**
 * What a user card says about someone, as pure functions of the user, their presence and the
 * time: their role as Zulip names it, the email the viewer may see, their local time and when
 * they were last active. Unit-tested in test/unit/web/people_card.test.ts.
 */
import { timeOfDay } from "../../time.js";

export interface CardUser {
  user_id: number;
  email: string;
  delivery_email?: string | null;
  full_name: string;
  role: number;
  is_bot: boolean;
  is_active: boolean;
  timezone?: string;
  bot_owner_id?: number | null;
  is_system_bot?: boolean;
}

export interface Presence {
  active_timestamp: number;
  idle_timestamp: number;
}

// Zulip counts someone as offline after 140 seconds without a presence report.
const OFFLINE_AFTER_SECS = 140;

export type PresenceState = "active" | "idle" | "offline";

export function presenceState(p: Presence | undefined, nowSecs: number): PresenceState {
  if (!p) return "offline";
  if (nowSecs - p.active_timestamp < OFFLINE_AFTER_SECS) return "active";
  if (nowSecs - p.idle_timestamp < OFFLINE_AFTER_SECS) return "idle";
  return "offline";
}

const ROLES: Record<number, string> = {
  100: "Organization owner",
  200: "Organization administrator",
  300: "Moderator",
  400: "Member",
  600: "Guest",
};

/** The line under a person's name: their role, or for a bot who owns it. */
export function roleLine(u: CardUser, ownerName: (id: number) => string | undefined): string {
  if (u.is_bot) {
    const owner = u.bot_owner_id ? ownerName(u.bot_owner_id) : undefined;
    if (owner) return `Bot owned by ${owner}`;
    return u.is_system_bot ? "System bot" : "Bot";
  }
  return ROLES[u.role] ?? "Member";
}

/**
 * The address the viewer may see: the real one when the server shared it, else the one the API
 * uses, unless that is only a stand-in (`user123@…`, when the person's email is hidden).
 */
export function visibleEmail(u: Pick<CardUser, "user_id" | "email" | "delivery_email">): string {
  if (u.delivery_email) return u.delivery_email;
  return new RegExp(`^user${u.user_id}@`).test(u.email) ? "" : u.email;
}

/** "6:42 PM local time": "" when the person set no time zone or one this browser does not know. */
export function localTime(timezone: string | undefined, nowMs: number, twentyFour: unknown, locale?: string): string {
  if (!timezone) return "";
  try {
    return `${timeOfDay(nowMs, twentyFour, { timeZone: timezone, locale })} local time`;
  } catch {
    return "";
  }
}

/** "Active now", "Idle", "Active 5 minutes ago"…; "" when the server never saw them. */
export function lastActive(p: Presence | undefined, nowSecs: number): string {
  const state = presenceState(p, nowSecs);
  if (state === "active") return "Active now";
  if (state === "idle") return "Idle";
  const last = Math.max(p?.active_timestamp ?? 0, p?.idle_timestamp ?? 0);
  if (!last) return "";
  const minutes = Math.floor((nowSecs - last) / 60);
  const ago = (n: number, unit: string) => `Active ${n} ${unit}${n === 1 ? "" : "s"} ago`;
  if (minutes < 60) return ago(Math.max(1, minutes), "minute");
  if (minutes < 24 * 60) return ago(Math.floor(minutes / 60), "hour");
  const days = Math.floor(minutes / (24 * 60));
  return days < 365 ? ago(days, "day") : "Not active in the last year";
}

/** People's ids in the order of their names, as lists of people read. */
export function byName(ids: number[], nameOf: (id: number) => string): number[] {
  return [...ids].sort((a, b) => nameOf(a).localeCompare(nameOf(b)) || a - b);
}
