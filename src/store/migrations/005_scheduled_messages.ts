import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Messages a user has scheduled to be sent later, kept (marked delivered) once sent. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  // The recipient is kept the way messages keep theirs: a channel and topic, or the sorted ids
  // of every participant of a direct-message conversation, the sender included.
  await withId(db.schema.createTable("scheduled_messages"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("sender_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", "integer", (c) => c.references("streams.id"))
    .addColumn("dm_key", "text")
    .addColumn("topic", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("rendered_content", "text", (c) => c.notNull())
    .addColumn("client", "text", (c) => c.notNull())
    .addColumn("scheduled_timestamp", "bigint", (c) => c.notNull())
    .addColumn("read_by_sender", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("delivered", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("delivered_message_id", "integer")
    .addColumn("failed", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("failure_message", "text")
    .execute();
  await db.schema
    .createIndex("scheduled_messages_sender")
    .on("scheduled_messages")
    .columns(["sender_id", "delivered", "scheduled_timestamp"])
    .execute();
  // What the delivery worker looks for: the earliest message not yet sent or failed.
  await db.schema
    .createIndex("scheduled_messages_due")
    .on("scheduled_messages")
    .columns(["delivered", "failed", "scheduled_timestamp"])
    .execute();
}
