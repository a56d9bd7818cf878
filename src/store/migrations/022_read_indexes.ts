import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Indexes for the reads every client makes, as Zulip has them:
 * - unread and starred rows are a sliver of a user's messages, found on every POST /register:
 *   partial indexes reach them without reading the user's whole history (the conditions are the
 *   ones `isUnread` and `isStarred` write, with literal bits);
 * - a channel's or a topic's newest messages (topics compare without case) are read from the
 *   end of an index instead of sorting the whole channel.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`CREATE INDEX user_messages_unread ON user_messages (user_id, message_id) WHERE (flags & 1) = 0`.execute(db);
  await sql`CREATE INDEX user_messages_starred ON user_messages (user_id, message_id) WHERE (flags & 2) <> 0`.execute(db);
  await sql`CREATE INDEX messages_stream_id ON messages (stream_id, id)`.execute(db);
  await sql`CREATE INDEX messages_stream_lower_topic ON messages (stream_id, lower(topic), id)`.execute(db);
}
