/**
 * `--processes N`: N Confab processes on one machine, sharing the port through node:cluster.
 * The primary only prepares the database and keeps the workers running; every worker serves
 * requests, and they share queues and caches through Redis.
 */
import cluster from "node:cluster";
import type { Config } from "../config.js";

/** How many processes the command line or CONFAB_PROCESSES asks for (1 when neither does). */
export function requestedProcesses(argv: readonly string[], env: NodeJS.ProcessEnv): number {
  const flag = argv.indexOf("--processes");
  const raw = flag >= 0 ? argv[flag + 1] : env.CONFAB_PROCESSES;
  if (raw === undefined || raw === "") return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 256) throw new Error(`--processes wants a whole number from 1 to 256, not ${JSON.stringify(raw)}`);
  return n;
}

/** Why this configuration cannot run several processes, if it cannot. */
export function clusterConfigProblem(config: Config): string | undefined {
  if (!config.redisUrl) return "several processes share their event queues through Redis: set CONFAB_REDIS_URL";
  if (!config.databaseUrl) return "several processes need PostgreSQL (DATABASE_URL); the embedded SQLite database serves one";
  return undefined;
}

/** A worker that dies is replaced, unless it keeps dying at once. */
const RESTART_BACKOFF_MS = [0, 1000, 5000, 30_000];

export function runWorkers(n: number, log: (line: string) => void): void {
  let stopping = false;
  const failures = new Map<number, number>();
  const fork = (slot: number) => {
    const worker = cluster.fork({ CONFAB_WORKER_SLOT: String(slot) });
    const started = Date.now();
    worker.on("exit", (code, signal) => {
      if (stopping) return;
      const quick = Date.now() - started < 10_000;
      const count = quick ? (failures.get(slot) ?? 0) + 1 : 0;
      failures.set(slot, count);
      const delay = RESTART_BACKOFF_MS[Math.min(count, RESTART_BACKOFF_MS.length - 1)];
      log(`worker ${slot} (pid ${worker.process.pid}) exited (${signal ?? code}); starting another in ${delay} ms`);
      setTimeout(() => fork(slot), delay);
    });
  };
  for (let slot = 0; slot < n; slot++) fork(slot);
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      stopping = true;
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill("SIGTERM");
      let left = Object.keys(cluster.workers ?? {}).length;
      if (!left) process.exit(0);
      cluster.on("exit", () => {
        if (--left <= 0) process.exit(0);
      });
    });
  }
}
