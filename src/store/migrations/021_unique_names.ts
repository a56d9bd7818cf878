import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * Names Zulip keeps unique per organization are unique in the database too, so that two
 * requests racing past the same check (possible on PostgreSQL, where writers run in parallel)
 * cannot both succeed. Channel and folder names compare without case, as Zulip compares them.
 */
const NAMES: { table: string; index: string; key: (alias: string) => string }[] = [
  { table: "streams", index: "streams_realm_name_unique", key: (a) => `lower(${a}name)` },
  { table: "channel_folders", index: "channel_folders_realm_name_unique", key: (a) => `lower(${a}name)` },
  { table: "user_groups", index: "user_groups_realm_name_unique", key: (a) => `${a}name` },
  { table: "custom_profile_fields", index: "custom_profile_fields_realm_name_unique", key: (a) => `${a}name` },
];

export async function up(db: Kysely<any>, _dialect: Dialect): Promise<void> {
  for (const { table, index, key } of NAMES) {
    // Duplicates made before the index existed keep their data under a name that tells them apart.
    await sql`UPDATE ${sql.table(table)} SET name = name || ' (' || id || ')' WHERE id IN (
      SELECT t.id FROM ${sql.table(table)} t WHERE EXISTS (
        SELECT 1 FROM ${sql.table(table)} o
        WHERE o.realm_id = t.realm_id AND ${sql.raw(key("o."))} = ${sql.raw(key("t."))} AND o.id < t.id))`.execute(db);
    await sql`CREATE UNIQUE INDEX ${sql.id(index)} ON ${sql.table(table)} (realm_id, ${sql.raw(key(""))})`.execute(db);
  }
  // Of linkifiers with the same pattern only the earliest ever matched; the others are dropped.
  await sql`DELETE FROM realm_linkifiers WHERE id IN (
    SELECT t.id FROM realm_linkifiers t WHERE EXISTS (
      SELECT 1 FROM realm_linkifiers o WHERE o.realm_id = t.realm_id AND o.pattern = t.pattern AND o.id < t.id))`.execute(db);
  await sql`CREATE UNIQUE INDEX realm_linkifiers_realm_pattern_unique ON realm_linkifiers (realm_id, pattern)`.execute(db);
}
