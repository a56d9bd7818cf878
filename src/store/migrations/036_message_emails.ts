import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/**
 * Message notification emails waiting for their batch (Zulip's ScheduledMessageNotificationEmail)
 * and when each user was last sent a digest. A pending row names a message without a foreign key:
 * deleting the message must not wait on it; the batch skips messages that are gone.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("message_email_notifications"), dialect)
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("message_id", "integer", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("scheduled_at", "double precision", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("message_email_notifications_due").on("message_email_notifications").columns(["scheduled_at", "user_id"]).execute();
  await db.schema.createIndex("message_email_notifications_user").on("message_email_notifications").columns(["user_id", "message_id"]).execute();
  await db.schema
    .createTable("digest_sends")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id"))
    .addColumn("sent_at", "double precision", (c) => c.notNull())
    .execute();
}
