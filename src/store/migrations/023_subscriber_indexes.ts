import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Indexes for listing and counting channels' subscribers in a large organization (POST /register
 * shows every channel the user can see, with its subscriber count):
 * - subscribers come out of the channel index in user order, so a million rows are not sorted;
 * - deactivated users, whose subscriptions do not count, are found without reading every user;
 * - an organization's users are read in id order from an index.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`DROP INDEX subscriptions_stream`.execute(db);
  await sql`CREATE INDEX subscriptions_stream ON subscriptions (stream_id, active, user_id)`.execute(db);
  await sql`CREATE INDEX users_deactivated ON users (realm_id, id) WHERE is_active = 0`.execute(db);
  await sql`CREATE INDEX users_realm_id ON users (realm_id, id)`.execute(db);
}
