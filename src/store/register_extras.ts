/** Queries behind register keys that have no feature module of their own. */
import { sql, type SqlBool } from "kysely";
import type { Executor } from "./schema.js";
import type { UserRow } from "./users.js";
import { isPrivate } from "./message_flags.js";
import { copiesWithMessages } from "./messages.js";
import { preparedRead, preparedReadWith } from "./prepared.js";

/** How many of a user's newest direct messages Zulip scans for recent conversations. */
export const RECENT_DM_SCAN_LIMIT = 1000;

const recentConversationRows = preparedRead((db, userId: number) => {
  const recent = copiesWithMessages(db)
    .select(["messages.id", "messages.dm_key"])
    .where("user_messages.user_id", "=", userId)
    .where(isPrivate())
    // user_messages' order: walked backwards from the newest, no sort.
    .orderBy("user_messages.message_id", "desc")
    .limit(RECENT_DM_SCAN_LIMIT)
    .as("recent");
  return db
    .selectFrom(recent)
    .select((eb) => ["recent.dm_key", eb.fn.max("recent.id").as("max_id")])
    .groupBy("recent.dm_key");
});

/** The newest message id of each direct-message conversation among the user's newest direct messages. */
export async function recentDirectMessageConversations(db: Executor, userId: number): Promise<{ dm_key: string; max_id: number }[]> {
  const rows = await recentConversationRows(db, userId);
  return rows.map((r) => ({ dm_key: r.dm_key!, max_id: Number(r.max_id) }));
}

/** The organization's own bots (not the server's system bots), optionally only those one user owns. */
export async function realmBots(db: Executor, realmId: number, ownerId?: number): Promise<UserRow[]> {
  return botRows(db, [ownerId === undefined ? [] : [sql<SqlBool>`${sql.ref("bot_owner_id")} = ${ownerId}`]], realmId);
}

const botRows = preparedReadWith((db, [only], realmId: number) => {
  let q = db.selectFrom("users").selectAll().where("realm_id", "=", realmId).where("is_bot", "=", 1).where("is_system_bot", "=", 0);
  for (const c of only) q = q.where(c);
  return q.orderBy("id");
});
