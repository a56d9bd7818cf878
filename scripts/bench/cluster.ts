/**
 * `npm run bench -- cluster [--seconds=5] [--clients=10000] [--connections=50]`:
 *   Confab on PostgreSQL in three shapes, measured in one run: one process with everything in
 *   memory (the baseline), one process with its queues in Redis, and two processes (node:cluster
 *   sharing the port) on Redis. For each: autocannon's GET /messages (20 newest of a channel) and
 *   POST /messages (to a channel of 100 subscribers) throughput, then channel fan-out: N clients
 *   long-poll (spread over the processes), one message goes to a channel they all follow, and
 *   every delivery is timed from the send. Runs the built server (`npm run build` first).
 *   PostgreSQL: CONFAB_BENCH_PG_URL (an admin database; default the dev server on port 55432).
 *   Redis: CONFAB_BENCH_REDIS_URL (default redis://127.0.0.1:56379).
 */
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { randomUUID } from "node:crypto";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { createInterface } from "node:readline";
import autocannon from "autocannon";
import { Redis } from "ioredis";
import { insertMembers, percentile, type BenchUser } from "./lib.js";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MAIN = path.join(ROOT, "dist/src/main.js");

interface Shape {
  name: string;
  processes: number;
  redis: boolean;
}
const SHAPES: Shape[] = [
  { name: "1 process, in memory", processes: 1, redis: false },
  { name: "1 process, Redis", processes: 1, redis: true },
  { name: "2 processes, Redis", processes: 2, redis: true },
];

function option(args: string[], name: string, fallback: number): number {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.split("=")[1]) : fallback;
}

const auth = (u: BenchUser) => "Basic " + Buffer.from(`${u.email}:${u.key}`).toString("base64");

interface Setup {
  databaseUrl: string;
  dropDatabase(): Promise<void>;
  dataDir: string;
  users: BenchUser[];
}

/** A fresh database with N + 100 members: all follow "everyone", the first 100 also "team". */
async function prepare(pgAdmin: string, clients: number): Promise<Setup> {
  const { freshPgDatabase } = await import("../../test/helpers/pg_database.js");
  const { loadConfig } = await import("../../src/config.js");
  const { openAppContext } = await import("../../src/server.js");
  const { createRealm } = await import("../../src/actions/realms.js");
  const { runAction } = await import("../../src/actions/run.js");
  const { createStreamInTx } = await import("../../src/actions/streams.js");
  const db = await freshPgDatabase(pgAdmin, "confab_bench");
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-bench-cluster-"));
  const { app, close } = await openAppContext(loadConfig({ CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent" }, { databaseUrl: db.url }));
  const realm = await createRealm(app, { stringId: "bench", name: "Bench" });
  const users = await insertMembers(app, realm, clients);
  for (const [name, members] of [
    ["everyone", users],
    ["team", users.slice(0, 100)],
  ] as const) {
    const channel = await runAction(app, (tx) => createStreamInTx(tx, app, realm, null, { name }));
    for (let start = 0; start < members.length; start += 1000) {
      await app.db
        .insertInto("subscriptions")
        .values(members.slice(start, start + 1000).map((u) => ({ user_id: u.id, stream_id: channel.id, active: 1 as const, color: "#76ce90", props: "{}" })))
        .execute();
    }
  }
  await close();
  return { databaseUrl: db.url, dropDatabase: db.drop, dataDir, users };
}

interface Server {
  url: string;
  child: ChildProcess;
  prefix: string;
}

async function startServer(shape: Shape, setup: Setup, redisUrl: string): Promise<Server> {
  const prefix = `bench-${randomUUID()}`;
  const port = 19_000 + Math.floor(Math.random() * 1000);
  const child = spawn(process.execPath, [MAIN, ...(shape.processes > 1 ? ["--processes", String(shape.processes)] : [])], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn",
      DATABASE_URL: setup.databaseUrl,
      CONFAB_DATA_DIR: setup.dataDir,
      CONFAB_RATE_LIMITING: "0",
      ...(shape.redis ? { CONFAB_REDIS_URL: redisUrl, CONFAB_REDIS_KEY_PREFIX: prefix } : {}),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  let serving = 0;
  await new Promise<void>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on("line", (line) => {
      if (line.startsWith("Confab is serving") && ++serving === shape.processes) resolve();
    });
    child.once("exit", () => reject(new Error(`${shape.name} exited before serving`)));
  });
  return { url: `http://127.0.0.1:${port}`, child, prefix };
}

async function stopServer(server: Server, redis: Redis): Promise<void> {
  server.child.kill("SIGTERM");
  await once(server.child, "exit");
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${server.prefix}:*`, "COUNT", 1000);
    cursor = next;
    if (keys.length) await redis.del(...keys);
  } while (cursor !== "0");
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

function request(url: string, method: string, authorization: string, body?: string): Promise<{ status: number; text: string; at: number }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization };
    if (body) headers["content-type"] = "application/x-www-form-urlencoded";
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString(), at: performance.now() }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function load(url: string, method: "GET" | "POST", authorization: string, seconds: number, connections: number, body?: string) {
  const result = await autocannon({
    url,
    method,
    connections,
    duration: seconds,
    headers: { authorization, ...(body ? { "content-type": "application/x-www-form-urlencoded" } : {}) },
    body,
  });
  if (result.non2xx) throw new Error(`${method} ${url}: ${result.non2xx} answers were not 2xx`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

/** How many queues of this run have a GET /events waiting on them, from Redis. */
async function heldQueues(redis: Redis, prefix: string): Promise<number> {
  let held = 0;
  let cursor = "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}:q:*`, "COUNT", 1000);
    cursor = next;
    const hashes = keys.filter((k) => !k.endsWith(":e"));
    const pipeline = redis.pipeline();
    for (const k of hashes) pipeline.hget(k, "held");
    for (const [, value] of (await pipeline.exec()) ?? []) if (value === "1") held++;
  } while (cursor !== "0");
  return held;
}

