import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Link previews' data per page (src/media/link_previews.ts), keyed by a hash of the URL: a URL
 * may be longer than a PostgreSQL index entry can hold.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("link_previews")
    .addColumn("url_hash", "text", (c) => c.primaryKey())
    .addColumn("url", "text", (c) => c.notNull())
    .addColumn("data", "text")
    .addColumn("fetched_at", "bigint", (c) => c.notNull())
    .execute();
}
