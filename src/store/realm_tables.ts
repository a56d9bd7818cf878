/**
 * Every table of the schema as data: which exist, their columns and references (read from the
 * database itself, so tables added later are covered), one organization's rows of a table, and
 * rows loaded back. Organization data exports and imports are built on this.
 */
import { sql, type RawBuilder } from "kysely";
import type { Dialect } from "./db.js";
import type { Db, Executor } from "./schema.js";
import { tableScope, type TableScope } from "../domain/realm_export.js";

export interface TableInfo {
  name: string;
  columns: string[];
  scope: TableScope | null;
}

export async function listTables(db: Db): Promise<TableInfo[]> {
  const tables = await db.introspection.getTables();
  return tables
    .filter((t) => !t.isView && !t.name.startsWith("kysely_"))
    .map((t) => {
      const columns = t.columns.map((c) => c.name);
      return { name: t.name, columns, scope: tableScope(t.name, columns) };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** table -> the tables its foreign keys refer to. */
export async function tableReferences(db: Executor, dialect: Dialect): Promise<Map<string, Set<string>>> {
  const rows =
    dialect === "sqlite"
      ? await sql<{ tbl: string; ref: string }>`
          SELECT m.name AS tbl, p."table" AS ref
          FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) p
          WHERE m.type = 'table'`.execute(db)
      : await sql<{ tbl: string; ref: string }>`
          SELECT tc.table_name AS tbl, ccu.table_name AS ref
          FROM information_schema.table_constraints tc
          JOIN information_schema.constraint_column_usage ccu
            ON tc.constraint_name = ccu.constraint_name AND tc.table_schema = ccu.table_schema
          WHERE tc.constraint_type = 'FOREIGN KEY' AND tc.table_schema = current_schema()`.execute(db);
  const refs = new Map<string, Set<string>>();
  for (const { tbl, ref } of rows.rows) {
    if (!refs.has(tbl)) refs.set(tbl, new Set());
    refs.get(tbl)!.add(ref);
  }
  return refs;
}

/** Which of an organization's rows an export takes. */
export interface RowSelection {
  realmId: number;
  /** Users whose private data may be exported (none for a public export). */
  consentingUserIds: readonly number[];
  privateTables: ReadonlySet<string>;
}

function idList(ids: readonly number[]): RawBuilder<unknown> {
  return ids.length ? sql`(${sql.join(ids.map((id) => sql`${id}`))})` : sql`(NULL)`;
}

/** Public channels' messages, and every message a consenting user received: their private data. */
function messageFilter(sel: RowSelection): RawBuilder<unknown> {
  const publicChannel = sql`stream_id IN (SELECT id FROM streams WHERE realm_id = ${sel.realmId} AND invite_only = 0)`;
  const consented = sql`id IN (SELECT message_id FROM user_messages WHERE user_id IN ${idList(sel.consentingUserIds)})`;
  return sel.consentingUserIds.length ? sql`(${publicChannel} OR ${consented})` : publicChannel;
}

function parentIds(parent: string, sel: RowSelection): RawBuilder<unknown> {
  if (parent === "messages") {
    return sql`(SELECT id FROM messages WHERE realm_id = ${sel.realmId} AND ${messageFilter(sel)})`;
  }
  return sql`(SELECT id FROM ${sql.table(parent)} WHERE realm_id = ${sel.realmId})`;
}

function whereClause(table: TableInfo, sel: RowSelection): RawBuilder<unknown> {
  const scope = table.scope;
  if (!scope) throw new Error(`table ${table.name} belongs to no organization`);
  const parts: RawBuilder<unknown>[] = [];
  if (scope.kind === "realm") parts.push(sql`id = ${sel.realmId}`);
  else if (scope.kind === "recipients") {
    parts.push(sql`((type = 1 AND type_id IN ${parentIds("users", sel)})
      OR (type = 2 AND type_id IN ${parentIds("streams", sel)})
      OR (type = 3 AND type_id IN ${parentIds("direct_message_groups", sel)}))`);
  } else {
    for (const { column, parent } of scope.refs) {
      parts.push(parent === "realms" ? sql`${sql.ref(column)} = ${sel.realmId}` : sql`${sql.ref(column)} IN ${parentIds(parent, sel)}`);
    }
  }
  if (table.name === "messages") parts.push(messageFilter(sel));
  // A file goes with the messages that link it, or with its consenting owner's private data.
  if (table.name === "attachments") {
    parts.push(sql`(id IN (SELECT attachment_id FROM attachment_messages WHERE message_id IN ${parentIds("messages", sel)})
      OR owner_id IN ${idList(sel.consentingUserIds)})`);
  }
  if (sel.privateTables.has(table.name)) parts.push(sql`user_id IN ${idList(sel.consentingUserIds)}`);
  return sql.join(parts, sql` AND `);
}

const BATCH = 1000;

/** An organization's rows of one table, a batch at a time, so a large table never sits in memory whole. */
export async function* realmRows(db: Executor, table: TableInfo, sel: RowSelection): AsyncGenerator<Record<string, unknown>[]> {
  const where = whereClause(table, sel);
  const keyed = table.columns.includes("id");
  const order = sql.join((keyed ? ["id"] : table.columns).map((c) => sql.ref(c)));
  let after = 0;
  for (let offset = 0; ; offset += BATCH) {
    const page = keyed
      ? sql`SELECT * FROM ${sql.table(table.name)} WHERE ${where} AND id > ${after} ORDER BY id LIMIT ${BATCH}`
      : sql`SELECT * FROM ${sql.table(table.name)} WHERE ${where} ORDER BY ${order} LIMIT ${BATCH} OFFSET ${offset}`;
    const { rows } = await page.execute(db);
    if (!rows.length) return;
    yield rows as Record<string, unknown>[];
    if (keyed) after = Number((rows[rows.length - 1] as { id: number }).id);
    if (rows.length < BATCH) return;
  }
}

/** Loads rows into a table as they are, ids included; batches stay under both databases' parameter limits. */
export async function insertRows(db: Executor, table: string, rows: Record<string, unknown>[]): Promise<void> {
  if (!rows.length) return;
  const perBatch = Math.max(1, Math.floor(30000 / Object.keys(rows[0]!).length));
  for (let i = 0; i < rows.length; i += perBatch) {
    await db.insertInto(table as "realms").values(rows.slice(i, i + perBatch) as never).execute();
  }
}

/** After rows were loaded with their ids, PostgreSQL's id sequences must continue past them. */
export async function resetIdSequences(db: Executor, dialect: Dialect, tables: readonly TableInfo[]): Promise<void> {
  if (dialect !== "postgres") return;
  for (const t of tables) {
    if (!t.columns.includes("id")) continue;
    await sql`SELECT setval(pg_get_serial_sequence(${t.name}, 'id'), (SELECT COALESCE(MAX(id), 0) + 1 FROM ${sql.table(t.name)}), false)`.execute(db);
  }
}
