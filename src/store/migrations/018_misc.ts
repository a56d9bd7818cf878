import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Personal navigation views, and reminders kept with scheduled messages as Zulip keeps them. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("navigation_views"), dialect)
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("fragment", "text", (c) => c.notNull())
    .addColumn("is_pinned", "integer", (c) => c.notNull())
    .addColumn("name", "text")
    .execute();
  await db.schema.createIndex("navigation_views_user_fragment").on("navigation_views").columns(["user_id", "fragment"]).unique().execute();

  // 0: a message sent later; 1: a reminder about `reminder_target_message_id`, sent by Notification Bot.
  await db.schema.alterTable("scheduled_messages").addColumn("delivery_type", "integer", (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable("scheduled_messages").addColumn("reminder_target_message_id", "integer").execute();
  await db.schema.alterTable("scheduled_messages").addColumn("reminder_note", "text").execute();
}
