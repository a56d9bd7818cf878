import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";

/**
 * On PostgreSQL, every integer column becomes bigint, as SQLite's integers already are. Any id
 * a request can carry (a JSON integer is at most 2^53) then compares with a column without the
 * "out of range for type integer" error, and an id that cannot exist is simply not found, on
 * both databases alike.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect !== "postgres") return;
  const { rows } = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND data_type = 'integer' AND table_name NOT LIKE 'kysely_%'
    ORDER BY table_name, column_name`.execute(db);
  const byTable = new Map<string, string[]>();
  for (const r of rows) byTable.set(r.table_name, [...(byTable.get(r.table_name) ?? []), r.column_name]);
  for (const [table, columns] of byTable) {
    const changes = columns.map((c) => sql`ALTER COLUMN ${sql.id(c)} TYPE bigint`);
    await sql`ALTER TABLE ${sql.id(table)} ${sql.join(changes)}`.execute(db);
  }
}
