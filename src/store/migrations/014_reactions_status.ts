import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Emoji reactions on messages, and each user's status (text and emoji). */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("reactions"), dialect)
    // A deleted message takes its reactions with it.
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("emoji_name", "text", (c) => c.notNull())
    .addColumn("emoji_code", "text", (c) => c.notNull())
    .addColumn("reaction_type", "text", (c) => c.notNull())
    .addUniqueConstraint("reactions_user_message_emoji", ["user_id", "message_id", "emoji_code", "reaction_type"])
    .execute();
  await db.schema.createIndex("reactions_message").on("reactions").columns(["message_id", "id"]).execute();

  await db.schema
    .createTable("user_status")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id"))
    .addColumn("status_text", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("emoji_name", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("emoji_code", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("reaction_type", "text", (c) => c.notNull().defaultTo("unicode_emoji"))
    .addColumn("timestamp", "bigint", (c) => c.notNull())
    .execute();
}
