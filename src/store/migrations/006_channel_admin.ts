import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";

/** Message editing keeps each message's edit history (JSON, newest first), as Zulip does. */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema.alterTable("messages").addColumn("edit_history", "text").execute();
}
