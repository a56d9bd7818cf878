import type { Executor } from "./schema.js";
import { idList, preparedRead } from "./prepared.js";

export interface ReactionKey {
  message_id: number;
  user_id: number;
  emoji_code: string;
  reaction_type: string;
}

/** How a reaction appears inside a message (the legacy `user` object is gone at feature level 328). */
export interface MessageReaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

const reactionsOf = preparedRead((db, messageIds: readonly number[]) =>
  db
    .selectFrom("reactions")
    .select(["message_id", "emoji_name", "emoji_code", "reaction_type", "user_id"])
    .where("message_id", "in", idList(db, messageIds))
    .orderBy("id"),
);

/** Every reaction on these messages, oldest first, in one query. */
export async function reactionsByMessage(db: Executor, messageIds: readonly number[]): Promise<Map<number, MessageReaction[]>> {
  const byMessage = new Map<number, MessageReaction[]>();
  if (!messageIds.length) return byMessage;
  const rows = await reactionsOf(db, messageIds);
  for (const { message_id, ...reaction } of rows) {
    const list = byMessage.get(message_id) ?? [];
    list.push(reaction);
    byMessage.set(message_id, list);
  }
  return byMessage;
}

export async function hasReaction(db: Executor, key: ReactionKey): Promise<boolean> {
  const row = await db
    .selectFrom("reactions")
    .select("id")
    .where("message_id", "=", key.message_id)
    .where("user_id", "=", key.user_id)
    .where("emoji_code", "=", key.emoji_code)
    .where("reaction_type", "=", key.reaction_type)
    .executeTakeFirst();
  return row !== undefined;
}

/** The name under which someone already reacted to the message with this emoji, if anyone did. */
export async function existingReactionName(db: Executor, messageId: number, emojiCode: string, reactionType: string): Promise<string | undefined> {
  const row = await db
    .selectFrom("reactions")
    .select("emoji_name")
    .where("message_id", "=", messageId)
    .where("emoji_code", "=", emojiCode)
    .where("reaction_type", "=", reactionType)
    .orderBy("id")
    .executeTakeFirst();
  return row?.emoji_name;
}

export async function insertReaction(db: Executor, key: ReactionKey, emojiName: string): Promise<void> {
  await db.insertInto("reactions").values({ ...key, emoji_name: emojiName }).execute();
}

/** Deletes the reaction and returns the name it had. */
export async function deleteReaction(db: Executor, key: ReactionKey): Promise<string | undefined> {
  const row = await db
    .deleteFrom("reactions")
    .where("message_id", "=", key.message_id)
    .where("user_id", "=", key.user_id)
    .where("emoji_code", "=", key.emoji_code)
    .where("reaction_type", "=", key.reaction_type)
    .returning("emoji_name")
    .executeTakeFirst();
  return row?.emoji_name;
}
