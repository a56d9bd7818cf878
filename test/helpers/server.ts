/**
 * Test servers: a real Confab listening on a loopback port, on a fresh SQLite file or, when
 * CONFAB_TEST_PG_URL is set, a fresh PostgreSQL database created for this server alone. When
 * CONFAB_TEST_REDIS_URL is set too, its event queues, limits and cache versions live in Redis,
 * under a key prefix of its own.
 */
import fs from "node:fs";
import { randomUUID } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { loadConfig, type Config } from "../../src/config.js";
import { startConfab, type Running, type StartOptions } from "../../src/server.js";
import type { Clock } from "../../src/context.js";
import { freshPgDatabase } from "./pg_database.js";

export interface TestServer extends Running {
  dataDir: string;
  /** Stops this server, keeping its database, and starts another on it, as a restart would. */
  restart(opts?: StartOptions): Promise<TestServer>;
}

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(public current = Date.now() / 1000) {}
  now() {
    return this.current;
  }
  advance(seconds: number) {
    this.current += seconds;
  }
}

export async function startTestServer(overrides: Partial<Config> = {}, opts: StartOptions = {}): Promise<TestServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-test-"));
  const pgAdmin = process.env.CONFAB_TEST_PG_URL;
  const database = pgAdmin ? await freshPgDatabase(pgAdmin) : undefined;
  const config = loadConfig(
    { CONFAB_DATA_DIR: dataDir, LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? "silent" },
    // Tests send many requests as one user; the rate-limit tests turn limits on themselves.
    {
      port: 0,
      databaseUrl: database?.url,
      rateLimiting: false,
      redisUrl: process.env.CONFAB_TEST_REDIS_URL || undefined,
      redisKeyPrefix: `test-${randomUUID()}`,
      ...overrides,
    },
  );
  return serveTestDatabase(config, opts, async () => {
    await database?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
}

async function serveTestDatabase(config: Config, opts: StartOptions, dropDatabase: () => Promise<void>): Promise<TestServer> {
  const running = await startConfab(config, opts);
  return {
    ...running,
    dataDir: config.dataDir,
    async restart(next: StartOptions = {}) {
      await running.close();
      return serveTestDatabase(config, next, dropDatabase);
    },
    async close() {
      await running.close();
      await dropDatabase();
    },
  };
}
