import { sql, type Selectable } from "kysely";
import type { Executor, MessageTable } from "./schema.js";
import { isStorableId } from "./ids.js";
import { FLAG_BITS } from "../domain/message_flags.js";
import { dialectOf, sqliteConnectionOf } from "./db.js";

export type MessageRow = Selectable<MessageTable>;

export const RECIPIENT_TYPE = { personal: 1, stream: 2, directMessageGroup: 3 } as const;

export async function personalRecipientId(db: Executor, userId: number): Promise<number> {
  const row = await db
    .selectFrom("recipients")
    .select("id")
    .where("type", "=", RECIPIENT_TYPE.personal)
    .where("type_id", "=", userId)
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The recipient of a group direct message among these users, created on first use. */
export async function directMessageGroupRecipientId(db: Executor, realmId: number, dmKey: string): Promise<number> {
  let group = await db
    .selectFrom("direct_message_groups")
    .select("id")
    .where("realm_id", "=", realmId)
    .where("user_ids", "=", dmKey)
    .executeTakeFirst();
  if (!group) {
    group = await db
      .insertInto("direct_message_groups")
      .values({ realm_id: realmId, user_ids: dmKey })
      .returning("id")
      .executeTakeFirstOrThrow();
    return (
      await db
        .insertInto("recipients")
        .values({ type: RECIPIENT_TYPE.directMessageGroup, type_id: group.id })
        .returning("id")
        .executeTakeFirstOrThrow()
    ).id;
  }
  const recipient = await db
    .selectFrom("recipients")
    .select("id")
    .where("type", "=", RECIPIENT_TYPE.directMessageGroup)
    .where("type_id", "=", group.id)
    .executeTakeFirstOrThrow();
  return recipient.id;
}

/**
 * A user's copies of messages (user_messages) with each message's id, channel, topic and
 * conversation, for reading in user_messages' order. PostgreSQL joined all of a million messages
 * by hash to a user's few thousand unread or direct-message rows (200 ms and 50 ms of POST
 * /register); a lateral subquery it cannot flatten (OFFSET 0) makes it look up each one, as
 * SQLite does with the plain join.
 */
export function copiesWithMessages(db: Executor) {
  const columns = ["messages.id", "messages.stream_id", "messages.topic", "messages.dm_key"] as const;
  const copies = db.selectFrom("user_messages");
  return dialectOf(db) === "postgres"
    ? copies.innerJoinLateral(
        (eb) => eb.selectFrom("messages").select(columns).whereRef("messages.id", "=", "user_messages.message_id").offset(0).as("messages"),
        (join) => join.onTrue(),
      )
    : copies.innerJoin(db.selectFrom("messages").select(columns).as("messages"), "messages.id", "user_messages.message_id");
}

export async function getMessage(db: Executor, realmId: number, id: number): Promise<MessageRow | undefined> {
  if (!isStorableId(id)) return undefined;
  return db.selectFrom("messages").selectAll().where("realm_id", "=", realmId).where("id", "=", id).executeTakeFirst();
}

export async function userMessageFlags(db: Executor, userId: number, messageIds: readonly number[]): Promise<Map<number, number>> {
  if (!messageIds.length) return new Map();
  const rows = await db
    .selectFrom("user_messages")
    .select(["message_id", "flags"])
    .where("user_id", "=", userId)
    .where("message_id", "in", [...messageIds])
    .execute();
  return new Map(rows.map((r) => [r.message_id, r.flags]));
}

/** The sorted, comma-joined participant ids that identify a direct-message conversation. */
export function dmKeyFor(userIds: Iterable<number>): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(",");
}

export function dmKeyUserIds(dmKey: string): number[] {
  return dmKey.split(",").map(Number);
}

/** Users who have sent a message to the topic: those a topic wildcard mention notifies. */
export async function topicParticipantIds(db: Executor, streamId: number, topic: string): Promise<Set<number>> {
  const rows = await db
    .selectFrom("messages")
    .select("sender_id")
    .distinct()
    .where("stream_id", "=", streamId)
    .where(sql<string>`lower(topic)`, "=", topic.toLowerCase())
    .execute();
  return new Set(rows.map((r) => r.sender_id));
}

/**
 * Who hears about a change to a message (a reaction, a deletion): everyone with a copy, and
 * the subscribers of a channel whose history they can read anyway.
 */
export async function messageAudience(db: Executor, message: Pick<MessageRow, "id" | "stream_id">): Promise<Set<number>> {
  return messagesAudience(db, [message.id], message.stream_id);
}

/** The same for several messages of one conversation (a channel, or direct messages when null). */
export async function messagesAudience(db: Executor, messageIds: readonly number[], streamId: number | null): Promise<Set<number>> {
  const holders = messageIds.length
    ? await db.selectFrom("user_messages").select("user_id").distinct().where("message_id", "in", messageIds).execute()
    : [];
  const audience = new Set(holders.map((r) => r.user_id));
  if (streamId === null) return audience;
  const subscribers = await db
    .selectFrom("subscriptions")
    .innerJoin("streams", "streams.id", "subscriptions.stream_id")
    .innerJoin("users", "users.id", "subscriptions.user_id")
    .select("subscriptions.user_id")
    .where("subscriptions.stream_id", "=", streamId)
    .where("streams.history_public_to_subscribers", "=", 1)
    .where("subscriptions.active", "=", 1)
    .where("users.is_active", "=", 1)
    .execute();
  for (const s of subscribers) audience.add(s.user_id);
  return audience;
}

/**
 * Stores every recipient's copy of a new message, with its flags. A message to a channel has as
 * many copies as subscribers, thousands in a large organization: more than one statement may
 * bind as values (32,766 on SQLite, 65,535 on PostgreSQL), and building such a statement cost
 * more than running it. On SQLite one prepared single-row insert runs once per copy (half the
 * cost of a many-row statement); on PostgreSQL one statement takes them all as two arrays.
 */
export async function insertMessageCopies(tx: Executor, messageId: number, flagsByUser: ReadonlyMap<number, number>): Promise<void> {
  if (!flagsByUser.size) return;
  const sqlite = sqliteConnectionOf(tx);
  if (sqlite) {
    const insert = sqlite.prepare("INSERT INTO user_messages (user_id, message_id, flags) VALUES (?, ?, ?)");
    for (const [userId, flags] of flagsByUser) insert.run([userId, messageId, flags]);
    return;
  }
  await sql`INSERT INTO user_messages (user_id, message_id, flags)
            SELECT copy.user_id, ${messageId}, copy.flags
            FROM unnest(${[...flagsByUser.keys()]}::integer[], ${[...flagsByUser.values()]}::integer[]) AS copy (user_id, flags)`.execute(tx);
}

/** Gives a user who can read a channel message without a copy one, read and historical, as Zulip does before they act on it. */
export async function ensureUserMessage(db: Executor, userId: number, messageId: number): Promise<void> {
  if ((await userMessageFlags(db, userId, [messageId])).has(messageId)) return;
  await db
    .insertInto("user_messages")
    .values({ user_id: userId, message_id: messageId, flags: FLAG_BITS.read | FLAG_BITS.historical })
    .execute();
}
