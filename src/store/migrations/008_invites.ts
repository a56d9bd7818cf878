import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Email invitations, reusable invitation links, and the count of invitation emails sent. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("multiuse_invites"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("referred_by_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("invited_as", "integer", (c) => c.notNull())
    .addColumn("include_realm_default_subscriptions", "integer", (c) => c.notNull())
    .addColumn("welcome_message_custom_text", "text")
    .addColumn("stream_ids", "text", (c) => c.notNull())
    .addColumn("group_ids", "text", (c) => c.notNull())
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .addColumn("expiry_date", "bigint")
    .addColumn("status", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("confirmation_key", "text", (c) => c.notNull().unique())
    .execute();
  await db.schema.createIndex("multiuse_invites_realm").on("multiuse_invites").columns(["realm_id", "status"]).execute();

  await withId(db.schema.createTable("email_invites"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("referred_by_id", "integer", (c) => c.references("users.id"))
    .addColumn("multiuse_invite_id", "integer", (c) => c.references("multiuse_invites.id"))
    .addColumn("invited_as", "integer", (c) => c.notNull())
    .addColumn("include_realm_default_subscriptions", "integer", (c) => c.notNull())
    .addColumn("notify_referrer_on_join", "integer", (c) => c.notNull())
    .addColumn("welcome_message_custom_text", "text")
    .addColumn("stream_ids", "text", (c) => c.notNull())
    .addColumn("group_ids", "text", (c) => c.notNull())
    .addColumn("invited_at", "bigint", (c) => c.notNull())
    .addColumn("expiry_date", "bigint")
    .addColumn("status", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_user_id", "integer", (c) => c.references("users.id"))
    .addColumn("confirmation_key", "text", (c) => c.notNull().unique())
    .execute();
  await db.schema.createIndex("email_invites_realm").on("email_invites").columns(["realm_id", "status"]).execute();

  await withId(db.schema.createTable("invite_emails_sent"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("sent_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("invite_emails_sent_realm").on("invite_emails_sent").columns(["realm_id", "sent_at"]).execute();
}
