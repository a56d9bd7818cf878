import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Uploaded avatars: where a user's picture comes from ("G" Gravatar, "U" uploaded) and its
 * version, which every avatar URL carries so clients and caches fetch a changed picture again.
 * Kept on `users`, which every user list and message already reads. An organization's icon and
 * logos are few and live in its settings JSON.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("avatar_source", "text", (c) => c.notNull().defaultTo("G"))
    .execute();
  await db.schema
    .alterTable("users")
    .addColumn("avatar_version", "integer", (c) => c.notNull().defaultTo(1))
    .execute();
}
