import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/** Drafts, saved snippets and alert words: things each user keeps for themselves. */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  // A draft's recipient is kept the way messages keep theirs: a channel, or the sorted ids of
  // every participant of a direct-message conversation (the owner included); neither = no recipient.
  await withId(db.schema.createTable("drafts"), dialect)
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("stream_id", "integer", (c) => c.references("streams.id"))
    .addColumn("dm_key", "text")
    .addColumn("topic", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("content", "text", (c) => c.notNull())
    // UNIX seconds with microseconds, as clients send them; the order of drafts depends on it.
    .addColumn("last_edit_time", "double precision", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("drafts_user_edit").on("drafts").columns(["user_id", "last_edit_time"]).execute();

  await withId(db.schema.createTable("saved_snippets"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("title", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .addColumn("date_created", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("saved_snippets_user").on("saved_snippets").column("user_id").execute();

  await withId(db.schema.createTable("alert_words"), dialect)
    .addColumn("realm_id", "integer", (c) => c.notNull().references("realms.id"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("word", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("alert_words_realm").on("alert_words").columns(["realm_id", "id"]).execute();
  await db.schema
    .createIndex("alert_words_user_word")
    .on("alert_words")
    .unique()
    .expression(sql`user_id, lower(word)`)
    .execute();
}
