import { sql, type Expression, type SqlBool } from "kysely";
import type { Executor } from "./schema.js";
import { preparedReadWith } from "./prepared.js";
import type { PresenceTimes, PresenceWindow } from "../domain/presence.js";

export async function getPresence(db: Executor, userId: number): Promise<(PresenceTimes & { lastUpdateId: number }) | undefined> {
  const row = await db.selectFrom("user_presence").selectAll().where("user_id", "=", userId).executeTakeFirst();
  return row && { lastActive: row.last_active_time, lastConnected: row.last_connected_time, lastUpdateId: row.last_update_id };
}

/** Takes the organization's next presence update id (1, 2, 3, ...). */
export async function nextPresenceUpdateId(db: Executor, realmId: number): Promise<number> {
  const row = await db
    .insertInto("presence_sequences")
    .values({ realm_id: realmId, last_update_id: 1 })
    .onConflict((oc) => oc.column("realm_id").doUpdateSet({ last_update_id: sql<number>`presence_sequences.last_update_id + 1` }))
    .returning("last_update_id")
    .executeTakeFirstOrThrow();
  return Number(row.last_update_id);
}

export async function savePresence(db: Executor, realmId: number, userId: number, times: PresenceTimes, updateId: number): Promise<void> {
  const values = { last_connected_time: times.lastConnected, last_active_time: times.lastActive, last_update_id: updateId };
  await db
    .insertInto("user_presence")
    .values({ user_id: userId, realm_id: realmId, ...values })
    .onConflict((oc) => oc.column("user_id").doUpdateSet(values))
    .execute();
}

export async function deletePresence(db: Executor, userId: number): Promise<void> {
  await db.deleteFrom("user_presence").where("user_id", "=", userId).execute();
}

export interface PresenceRecord extends PresenceTimes {
  userId: number;
  /** The user's API email, the key of the legacy format. */
  email: string;
  dateJoined: number;
  lastUpdateId: number;
}

const presenceRows = preparedReadWith((db, [within], realmId: number) => {
  let query = db
    .selectFrom("user_presence")
    .innerJoin("users", "users.id", "user_presence.user_id")
    .select([
      "user_presence.user_id",
      "user_presence.last_active_time",
      "user_presence.last_connected_time",
      "user_presence.last_update_id",
      "users.email",
      "users.date_joined",
    ])
    .where("user_presence.realm_id", "=", realmId)
    .where("users.is_active", "=", 1)
    .where("users.is_bot", "=", 0);
  for (const c of within) query = query.where(c);
  return query.orderBy("user_presence.user_id");
});

/** The presence records of an organization's active human users within a window. */
export async function listPresence(db: Executor, realmId: number, window: PresenceWindow): Promise<PresenceRecord[]> {
  if (window.none) return [];
  const within: Expression<SqlBool>[] = [];
  if (window.afterUpdateId !== undefined) within.push(sql<SqlBool>`${sql.ref("user_presence.last_update_id")} > ${window.afterUpdateId}`);
  if (window.connectedSince !== undefined) {
    within.push(sql<SqlBool>`${sql.ref("user_presence.last_connected_time")} >= ${Math.floor(window.connectedSince)}`);
  }
  const rows = await presenceRows(db, [within], realmId);
  return rows.map((r) => ({
    userId: r.user_id,
    email: r.email,
    dateJoined: Number(r.date_joined),
    lastActive: r.last_active_time === null ? null : Number(r.last_active_time),
    lastConnected: r.last_connected_time === null ? null : Number(r.last_connected_time),
    lastUpdateId: r.last_update_id,
  }));
}
