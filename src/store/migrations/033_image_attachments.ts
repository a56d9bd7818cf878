import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Uploads whose header parsed as an image we can thumbnail (Zulip's ImageAttachment): the
 * dimensions as displayed, the frame count, and the thumbnails made so far, as a JSON list. A
 * row with an empty list is still waiting for its thumbnails.
 */
export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  await db.schema
    .createTable("image_attachments")
    .addColumn("attachment_id", "integer", (c) => c.primaryKey().references("attachments.id").onDelete("cascade"))
    .addColumn("original_width_px", "integer", (c) => c.notNull())
    .addColumn("original_height_px", "integer", (c) => c.notNull())
    .addColumn("frames", "integer", (c) => c.notNull())
    .addColumn("thumbnail_metadata", "text", (c) => c.notNull().defaultTo("[]"))
    .execute();
}
