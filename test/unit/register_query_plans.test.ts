import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CompiledQuery } from "kysely";
import { openDatabase } from "../../src/store/db.js";
import { realmBots } from "../../src/store/register_extras.js";
import { listRealmStatuses } from "../../src/store/user_status.js";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-register-plans-"));
const { db, close } = await openDatabase({ dataDir: dir });
after(async () => {
  await close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** SQLite's plan for the statement `run` sends, with the values it binds. */
async function planOf(run: (recording: typeof db) => Promise<unknown>): Promise<string[]> {
  const sent: CompiledQuery[] = [];
  // Reads compiled once are sent as they are, so the statement is taken where it is sent; in a
  // transaction, since outside one a read goes to the idle SQLite connection directly.
  await db.transaction().execute(async (tx) => {
    const recording = new Proxy(tx, {
      get(target, key) {
        if (key === "executeQuery") return (query: CompiledQuery) => (sent.push(query), target.executeQuery(query));
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    await run(recording);
  });
  assert.equal(sent.length, 1);
  const rows = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${sent[0].sql}`, [...sent[0].parameters]));
  return rows.rows.map((r) => r.detail);
}

test("an organization's bots come from the index of bots, not from all its users", async () => {
  for (const ownerId of [undefined, 5]) {
    const plan = await planOf((d) => realmBots(d, 1, ownerId));
    assert.match(plan.join("; "), /USING INDEX users_realm_bots/, plan.join("; "));
  }
});

test("users' statuses are read by walking the statuses, looking each user up by id", async () => {
  const plan = await planOf((d) => listRealmStatuses(d, 1));
  assert.match(plan[0], /^SCAN user_status/, plan.join("; "));
  assert.match(plan[1], /^SEARCH users USING INTEGER PRIMARY KEY/, plan.join("; "));
});