async function fanOut(server: Server, users: BenchUser[], redis: Redis | undefined) {
  const polls: Promise<{ status: number; text: string; at: number }>[] = [];
  for (let i = 0; i < users.length; i += 200) {
    await Promise.all(
      users.slice(i, i + 200).map(async (u) => {
        const r = await request(`${server.url}/api/v1/register`, "POST", auth(u), "event_types=%5B%22message%22%5D&fetch_event_types=%5B%5D");
        if (r.status !== 200) throw new Error(`register failed: ${r.text}`);
        polls.push(request(`${server.url}/api/v1/events?queue_id=${JSON.parse(r.text).queue_id}&last_event_id=-1`, "GET", auth(u)));
      }),
    );
  }
  // Waits until every poll is held (as Redis tells), or a settling time in memory; well before
  // the first heartbeats (45 s), which would answer them.
  const deadline = performance.now() + 30_000;
  let held = users.length;
  if (redis) {
    while ((held = await heldQueues(redis, server.prefix)) < users.length && performance.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  } else {
    await new Promise((r) => setTimeout(r, 3000));
  }
  const t0 = performance.now();
  const sent = await request(`${server.url}/api/v1/messages`, "POST", auth(users[0]), "type=stream&to=everyone&topic=fan-out&content=hello+everyone");
  if (sent.status !== 200) throw new Error(`send failed: ${sent.text}`);
  const latencies = (await Promise.all(polls)).map((r) => r.at - t0).sort((a, b) => a - b);
  return { held, p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies[latencies.length - 1] };
}

export async function run(args: string[]): Promise<void> {
  if (!fs.existsSync(MAIN)) throw new Error("build first: npm run build");
  const seconds = option(args, "seconds", 5);
  const clients = option(args, "clients", 10_000);
  const connections = option(args, "connections", 50);
  const pgAdmin = process.env.CONFAB_BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:55432/postgres";
  const redisUrl = process.env.CONFAB_BENCH_REDIS_URL ?? "redis://127.0.0.1:56379";
  const redis = new Redis(redisUrl);
  console.log(`cluster: PostgreSQL + Redis, ${os.cpus().length} cores; ${seconds} s per load, ${connections} connections; fan-out to ${clients} long-polls`);
  const setup = await prepare(pgAdmin, clients + 100);
  const team = setup.users[0];
  const rows: Record<string, string>[] = [];
  let baseline: { get: number; post: number; p99: number } | undefined;
  try {
    for (const shape of SHAPES) {
      const server = await startServer(shape, setup, redisUrl);
      try {
        const post = () => `type=stream&to=team&topic=load&content=message+${Math.random().toString(36).slice(2)}`;
        for (let i = 0; i < 50; i++) await request(`${server.url}/api/v1/messages`, "POST", auth(team), post());
        const narrow = encodeURIComponent(JSON.stringify([{ operator: "channel", operand: "team" }]));
        const get = await load(`${server.url}/api/v1/messages?anchor=newest&num_before=20&num_after=0&narrow=${narrow}`, "GET", auth(team), seconds, connections);
        const sends = await load(`${server.url}/api/v1/messages`, "POST", auth(team), seconds, connections, post());
        // Team members' queues could catch the load's last messages; the fan-out is measured on the others.
        await new Promise((r) => setTimeout(r, 2000));
        const fan = await fanOut(server, setup.users.slice(100), shape.redis ? redis : undefined);
        baseline ??= { get: get.rps, post: sends.rps, p99: fan.p99 };
        const ratio = (x: number, base: number) => `${(x / base).toFixed(2)}×`;
        rows.push({
          shape: shape.name,
          "GET /messages req/s": `${Math.round(get.rps)} (${ratio(get.rps, baseline.get)}) p99 ${get.p99} ms`,
          "POST /messages req/s": `${Math.round(sends.rps)} (${ratio(sends.rps, baseline.post)}) p99 ${sends.p99} ms`,
          [`fan-out to ${clients}`]: `p50 ${fan.p50.toFixed(0)} ms, p99 ${fan.p99.toFixed(0)} ms (${ratio(fan.p99, baseline.p99)}), held ${fan.held}`,
        });
        console.log(rows[rows.length - 1]);
      } finally {
        await stopServer(server, redis);
      }
    }
  } finally {
    redis.disconnect();
    await setup.dropDatabase();
    fs.rmSync(setup.dataDir, { recursive: true, force: true });
  }
  console.table(rows);
}
