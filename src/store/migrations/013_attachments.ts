import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Uploaded files and the messages that link them (Zulip's Attachment and its messages). */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("attachments"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("owner_id", "integer", (c) => c.notNull().references("users.id"))
    // `<realm_id>/<xx>/<random>/<sanitized name>`: the URL path after /user_uploads/ and the storage key.
    .addColumn("path_id", "text", (c) => c.notNull().unique())
    // The name as uploaded, shown to users and in Content-Disposition.
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("create_time", "bigint", (c) => c.notNull())
    // Whether some linking message is in a public (resp. web-public) channel.
    .addColumn("is_realm_public", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("is_web_public", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("attachments_owner").on("attachments").columns(["owner_id"]).execute();
  await db.schema.createIndex("attachments_realm").on("attachments").columns(["realm_id"]).execute();

  await db.schema
    .createTable("attachment_messages")
    .addColumn("attachment_id", "integer", (c) => c.notNull().references("attachments.id").onDelete("cascade"))
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("attachment_messages_pk", ["attachment_id", "message_id"])
    .execute();
  await db.schema.createIndex("attachment_messages_message").on("attachment_messages").columns(["message_id"]).execute();
}
