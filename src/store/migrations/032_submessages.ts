import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { withId } from "./001_initial.js";

/**
 * Submessages: the widget a /poll or /todo message carries, then every vote, option, task and
 * edit made on it, in order. A message shows them all, so adding one moves the message's
 * version on (see 030), as a reaction does.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await withId(db.schema.createTable("submessages"), dialect)
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("sender_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("msg_type", "text", (c) => c.notNull())
    .addColumn("content", "text", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("submessages_message").on("submessages").columns(["message_id", "id"]).execute();
  if (dialect === "sqlite") {
    await sql`CREATE TRIGGER submessages_added AFTER INSERT ON submessages FOR EACH ROW
      BEGIN UPDATE messages SET version = version + 1 WHERE id = NEW.message_id; END`.execute(db);
    return;
  }
  await sql`CREATE FUNCTION submessages_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN UPDATE messages SET version = version + 1 WHERE id = NEW.message_id; RETURN NULL; END $$`.execute(db);
  await sql`CREATE TRIGGER submessages_version AFTER INSERT ON submessages FOR EACH ROW EXECUTE FUNCTION submessages_added()`.execute(db);
}
