import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/**
 * Reply addresses of notification emails (Zulip's MissedMessageEmailAddress): a token naming the
 * user the email went to and the message it was about. The address goes with its message.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("email_reply_addresses"), dialect)
    .addColumn("email_token", "text", (c) => c.notNull().unique())
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .addColumn("times_used", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("email_reply_addresses_message").on("email_reply_addresses").column("message_id").execute();
}
