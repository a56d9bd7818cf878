import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("user_presence")
    .addColumn("user_id", "integer", (c) => c.primaryKey().references("users.id"))
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("last_connected_time", "bigint")
    .addColumn("last_active_time", "bigint")
    .addColumn("last_update_id", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("user_presence_realm_update").on("user_presence").columns(["realm_id", "last_update_id"]).execute();

  // One counter per organization: every presence write takes the next value.
  await db.schema
    .createTable("presence_sequences")
    .addColumn("realm_id", "integer", (c) => c.primaryKey().references("realms.id"))
    .addColumn("last_update_id", "integer", (c) => c.notNull())
    .execute();
}
