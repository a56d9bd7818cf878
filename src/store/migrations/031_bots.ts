import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/**
 * What a bot has beyond a user row: its default channels, its outgoing-webhook service, its
 * configuration entries and the key-value storage the zulip_bots framework keeps through
 * /bot_storage. Kept out of `users`, which every request reads through a cache.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("bot_defaults")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id"))
    .addColumn("default_sending_stream_id", "integer", (c) => c.references("streams.id"))
    .addColumn("default_events_register_stream_id", "integer", (c) => c.references("streams.id"))
    .addColumn("default_all_public_streams", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await withId(db.schema.createTable("bot_services"), dialect)
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("base_url", "text", (c) => c.notNull())
    .addColumn("interface", "integer", (c) => c.notNull())
    .addColumn("token", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("bot_services_user").on("bot_services").columns(["user_id", "id"]).execute();
  for (const table of ["bot_config", "bot_storage"]) {
    await db.schema
      .createTable(table)
      .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
      .addColumn("key", "text", (c) => c.notNull())
      .addColumn("value", "text", (c) => c.notNull())
      .addPrimaryKeyConstraint(`${table}_pk`, ["user_id", "key"])
      .execute();
  }
}
