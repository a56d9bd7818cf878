/**
 * Settings every database connection of the server runs with. PostgreSQL only (the --pg suite):
 * SQLite's one connection is set up by its pragmas, which every other test exercises.
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { sql } from "kysely";
import { startTestServer, type TestServer } from "../helpers/server.js";

let srv: TestServer;

before(async () => {
  srv = await startTestServer();
});
after(() => srv.close());

test("every pooled PostgreSQL connection runs its queries without JIT compilation", async (ctx) => {
  if (srv.app.dialect !== "postgres") return ctx.skip("PostgreSQL's setting");
  // Held at once, so that the pool opens several connections, each with its own session.
  const rows = await Promise.all(
    Array.from({ length: 6 }, () =>
      sql<{ jit: string; pid: number }>`SELECT current_setting('jit') AS jit, pg_backend_pid() AS pid, pg_sleep(0.05)`.execute(srv.app.db),
    ),
  );
  const sessions = rows.map((r) => r.rows[0]);
  assert.ok(new Set(sessions.map((s) => s.pid)).size > 1, "several connections");
  assert.deepEqual([...new Set(sessions.map((s) => s.jit))], ["off"]);
});
