import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * A user's direct messages are a sliver of what they received, read on every POST /register
 * (recent conversations) and for a guest's list of people: a partial index on the rows flagged
 * is_private (bit 512) reaches them without walking the user's whole history, as Zulip's
 * is_private partial index does. Rows are flagged when sent; older rows are flagged here first.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`UPDATE user_messages SET flags = flags | 512
    WHERE (flags & 512) = 0 AND message_id IN (SELECT id FROM messages WHERE dm_key IS NOT NULL)`.execute(db);
  await sql`CREATE INDEX user_messages_private ON user_messages (user_id, message_id) WHERE (flags & 512) <> 0`.execute(db);
}
