import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { Pool } from "pg";
import { Kysely, Migrator, PostgresAdapter, PostgresDialect, type Migration } from "kysely";
import type { DB, Executor } from "./schema.js";
import { MIGRATIONS } from "./migrations/index.js";
import { QueryGuardPlugin } from "./query_guard.js";
import { TableVersions, WriteWatchPlugin } from "./table_versions.js";
import { ConfabSqliteDialect } from "./sqlite_compiler.js";
import { sqliteStatements, type SqliteConnection } from "./sqlite_statements.js";
import { registerSearchFunctions } from "./search_index.js";

export type Dialect = "sqlite" | "postgres";

export interface DatabaseHandle {
  db: Kysely<DB>;
  dialect: Dialect;
  /** Versions of the tables whose rows are cached in memory. */
  versions: TableVersions;
  close(): Promise<void>;
}

/**
 * Tables read on nearly every request (credentials, organization settings, profiles, what
 * rendering needs) and cached.
 */
const CACHED_TABLES = new Set([
  "users",
  "realms",
  "custom_profile_fields",
  "custom_profile_values",
  "user_groups",
  "user_group_members",
  "user_group_subgroups",
  "streams",
  "realm_emoji",
  "realm_linkifiers",
  "subscriptions",
  "alert_words",
  "muted_users",
]);

export function dialectOf(db: Executor): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

/** The SQLite connection behind a Kysely instance, by its adapter (which its transactions share). */
const sqliteConnections = new WeakMap<object, SqliteConnection>();

/**
 * The SQLite connection an executor runs on, for the few writes that go to better-sqlite3
 * directly (see insertMessageCopies), with its compiled statements; undefined on PostgreSQL.
 * Only for use inside a transaction: Kysely's one SQLite connection is then held by it, so a
 * statement run here belongs to that transaction.
 */
export function sqliteConnectionOf(db: Executor): SqliteConnection | undefined {
  const connection = sqliteConnections.get(db.getExecutor().adapter);
  if (connection && !db.isTransaction) throw new Error("direct SQLite statements run only inside a transaction");
  return connection;
}

/**
 * The SQLite connection behind a Kysely instance (not a transaction) when no transaction holds
 * it, so that a read may run on it at once: SQLite runs one statement to completion, so the read
 * sees only committed rows. Undefined on PostgreSQL, and while a transaction is open (the read
 * then waits for it, as Kysely makes every query wait).
 */
export function idleSqliteConnection(db: Executor): SqliteConnection | undefined {
  if (db.isTransaction) return undefined;
  const connection = sqliteConnections.get(db.getExecutor().adapter);
  return connection?.inTransaction ? undefined : connection;
}

export interface OpenOptions {
  /** postgres://... selects PostgreSQL; otherwise SQLite in `dataDir`. */
  databaseUrl?: string;
  dataDir: string;
}

export async function openDatabase(opts: OpenOptions): Promise<DatabaseHandle> {
  const isPg = !!opts.databaseUrl && /^postgres(ql)?:\/\//.test(opts.databaseUrl);
  let db: Kysely<DB>;
  let dialect: Dialect;
  const versions = new TableVersions(CACHED_TABLES);
  const plugins = (kind: Dialect) => [new QueryGuardPlugin(kind), new WriteWatchPlugin(CACHED_TABLES, (tables) => versions.bump(tables))];
  if (isPg) {
    dialect = "postgres";
    // Loaded only for PostgreSQL, so SQLite servers don't carry the driver.
    const { default: pg } = await import("pg");
    // PostgreSQL returns BIGINT as strings; ids and UNIX timestamps are safely numbers.
    pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
    const pool: Pool = new pg.Pool({ connectionString: opts.databaseUrl, max: 10 });
    // An idle connection the server drops (a restart, or the database going away while the pool
    // closes) is discarded by the pool; without a listener its error would crash the process.
    pool.on("error", () => {});
    // PostgreSQL compiles a query to machine code when its estimated cost is high, which the
    // plans of a large organization's reads (a limit of 50,000 unread messages) reach: 18–26 ms
    // of compiling for a 7 ms read. Queries on the request path are short, so never compile.
    // (A statement queued before any other on the new connection; servers older than 11 have no
    // such setting, hence the ignored error.)
    pool.on("connect", (client) => {
      client.query("SET jit = off").catch(() => {});
    });
    db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }), plugins: plugins(dialect) });
  } else {
    dialect = "sqlite";
    fs.mkdirSync(opts.dataDir, { recursive: true });
    const file = new Database(path.join(opts.dataDir, "confab.sqlite3"));
    file.pragma("journal_mode = WAL");
    file.pragma("synchronous = NORMAL");
    file.pragma("foreign_keys = ON");
    file.pragma("busy_timeout = 5000");
    // Reads straight from the mapped file and a larger page cache: most reads never copy a page.
    file.pragma("mmap_size = 268435456");
    file.pragma("cache_size = -65536");
    file.pragma("temp_store = MEMORY");
    // A message to N people dirties about 2N scattered index pages; a checkpoint every 1,000
    // pages (SQLite's default) wrote them back every few sends. Every 10,000 pages (40 MB of WAL),
    // a page rewritten by many sends goes back once: sends to 100 people cost about 30% less.
    // After a checkpoint the WAL file is cut back to 64 MB.
    file.pragma("wal_autocheckpoint = 10000");
    file.pragma("journal_size_limit = 67108864");
    registerSearchFunctions(file);
    const connection = sqliteStatements(file);
    db = new Kysely<DB>({ dialect: new ConfabSqliteDialect({ database: connection }), plugins: plugins(dialect) });
    sqliteConnections.set(db.getExecutor().adapter, connection);
  }
  await migrate(db, dialect);
  return { db, dialect, versions, close: () => db.destroy() };
}

async function migrate(db: Kysely<DB>, dialect: Dialect): Promise<void> {
  const migrations: Record<string, Migration> = {};
  for (const [name, up] of MIGRATIONS) migrations[name] = { up: (k) => up(k, dialect) };
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
