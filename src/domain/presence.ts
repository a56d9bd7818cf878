/**
 * Presence rules: how a client's report updates a user's presence, and the two formats Zulip
 * shows it in. A user has one presence record with two times (UNIX seconds): when any client
 * last connected, and when a client last reported the user active.
 */

/** Zulip's server settings for presence. */
export const PRESENCE = {
  pingIntervalSecs: 60,
  offlineThresholdSecs: 200,
  /** Reports closer together than this do not move the stored times. */
  updateMinFreqSecs: 55,
  /** In the legacy format a user counts as active if last active this close to last connected. */
  legacyActivityOffsetSecs: 70,
  /** Beyond this many recipients, "came online" events are not sent at all. */
  userLimitForEvents: 100,
  defaultHistoryLimitDays: 14,
} as const;

export type PresenceStatus = "active" | "idle";
export const PRESENCE_STATUSES: readonly string[] = ["active", "idle"];

export interface PresenceTimes {
  lastActive: number | null;
  lastConnected: number | null;
}

export interface PresenceUpdatePlan {
  /** The times to store; equal to the existing ones when `changed` is false. */
  next: PresenceTimes;
  created: boolean;
  changed: boolean;
  /** The user was offline long enough that others should hear at once that they are back. */
  becameOnline: boolean;
}

/** What a presence report at `now` does to the stored record. */
export function planPresenceUpdate(existing: PresenceTimes | undefined, status: PresenceStatus, now: number): PresenceUpdatePlan {
  const active = status === "active";
  if (!existing) {
    return {
      next: { lastConnected: now, lastActive: active ? now : null },
      created: true,
      changed: true,
      // A new record is announced anyway.
      becameOnline: false,
    };
  }
  const day = 86400;
  const sinceActive = existing.lastActive === null ? day : now - existing.lastActive;
  const sinceConnected = existing.lastConnected === null ? day : now - existing.lastConnected;
  const newlyOnlineGap = PRESENCE.offlineThresholdSecs - PRESENCE.pingIntervalSecs - 10;
  const next = { ...existing };
  let changed = false;
  if (sinceConnected > PRESENCE.updateMinFreqSecs) {
    next.lastConnected = now;
    changed = true;
  }
  if (active && sinceActive > PRESENCE.updateMinFreqSecs) {
    next.lastActive = now;
    // Connected is never older than active.
    if (next.lastConnected === null || now > next.lastConnected) next.lastConnected = now;
    changed = true;
  }
  return { next, created: false, changed, becameOnline: active && sinceActive > newlyOnlineGap };
}

/** Users who never reported a time are shown as of when they joined. */
function withDefaults(times: PresenceTimes, dateJoined: number): { active: number; connected: number } {
  return {
    active: Math.floor(times.lastActive ?? dateJoined),
    connected: Math.floor(times.lastConnected ?? dateJoined),
  };
}

export interface ModernPresence {
  active_timestamp: number;
  idle_timestamp: number;
}

export function modernPresence(times: PresenceTimes, dateJoined: number): ModernPresence {
  const t = withDefaults(times, dateJoined);
  return { active_timestamp: t.active, idle_timestamp: t.connected };
}

export interface LegacyClientPresence {
  client: "website";
  status: PresenceStatus;
  timestamp: number;
  pushable: false;
}

/** The single per-client entry of the legacy format; the server no longer tells clients apart. */
export function legacyClientPresence(times: PresenceTimes, dateJoined: number): LegacyClientPresence {
  const t = withDefaults(times, dateJoined);
  const active = t.active + PRESENCE.legacyActivityOffsetSecs >= t.connected;
  return {
    client: "website",
    status: active ? "active" : "idle",
    timestamp: active ? t.active : t.connected,
    pushable: false,
  };
}

export function legacyPresence(times: PresenceTimes, dateJoined: number) {
  const website = legacyClientPresence(times, dateJoined);
  return {
    aggregated: { client: website.client, status: website.status, timestamp: website.timestamp },
    website,
  };
}

/**
 * GET /users/{user}/presence in the legacy format: without client names, and `offline` in the
 * aggregate once the user has been silent for longer than the offline threshold.
 */
export function singleUserLegacyPresence(times: PresenceTimes, dateJoined: number, now: number) {
  const { website } = legacyPresence(times, dateJoined);
  const aggregatedStatus = Math.floor(now) - website.timestamp > PRESENCE.offlineThresholdSecs ? "offline" : website.status;
  return {
    aggregated: { status: aggregatedStatus, timestamp: website.timestamp },
    website: { status: website.status, timestamp: website.timestamp },
  };
}

/** Which stored records a presence fetch returns. */
export interface PresenceWindow {
  /** Only records updated after this id. */
  afterUpdateId?: number;
  /** Only records connected at or after this time. */
  connectedSince?: number;
  /** Nothing at all (history_limit_days = 0). */
  none: boolean;
}

export function presenceWindow(lastUpdateId: number | undefined, historyLimitDays: number | undefined, now: number): PresenceWindow {
  const days = historyLimitDays ?? PRESENCE.defaultHistoryLimitDays;
  // A client that already holds data (a positive id) needs no age limit: the id bounds the answer.
  const limitByAge = lastUpdateId === undefined || lastUpdateId <= 0;
  return {
    afterUpdateId: lastUpdateId,
    connectedSince: limitByAge ? now - days * 86400 : undefined,
    none: historyLimitDays === 0,
  };
}

/**
 * `presence_last_update_id`: the newest id among the returned records; with none returned, the
 * client's own value (nothing new), or −1 when it sent none.
 */
export function presenceLastUpdateId(returnedIds: readonly number[], clientValue: number | undefined): number {
  if (returnedIds.length) return Math.max(...returnedIds);
  return clientValue ?? -1;
}

/**
 * When a user turns presence sharing off, their record is reset to a time old enough that every
 * client shows them offline, as if they had left a few minutes before.
 */
export function invisibleModeTime(now: number): number {
  return now - (PRESENCE.offlineThresholdSecs + 120);
}
