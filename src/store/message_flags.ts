/** Per-user message flags: reading and changing the bitmask in `user_messages.flags`. */
import { sql, type SqlBool } from "kysely";
import type { Executor } from "./schema.js";
import { isStorableId } from "./ids.js";
import { FLAG_BITS } from "../domain/message_flags.js";
import type { UnreadRow } from "../domain/unreads.js";
import { preparedRead } from "./prepared.js";

/**
 * Conditions on one flag with the bit written into the statement, not bound: only then can
 * SQLite and PostgreSQL use the partial indexes on unread, starred (migration 022) and direct
 * message rows (migration 025).
 */
export const isUnread = (column: "flags" | "user_messages.flags" = "user_messages.flags") =>
  sql<SqlBool>`(${sql.ref(column)} & ${sql.lit(FLAG_BITS.read)}) = 0`;
export const isStarred = (column: "flags" | "user_messages.flags" = "user_messages.flags") =>
  sql<SqlBool>`(${sql.ref(column)} & ${sql.lit(FLAG_BITS.starred)}) <> 0`;
export const isPrivate = (column: "flags" | "user_messages.flags" = "user_messages.flags") =>
  sql<SqlBool>`(${sql.ref(column)} & ${sql.lit(FLAG_BITS.is_private)}) <> 0`;

/** Bounds the number of bound parameters per statement, well under SQLite's and PostgreSQL's limits. */
const ID_BATCH = 1000;

async function inBatches<T>(ids: readonly number[], run: (batch: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  const storable = ids.filter(isStorableId);
  for (let i = 0; i < storable.length; i += ID_BATCH) out.push(...(await run(storable.slice(i, i + ID_BATCH))));
  return out;
}

/** The user's flags for those of these messages they have a row for. */
export async function flagsOf(db: Executor, userId: number, ids: readonly number[]): Promise<Map<number, number>> {
  const rows = await inBatches(ids, (batch) =>
    db.selectFrom("user_messages").select(["message_id", "flags"]).where("user_id", "=", userId).where("message_id", "in", batch).execute(),
  );
  return new Map(rows.map((r) => [r.message_id, r.flags]));
}

/** Channel messages among these ids, in this organization, with their channel. */
export async function channelOfMessages(db: Executor, realmId: number, ids: readonly number[]): Promise<Map<number, number>> {
  const rows = await inBatches(ids, (batch) =>
    db
      .selectFrom("messages")
      .select(["id", "stream_id"])
      .where("realm_id", "=", realmId)
      .where("id", "in", batch)
      .where("stream_id", "is not", null)
      .execute(),
  );
  return new Map(rows.map((r) => [r.id, r.stream_id!]));
}

export async function setFlagBit(db: Executor, userId: number, ids: readonly number[], bit: number, on: boolean): Promise<void> {
  await inBatches(ids, async (batch) => {
    await db
      .updateTable("user_messages")
      .set({ flags: on ? sql<number>`flags | ${bit}` : sql<number>`flags & ${~bit}` })
      .where("user_id", "=", userId)
      .where("message_id", "in", batch)
      .execute();
    return [];
  });
}

export async function insertUserMessages(db: Executor, userId: number, ids: readonly number[], flags: number): Promise<void> {
  await inBatches(ids, async (batch) => {
    await db.insertInto("user_messages").values(batch.map((message_id) => ({ user_id: userId, message_id, flags }))).execute();
    return [];
  });
}

/** The user's unread messages in a channel (or one topic of it, any case), oldest first. */
export async function unreadIdsInChannel(db: Executor, userId: number, streamId: number, topic: string | null): Promise<number[]> {
  let q = db
    .selectFrom("user_messages")
    .innerJoin("messages", "messages.id", "user_messages.message_id")
    .select("messages.id")
    .where("user_messages.user_id", "=", userId)
    .where("messages.stream_id", "=", streamId)
    .where(isUnread());
  if (topic !== null) q = q.where(sql<string>`lower(messages.topic)`, "=", topic.toLowerCase());
  return (await q.orderBy("messages.id").execute()).map((r) => r.id);
}

/** Whether the user received any message in this topic of the channel. */
export async function receivedInTopic(db: Executor, userId: number, streamId: number, topic: string): Promise<boolean> {
  const row = await db
    .selectFrom("user_messages")
    .innerJoin("messages", "messages.id", "user_messages.message_id")
    .select("messages.id")
    .where("user_messages.user_id", "=", userId)
    .where("messages.stream_id", "=", streamId)
    .where(sql<string>`lower(messages.topic)`, "=", topic.toLowerCase())
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Marks up to `limit` of the user's unread messages read, newest first; returns how many. */
export async function markUnreadBatchRead(db: Executor, userId: number, limit: number): Promise<number> {
  const batch = await db
    .selectFrom("user_messages")
    .select("message_id")
    .where("user_id", "=", userId)
    .where(isUnread("flags"))
    .orderBy("message_id", "desc")
    .limit(limit)
    .execute();
  await setFlagBit(db, userId, batch.map((r) => r.message_id), FLAG_BITS.read, true);
  return batch.length;
}

/** These messages as unread-summary rows, for those the user has unread. */
export async function unreadRowsFor(db: Executor, userId: number, ids: readonly number[]): Promise<UnreadRow[]> {
  const rows = await inBatches(ids, (batch) =>
    db
      .selectFrom("user_messages")
      .innerJoin("messages", "messages.id", "user_messages.message_id")
      .select(["messages.id", "messages.stream_id", "messages.topic", "messages.dm_key", "user_messages.flags"])
      .where("user_messages.user_id", "=", userId)
      .where("messages.id", "in", batch)
      .where(isUnread())
      .execute(),
  );
  return rows
    .sort((a, b) => b.id - a.id)
    .map((r) => ({ messageId: r.id, streamId: r.stream_id, topic: r.topic, dmKey: r.dm_key, flags: r.flags }));
}

const starredRows = preparedRead((db, userId: number) =>
  db.selectFrom("user_messages").select("message_id").where("user_id", "=", userId).where(isStarred("flags")).orderBy("message_id"),
);

export async function starredMessageIds(db: Executor, userId: number): Promise<number[]> {
  return (await starredRows(db, userId)).map((r) => r.message_id);
}

/**
 * Who read a message, for read receipts: active users with the message read, leaving out the
 * sender. Whether each shares receipts is in their settings, so the caller filters on that.
 */
export async function readersOf(db: Executor, messageId: number, senderId: number) {
  return db
    .selectFrom("user_messages")
    .innerJoin("users", "users.id", "user_messages.user_id")
    .selectAll("users")
    .where("user_messages.message_id", "=", messageId)
    .where("users.is_active", "=", 1)
    .where("users.id", "!=", senderId)
    .where(sql<number>`(user_messages.flags & ${sql.lit(FLAG_BITS.read)})`, "=", FLAG_BITS.read)
    .orderBy("users.id")
    .execute();
}
