import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { openDatabase } from "../../src/store/db.js";
import { isStarred, isUnread } from "../../src/store/message_flags.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-flag-indexes-"));
const { db, close } = await openDatabase({ dataDir: dir });
after(async () => {
  await close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function plan(condition: ReturnType<typeof isUnread>, columns: ("message_id" | "flags")[] = ["message_id"]): Promise<string> {
  const query = db.selectFrom("user_messages").select(columns).where("user_id", "=", sql.lit(7)).where(condition).orderBy("message_id", "desc").compile();
  const rows = await sql<{ detail: string }>`EXPLAIN QUERY PLAN ${sql.raw(query.sql)}`.execute(db.withoutPlugins());
  return rows.rows.map((r) => r.detail).join("; ");
}

test("a user's unread and starred rows are read through their partial indexes", async () => {
  assert.match(await plan(isUnread()), /user_messages_unread/);
  assert.match(await plan(isStarred()), /user_messages_starred/);
});

test("unread rows come with their flags from the unread index alone", async () => {
  assert.match(await plan(isUnread(), ["message_id", "flags"]), /COVERING INDEX user_messages_unread/);
});
