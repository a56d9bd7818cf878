import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Users each user has muted, and the email-gateway addresses handed out for channels. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("muted_users")
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("muted_user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("date_muted", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("muted_users_pk", ["user_id", "muted_user_id"])
    .execute();
  // Sending a message asks who muted its sender.
  await db.schema.createIndex("muted_users_muted_user").on("muted_users").column("muted_user_id").execute();

  // One address per channel and sender (the user who asked for it is recorded as its creator).
  await withId(db.schema.createTable("channel_email_addresses"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addColumn("creator_id", "integer", (c) => c.references("users.id"))
    .addColumn("sender_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("email_token", "text", (c) => c.notNull().unique())
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("channel_email_addresses_stream_sender_creator")
    .on("channel_email_addresses")
    .unique()
    .columns(["stream_id", "sender_id", "creator_id"])
    .execute();
}
