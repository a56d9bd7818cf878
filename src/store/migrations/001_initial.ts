import { type Kysely, type CreateTableBuilder } from "kysely";
import { CHANNEL_GROUP_SETTINGS } from "../schema.js";
import type { Dialect } from "../db.js";

// Migrations describe tables with Kysely's builder so one definition serves both databases;
// only the auto-increment key differs between them.
export function withId<T extends string>(t: CreateTableBuilder<T, never>, dialect: Dialect) {
  return dialect === "postgres"
    ? t.addColumn("id", "serial", (c) => c.primaryKey())
    : t.addColumn("id", "integer", (c) => c.primaryKey().autoIncrement());
}

export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("realms"), dialect)
    .addColumn("string_id", "text", (c) => c.notNull().unique())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .addColumn("deactivated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("props", "text", (c) => c.notNull())
    .addColumn("group_settings", "text", (c) => c.notNull())
    .execute();

  await withId(db.schema.createTable("users"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("delivery_email", "text", (c) => c.notNull())
    .addColumn("full_name", "text", (c) => c.notNull())
    .addColumn("role", "integer", (c) => c.notNull())
    .addColumn("is_active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("is_bot", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("bot_type", "integer")
    .addColumn("bot_owner_id", "integer")
    .addColumn("is_system_bot", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("api_key", "text", (c) => c.notNull().unique())
    .addColumn("password_hash", "text")
    .addColumn("date_joined", "bigint", (c) => c.notNull())
    .addColumn("timezone", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("presence_enabled", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("props", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  await db.schema.createIndex("users_realm_delivery_email").on("users").columns(["realm_id", "delivery_email"]).execute();

  await withId(db.schema.createTable("user_groups"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text")
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("is_system_group", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("date_created", "bigint")
    .addColumn("creator_id", "integer")
    .addColumn("deactivated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("group_settings", "text", (c) => c.notNull().defaultTo("{}"))
    .execute();
  await db.schema.createIndex("user_groups_realm_name").on("user_groups").columns(["realm_id", "name"]).execute();

  await db.schema
    .createTable("user_group_members")
    .addColumn("group_id", "integer", (c) => c.notNull().references("user_groups.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addPrimaryKeyConstraint("user_group_members_pk", ["group_id", "user_id"])
    .execute();
  await db.schema.createIndex("user_group_members_user").on("user_group_members").column("user_id").execute();

  await db.schema
    .createTable("user_group_subgroups")
    .addColumn("group_id", "integer", (c) => c.notNull().references("user_groups.id"))
    .addColumn("subgroup_id", "integer", (c) => c.notNull().references("user_groups.id"))
    .addPrimaryKeyConstraint("user_group_subgroups_pk", ["group_id", "subgroup_id"])
    .execute();

  await withId(db.schema.createTable("recipients"), dialect)
    .addColumn("type", "integer", (c) => c.notNull())
    .addColumn("type_id", "integer", (c) => c.notNull())
    .addUniqueConstraint("recipients_type_type_id", ["type", "type_id"])
    .execute();

  await withId(db.schema.createTable("direct_message_groups"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_ids", "text", (c) => c.notNull())
    .addUniqueConstraint("direct_message_groups_realm_users", ["realm_id", "user_ids"])
    .execute();

  await withId(db.schema.createTable("channel_folders"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("rendered_description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("order", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .addColumn("creator_id", "integer")
    .addColumn("is_archived", "integer", (c) => c.notNull().defaultTo(0))
    .execute();

  let streams = withId(db.schema.createTable("streams"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("rendered_description", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("invite_only", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("is_web_public", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("history_public_to_subscribers", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .addColumn("creator_id", "integer")
    .addColumn("message_retention_days", "integer")
    .addColumn("is_archived", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("folder_id", "integer", (c) => c.references("channel_folders.id"))
    .addColumn("topics_policy", "text", (c) => c.notNull().defaultTo("inherit"))
    .addColumn("recipient_id", "integer")
    .addColumn("first_message_id", "integer");
  for (const setting of CHANNEL_GROUP_SETTINGS) {
    streams = streams.addColumn(setting, "integer", (c) => c.notNull().references("user_groups.id"));
  }
  await streams.execute();
  await db.schema.createIndex("streams_realm_name").on("streams").columns(["realm_id", "name"]).execute();

  await db.schema
    .createTable("default_streams")
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addPrimaryKeyConstraint("default_streams_pk", ["realm_id", "stream_id"])
    .execute();

  await db.schema
    .createTable("subscriptions")
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addColumn("active", "integer", (c) => c.notNull().defaultTo(1))
    .addColumn("color", "text", (c) => c.notNull())
    .addColumn("props", "text", (c) => c.notNull().defaultTo("{}"))
    .addPrimaryKeyConstraint("subscriptions_pk", ["user_id", "stream_id"])
    .execute();
  await db.schema.createIndex("subscriptions_stream").on("subscriptions").columns(["stream_id", "active"]).execute();

  await withId(db.schema.createTable("messages"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("sender_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("recipient_id", "integer", (c) => c.notNull().references("recipients.id"))
    .addColumn("stream_id", "integer")
    .addColumn("topic", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("dm_key", "text")
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("rendered_content", "text", (c) => c.notNull())
    .addColumn("client", "text", (c) => c.notNull())
    .addColumn("date_sent", "bigint", (c) => c.notNull())
    .addColumn("last_edit_time", "bigint")
    .addColumn("last_moved_time", "bigint")
    .execute();
  await db.schema.createIndex("messages_stream_topic").on("messages").columns(["stream_id", "topic", "id"]).execute();
  await db.schema.createIndex("messages_dm_key").on("messages").columns(["dm_key", "id"]).execute();
  await db.schema.createIndex("messages_sender").on("messages").columns(["sender_id", "id"]).execute();

  await db.schema
    .createTable("user_messages")
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id"))
    .addColumn("flags", "integer", (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint("user_messages_pk", ["user_id", "message_id"])
    .execute();
  await db.schema.createIndex("user_messages_message").on("user_messages").column("message_id").execute();

  await withId(db.schema.createTable("custom_profile_fields"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("hint", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("field_type", "integer", (c) => c.notNull())
    .addColumn("field_data", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("order", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("display_in_profile_summary", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("required", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("editable_by_user", "integer", (c) => c.notNull().defaultTo(1))
    .execute();

  await db.schema
    .createTable("custom_profile_values")
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("field_id", "integer", (c) => c.notNull().references("custom_profile_fields.id"))
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("rendered_value", "text")
    .addPrimaryKeyConstraint("custom_profile_values_pk", ["user_id", "field_id"])
    .execute();

}
