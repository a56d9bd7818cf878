import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { Kysely, Migrator, PostgresDialect, SqliteDialect, type Migration } from "kysely";
import type { DB } from "./schema.js";
import { MIGRATIONS } from "./migrations/index.js";
import { QueryGuardPlugin } from "./query_guard.js";

export type Dialect = "sqlite" | "postgres";

export interface DatabaseHandle {
  db: Kysely<DB>;
  dialect: Dialect;
  close(): Promise<void>;
}

// PostgreSQL returns BIGINT as strings; our bigints are UNIX timestamps, safely numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

export interface OpenOptions {
  /** postgres://... selects PostgreSQL; otherwise SQLite in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
}

export async function openDatabase(opts: OpenOptions): Promise<DatabaseHandle> {
  const isPg = !!opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl);
  let db: Kysely<DB>;
  let dialect: Dialect;
  if (isPg) {
    dialect = "postgres";
    const pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle connection the server drops (a restart, or the database going away while the pool
    // closes) is discarded by the pool; without a listener its error would crash the process.
    pool.on("error", () => {});
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), plugins: [new QueryGuardPlugin(dialect)] });
  } else {
    dialect = "sqlite";
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const file = new Database(path.join(opts.dataDir, "confab.sqlite3"));
    file.pragma("journal_mode = WAL");
    file.pragma("synchronous = NORMAL");
    file.pragma("foreign_keys = ON");
    file.pragma("busy_timeout = 5000");
    db = new Kysely<DB>({ dialect: new SqliteDialect({ database: file }), plugins: [new QueryGuardPlugin(dialect)] });
  }
  await migrate(db, dialect);
  return { db, dialect, close: () => db.destroy() };
}

async function migrate(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const [name, up] of MIGRATIONS) migrations[name] = { up: (k) => up(k, dialect) };
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
