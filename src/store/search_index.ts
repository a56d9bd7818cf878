/**
 * The word index behind `search:` narrows.
 *
 * As Zulip's, it holds the words of each message's topic and rendered text (tags and entities
 * are not words), stemmed (English), and is kept in the same transaction as the message: on
 * SQLite an FTS5 table filled by triggers on `messages` (so sends, edits, moves, deletes and
 * bulk imports all keep it), on PostgreSQL a GIN index over the `to_tsvector('english', ...)`
 * of the same columns, which PostgreSQL maintains itself.
 */
import type Database from "better-sqlite3";
import { sql, type Expression, type RawBuilder, type SqlBool } from "kysely";
import type { Dialect } from "./db.js";

/** The SQLite function the triggers call, registered on every connection that writes messages. */
export const SEARCH_TEXT_FUNCTION = "confab_search_text";

/**
 * The words of rendered HTML as the index reads them: each tag and entity becomes a space, as
 * PostgreSQL's text-search parser skips them as tokens of their own.
 */
export function searchText(html: string): string {
  return html.replace(/<[^>]*>|&[#\w]+;/g, " ");
}

export function registerSearchFunctions(file: Database.Database): void {
  file.function(SEARCH_TEXT_FUNCTION, { deterministic: true }, (html: unknown) => (typeof html === "string" ? searchText(html) : ""));
}

/**
 * The PostgreSQL vector of a message, word for word the migration's index expression (the
 * planner uses the index only for the same expression).
 */
const pgVector = sql`to_tsvector('english'::regconfig, ${sql.ref("m.topic")} || ' ' || ${sql.ref("m.rendered_content")})`;

/**
 * The messages (alias `m`) that contain every one of these words, lowercased and free of stop
 * words (see `parseSearch`). Each word is letters and digits only, so it needs no quoting beyond
 * FTS5's string syntax.
 */
export function indexedWordsCondition(words: readonly string[], dialect: Dialect): RawBuilder<SqlBool> {
  if (dialect === "postgres") return sql<SqlBool>`${pgVector} @@ plainto_tsquery('english'::regconfig, ${words.join(" ")})`;
  const match = words.map((w) => `"${w}"`).join(" ");
  return sql<SqlBool>`${sql.ref("m.id")} in (select rowid from message_search where message_search match ${match})`;
}

/** The messages whose Markdown source or topic contains this lowercased text as written. */
export function substringCondition(text: string, dialect: Dialect): Expression<SqlBool> {
  const contains = (column: string) =>
    dialect === "postgres"
      ? sql<SqlBool>`strpos(lower(${sql.ref(column)}), ${text}) > 0`
      : sql<SqlBool>`lower(${sql.ref(column)}) like ${"%" + text.replace(/[\\%_]/g, (c) => "\\" + c) + "%"} escape '\\'`;
  return sql<SqlBool>`(${contains("m.content")} or ${contains("m.topic")})`;
}
