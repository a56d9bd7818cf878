import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Every change to a message, or to its reactions, moves the message's version on, so a copy of
 * it kept in memory (see MessageCache) is known to be current by the version the message window
 * reads anyway. Triggers do it, so that no write path can forget to.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  await sql`ALTER TABLE messages ADD COLUMN version integer NOT NULL DEFAULT 0`.execute(db);
  if (dialect === "sqlite") {
    // SQLite cannot change NEW in a trigger; the nested update does not fire it again.
    await sql`CREATE TRIGGER messages_version AFTER UPDATE ON messages FOR EACH ROW WHEN NEW.version = OLD.version
      BEGIN UPDATE messages SET version = OLD.version + 1 WHERE id = NEW.id; END`.execute(db);
    await sql`CREATE TRIGGER reactions_added AFTER INSERT ON reactions FOR EACH ROW
      BEGIN UPDATE messages SET version = version + 1 WHERE id = NEW.message_id; END`.execute(db);
    await sql`CREATE TRIGGER reactions_removed AFTER DELETE ON reactions FOR EACH ROW
      BEGIN UPDATE messages SET version = version + 1 WHERE id = OLD.message_id; END`.execute(db);
    await sql`CREATE TRIGGER reactions_changed AFTER UPDATE ON reactions FOR EACH ROW
      BEGIN UPDATE messages SET version = version + 1 WHERE id IN (OLD.message_id, NEW.message_id); END`.execute(db);
    return;
  }
  await sql`CREATE FUNCTION next_message_version() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN NEW.version := OLD.version + 1; RETURN NEW; END $$`.execute(db);
  await sql`CREATE TRIGGER messages_version BEFORE UPDATE ON messages FOR EACH ROW EXECUTE FUNCTION next_message_version()`.execute(db);
  await sql`CREATE FUNCTION reactions_changed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF TG_OP <> 'INSERT' THEN UPDATE messages SET version = version + 1 WHERE id = OLD.message_id; END IF;
      IF TG_OP <> 'DELETE' THEN UPDATE messages SET version = version + 1 WHERE id = NEW.message_id; END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER reactions_version AFTER INSERT OR UPDATE OR DELETE ON reactions FOR EACH ROW EXECUTE FUNCTION reactions_changed()`.execute(
    db,
  );
}
