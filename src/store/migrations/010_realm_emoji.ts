import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** An organization's custom emoji. Reactions and user statuses name them by id. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("realm_emoji"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("author_id", "integer", (c) => c.references("users.id"))
    // The stored image's key in file storage; the still image of an animated one adds `.png`.
    .addColumn("file_name", "text", (c) => c.notNull())
    .addColumn("is_animated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("deactivated", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex("realm_emoji_realm_name").on("realm_emoji").columns(["realm_id", "name"]).execute();
}
