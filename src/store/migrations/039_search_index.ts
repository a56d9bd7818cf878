import { sql, type Kysely } from "kysely";
import type { Dialect } from "../db.js";
import { SEARCH_TEXT_FUNCTION } from "../search_index.js";

const BACKFILL_BATCH = 5000;

/**
 * The word index of `search:` (see `src/store/search_index.ts`). On SQLite an FTS5 table whose
 * rowid is the message id, kept by triggers; existing messages are indexed in batches. On
 * PostgreSQL an expression index, built in one statement.
 */
export async function up(db: Kysely<any>, dialect: Dialect): Promise<void> {
  if (dialect === "postgres") {
    await sql`create index messages_search on messages using gin (to_tsvector('english'::regconfig, topic || ' ' || rendered_content))`.execute(db);
    return;
  }
  // Stemmed with Porter (PostgreSQL's English is Snowball's later version of it); accents are kept
  // as PostgreSQL's English configuration keeps them.
  await sql`create virtual table message_search using fts5(topic, body, tokenize = 'porter unicode61 remove_diacritics 0', content = '', contentless_delete = 1)`.execute(db);
  const text = sql.raw(SEARCH_TEXT_FUNCTION);
  await sql`create trigger message_search_insert after insert on messages begin
    insert into message_search (rowid, topic, body) values (new.id, new.topic, ${text}(new.rendered_content));
  end`.execute(db);
  await sql`create trigger message_search_update after update of topic, rendered_content on messages begin
    delete from message_search where rowid = old.id;
    insert into message_search (rowid, topic, body) values (new.id, new.topic, ${text}(new.rendered_content));
  end`.execute(db);
  await sql`create trigger message_search_delete after delete on messages begin
    delete from message_search where rowid = old.id;
  end`.execute(db);
  for (let after = 0; ; ) {
    const last = await sql<{ id: number | null }>`select max(id) as id from (select id from messages where id > ${after} order by id limit ${BACKFILL_BATCH})`.execute(db);
    const upTo = last.rows[0]?.id;
    if (upTo == null) break;
    await sql`insert into message_search (rowid, topic, body) select id, topic, ${text}(rendered_content) from messages where id > ${after} and id <= ${upTo}`.execute(db);
    after = upTo;
  }
}
