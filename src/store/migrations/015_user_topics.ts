import type { Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Each user's visibility policy (muted, unmuted, followed) for topics of channels. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("user_topics"), dialect)
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", "integer", (c) => c.notNull().references("streams.id"))
    .addColumn("topic_name", "text", (c) => c.notNull())
    // Topics compare case-insensitively; this lower-cased form makes one row per user and topic.
    .addColumn("topic_key", "text", (c) => c.notNull())
    .addColumn("visibility_policy", "integer", (c) => c.notNull())
    .addColumn("last_updated", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("user_topics_user_topic").unique().on("user_topics").columns(["user_id", "stream_id", "topic_key"]).execute();
  // Moving or deleting a topic looks up every user's row for it.
  await db.schema.createIndex("user_topics_stream_topic").on("user_topics").columns(["stream_id", "topic_key"]).execute();
}
