import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Signed-in browser sessions of the web client; only a hash of each session key is kept. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("web_sessions"), dialect)
    .addColumn("key_hash", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "double precision", (c) => c.notNull())
    .addColumn("expires_at", "double precision", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("web_sessions_user").on("web_sessions").column("user_id").execute();
}
