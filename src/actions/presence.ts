import type { AppContext } from "../context.js";
import type { Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import {
  PRESENCE,
  invisibleModeTime,
  legacyClientPresence,
  legacyPresence,
  modernPresence,
  planPresenceUpdate,
  presenceLastUpdateId,
  presenceWindow,
  type PresenceStatus,
  type PresenceTimes,
} from "../domain/presence.js";
import { deletePresence, getPresence, listPresence, nextPresenceUpdateId, savePresence } from "../store/presence.js";
import { userIdsWhoCanAccess } from "../store/user_access.js";
import { accessibleUserIds } from "./users.js";

const realmPresenceDisabled = (realm: Realm) => Boolean((realm.props as Record<string, unknown>).presence_disabled);

async function presenceRecipients(app: AppContext, tx: Tx, realm: Realm, user: UserRow): Promise<number[]> {
  if (app.config.presenceLimitedToAccessibleUsers) return userIdsWhoCanAccess(tx, realm, user);
  const rows = await tx.selectFrom("users").select("id").where("realm_id", "=", realm.id).where("is_active", "=", 1).orderBy("id").execute();
  return rows.map((r) => r.id);
}

/** The event telling others the user's presence; each queue picks the format its client reads. */
function presenceEvent(user: UserRow, times: PresenceTimes, serverTimestamp: number) {
  const website = legacyClientPresence(times, Number(user.date_joined));
  return {
    type: "presence",
    user_id: user.id,
    email: user.email,
    server_timestamp: serverTimestamp,
    presence: { website },
    presences: { [String(user.id)]: modernPresence(times, Number(user.date_joined)) },
  };
}

async function recordPresence(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  user: UserRow,
  status: PresenceStatus,
  at: number,
  force: boolean,
): Promise<void> {
  const plan = planPresenceUpdate(await getPresence(tx, user.id), status, at);
  if (plan.changed) await savePresence(tx, realm.id, user.id, plan.next, await nextPresenceUpdateId(tx, realm.id));
  if (!force && (realmPresenceDisabled(realm) || !(plan.created || plan.becameOnline))) return;
  const recipients = await presenceRecipients(app, tx, realm, user);
  // Beyond a size these announcements cost more than they help; clients still poll.
  if (!force && recipients.length > PRESENCE.userLimitForEvents) return;
  events.send({ realmId: realm.id, userIds: recipients, event: presenceEvent(user, plan.next, app.clock.now()) });
}

/** A client's presence report. Users who turned presence sharing off are not recorded at all. */
export async function doUpdateUserPresence(app: AppContext, realm: Realm, user: UserRow, status: PresenceStatus): Promise<void> {
  if (user.presence_enabled !== 1) return;
  await runAction(app, (tx, events) => recordPresence(app, tx, events, realm, user, status, Math.floor(app.clock.now()), false));
}

/**
 * Turning presence sharing (the `presence_enabled` setting) on or off. Off resets the record so
 * that the user looks offline since a few minutes ago; on marks them active now. Either way
 * everyone hears at once, and the user's own clients get the setting change.
 */
export async function doSetPresenceEnabled(app: AppContext, realm: Realm, user: UserRow, enabled: boolean): Promise<void> {
  await runAction(app, (tx, events) => setPresenceEnabledInTx(app, tx, events, realm, user, enabled));
}

export async function setPresenceEnabledInTx(app: AppContext, tx: Tx, events: PendingEvents, realm: Realm, user: UserRow, enabled: boolean): Promise<void> {
  await tx.updateTable("users").set({ presence_enabled: enabled ? 1 : 0 }).where("id", "=", user.id).execute();
  const now = Math.floor(app.clock.now());
  if (!enabled) await deletePresence(tx, user.id);
  const status: PresenceStatus = enabled ? "active" : "idle";
  await recordPresence(app, tx, events, realm, user, status, enabled ? now : invisibleModeTime(now), true);
  events.send({
    realmId: realm.id,
    userIds: [user.id],
    event: { type: "user_settings", op: "update", property: "presence_enabled", value: enabled },
  });
  events.send({
    realmId: realm.id,
    userIds: [user.id],
    event: { type: "update_global_notifications", notification_name: "presence_enabled", setting: enabled },
  });
}

export interface PresenceQuery {
  /** Modern format (keyed by user id) instead of legacy (keyed by email). */
  modern: boolean;
  lastUpdateId?: number;
  historyLimitDays?: number;
}

export interface PresenceResponse {
  presences: Record<string, unknown>;
  server_timestamp: number;
  presence_last_update_id: number;
}

/** The organization's presence as `viewer` may see it. */
export async function fetchPresence(app: AppContext, realm: Realm, viewer: UserRow, q: PresenceQuery): Promise<PresenceResponse> {
  const serverTimestamp = app.clock.now();
  if (realmPresenceDisabled(realm)) return { presences: {}, server_timestamp: serverTimestamp, presence_last_update_id: -1 };
  let records = await listPresence(app.db, realm.id, presenceWindow(q.lastUpdateId, q.historyLimitDays, serverTimestamp));
  const accessible = app.config.presenceLimitedToAccessibleUsers ? await accessibleUserIds(app, { realm, user: viewer }) : undefined;
  if (accessible) records = records.filter((r) => accessible.has(r.userId));
  const presences: Record<string, unknown> = {};
  for (const r of records) {
    if (q.modern) presences[String(r.userId)] = modernPresence(r, r.dateJoined);
    else presences[r.email] = legacyPresence(r, r.dateJoined);
  }
  return {
    presences,
    server_timestamp: serverTimestamp,
    presence_last_update_id: presenceLastUpdateId(
      records.map((r) => r.lastUpdateId),
      q.lastUpdateId,
    ),
  };
}
