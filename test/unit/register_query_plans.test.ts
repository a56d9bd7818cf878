import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CompiledQuery, type KyselyPlugin, type RootOperationNode } from "kysely";
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
  const seen: RootOperationNode[] = [];
  const recorder: KyselyPlugin = {
    transformQuery: ({ node }) => (seen.push(node), node),
    transformResult: async ({ result }) => result,
  };
  await run(db.withPlugin(recorder));
  assert.equal(seen.length, 1);
  const compiled = db.getExecutor().compileQuery(seen[0], { queryId: "plan" });
  const rows = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${compiled.sql}`, [...compiled.parameters]));
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
