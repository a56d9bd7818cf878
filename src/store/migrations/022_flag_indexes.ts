import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Unread and starred rows are a sliver of a user's messages, found on every POST /register:
 * partial indexes, as Zulip has, reach them without reading the user's whole history. The
 * conditions are the ones `isUnread` and `isStarred` write, with literal bits.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`CREATE INDEX user_messages_unread ON user_messages (user_id, message_id) WHERE (flags & 1) = 0`.execute(db);
  await sql`CREATE INDEX user_messages_starred ON user_messages (user_id, message_id) WHERE (flags & 2) <> 0`.execute(db);
}
