/**
 * `npm run dev`: a throwaway SQLite database, wiped at every start, seeded with the
 * development organization, with the development-only endpoints switched on.
 */
import fs from "node:fs";
import path from "node:path";
import { loadConfig, type Config } from "../config.js";
import { startConfab, type Running, type StartOptions } from "../server.js";
import { seedDevOrganization, type DevOrganization, type DevSeedStep } from "./seed.js";

export const DEV_DATA_DIR = "var/dev";

export function devConfig(env: NodeJS.ProcessEnv): Config {
  return loadConfig(env, {
    development: true,
    dataDir: path.resolve(env.CONFAB_DATA_DIR ?? DEV_DATA_DIR),
    // The development database is thrown away at every start, so it is never a shared PostgreSQL.
    databaseUrl: undefined,
  });
}

/** Deletes the development database files (and nothing else in the data directory). */
export function wipeDevDatabase(dataDir: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal"]) {
    fs.rmSync(path.join(dataDir, `confab.sqlite3${suffix}`), { force: true });
  }
}

export async function startDevServer(
  config: Config,
  opts: Pick<StartOptions, "clock"> & { steps?: DevSeedStep[] } = {},
): Promise<{ running: Running; org: DevOrganization }> {
  wipeDevDatabase(config.dataDir);
  let org: DevOrganization | undefined;
  const running = await startConfab(config, {
    clock: opts.clock,
    beforeListen: async (app) => {
      org = await seedDevOrganization(app, opts.steps);
    },
  });
  return { running, org: org! };
}
