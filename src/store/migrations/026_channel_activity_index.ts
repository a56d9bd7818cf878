import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Channel traffic (stream_weekly_traffic, is_recently_active) asks each channel for its latest
 * message time and how many messages it had in the last four weeks. With messages indexed by
 * channel and time, that is a lookup and a count of recent entries per channel, instead of a
 * pass over every message of the organization (a second, at a million messages).
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`CREATE INDEX messages_stream_date ON messages (stream_id, date_sent)`.execute(db);
}
