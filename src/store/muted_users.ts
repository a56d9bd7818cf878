import { sql } from "kysely";
import type { Executor } from "./schema.js";
import { isUnread } from "./message_flags.js";
import { FLAG_BITS } from "../domain/message_flags.js";
import { preparedRead } from "./prepared.js";

export interface MutedUserEntry {
  id: number;
  timestamp: number;
}

/** Whom the user has muted, oldest first, as the API lists them. */
const mutedUserRows = preparedRead((db, userId: number) =>
  db.selectFrom("muted_users").select(["muted_user_id", "date_muted"]).where("user_id", "=", userId).orderBy("date_muted").orderBy("muted_user_id"),
);

export async function mutedUsersOf(db: Executor, userId: number): Promise<MutedUserEntry[]> {
  const rows = await mutedUserRows(db, userId);
  return rows.map((r) => ({ id: r.muted_user_id, timestamp: Number(r.date_muted) }));
}

export async function isMuted(db: Executor, userId: number, mutedUserId: number): Promise<boolean> {
  const row = await db
    .selectFrom("muted_users")
    .select("user_id")
    .where("user_id", "=", userId)
    .where("muted_user_id", "=", mutedUserId)
    .executeTakeFirst();
  return row !== undefined;
}

export async function addMute(db: Executor, userId: number, mutedUserId: number, dateMuted: number): Promise<void> {
  await db.insertInto("muted_users").values({ user_id: userId, muted_user_id: mutedUserId, date_muted: dateMuted }).execute();
}

export async function removeMute(db: Executor, userId: number, mutedUserId: number): Promise<void> {
  await db.deleteFrom("muted_users").where("user_id", "=", userId).where("muted_user_id", "=", mutedUserId).execute();
}

/** The users who muted `senderId`: their copies of its new messages start out read. */
export async function mutingUserIds(db: Executor, senderId: number): Promise<number[]> {
  const rows = await db.selectFrom("muted_users").select("user_id").where("muted_user_id", "=", senderId).execute();
  return rows.map((r) => r.user_id);
}

/** Marks the user's unread messages from `senderId` as read; returns their ids, oldest first. */
export async function markReadFromSender(db: Executor, userId: number, senderId: number): Promise<number[]> {
  const rows = await db
    .selectFrom("user_messages")
    .innerJoin("messages", "messages.id", "user_messages.message_id")
    .select("user_messages.message_id")
    .where("user_messages.user_id", "=", userId)
    .where("messages.sender_id", "=", senderId)
    .where(isUnread())
    .orderBy("user_messages.message_id")
    .execute();
  const ids = rows.map((r) => r.message_id);
  // Batched so no statement outgrows SQLite's or PostgreSQL's parameter limits.
  for (let i = 0; i < ids.length; i += 1000) {
    await db
      .updateTable("user_messages")
      .set({ flags: sql<number>`flags | ${FLAG_BITS.read}` })
      .where("user_id", "=", userId)
      .where("message_id", "in", ids.slice(i, i + 1000))
      .execute();
  }
  return ids;
}
