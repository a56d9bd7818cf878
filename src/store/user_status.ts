import type { Executor } from "./schema.js";
import { preparedRead } from "./prepared.js";

export interface StatusChange {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: string;
}

/** A status row with its owner's presence setting, from which `away` is derived. */
export interface StatusRow {
  user_id: number;
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  presence_enabled: number;
}

const columns = [
  "user_status.user_id",
  "user_status.status_text",
  "user_status.emoji_name",
  "user_status.emoji_code",
  "user_status.reaction_type",
  "users.presence_enabled",
] as const;

/** Changes only the given fields, creating the row (with defaults for the rest) if need be. */
export async function upsertUserStatus(db: Executor, userId: number, change: StatusChange, timestamp: number): Promise<void> {
  const existing = await db.selectFrom("user_status").select("user_id").where("user_id", "=", userId).executeTakeFirst();
  if (existing) {
    await db.updateTable("user_status").set({ ...change, timestamp }).where("user_id", "=", userId).execute();
  } else {
    await db.insertInto("user_status").values({ user_id: userId, ...change, timestamp }).execute();
  }
}

export async function getUserStatus(db: Executor, userId: number): Promise<StatusRow | undefined> {
  return db.selectFrom("user_status").innerJoin("users", "users.id", "user_status.user_id").select(columns).where("user_status.user_id", "=", userId).executeTakeFirst();
}

/** The statuses of the organization's active users that differ from the defaults in any way. */
export const listRealmStatuses: (db: Executor, realmId: number) => Promise<StatusRow[]> = preparedRead((db, realmId: number) =>
  // Few users set a status: SQLite is told to walk user_status and look each user up (a cross
  // join keeps its tables in the order given), not to walk every user of the organization.
  db
    .selectFrom("user_status")
    .crossJoin("users")
    .select(columns)
    .whereRef("users.id", "=", "user_status.user_id")
    .where("users.realm_id", "=", realmId)
    .where("users.is_active", "=", 1)
    .where((eb) => eb.or([eb("user_status.status_text", "!=", ""), eb("user_status.emoji_name", "!=", ""), eb("users.presence_enabled", "=", 0)]))
    .orderBy("user_status.user_id"),
);
