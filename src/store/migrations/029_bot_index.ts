import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * An organization's bots, found without walking its users: every POST /register lists them (an
 * administrator all of them, anyone else their own), which read all 10,000 users of a large
 * organization (1.6 ms on SQLite) to find a handful.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await sql`CREATE INDEX users_realm_bots ON users (realm_id, id) WHERE is_bot = 1`.execute(db);
}
