/**
 * `npm run bench -- http [--seconds=5] [--connections=50] [--rounds=1] [--only=users/me or "POST /messages"] [--cpu-prof=DIR]`:
 *   The cost of a request on the hot path. In one run, autocannon loads three servers, each in a
 *   child process of its own: a bare Node `http` server, a bare Fastify route and a
 *   production-mode Confab on SQLite. For each request it prints requests/s, p99 latency, the
 *   server's CPU time per request (steady even when the machine is busy) and Confab's share of the
 *   bare Node server's rate, the bare server answering the same request with the same JSON body
 *   Confab answered it with (20 messages are about 11 KB to write where GET /users/me is
 *   0.4 KB). The bare Fastify route answers GET /users/me's body. The bare Node server is
 *   loaded right before each Confab load (`--rounds=N` pairs, medians printed), since this
 *   machine's speed drifts by half within a minute: a ratio compares loads taken seconds apart,
 *   and the bare rate beside each is printed with it. Then the event queue's
 *   long-poll round trip: a message event from POST /typing to a waiting GET /events, one at a
 *   time, beside the same round trip on a bare Node server. Rate limits are raised out of reach
 *   (still counted) so that the limiter's cost is included.
 */
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import { buildConfab, closeChild, confabModule, forkChild, percentile, profileFile, serveIpc, type Child, type Reply } from "./lib.js";

const SELF = fileURLToPath(import.meta.url);

interface Target {
  name: string;
  method: "GET" | "POST";
  path: string;
  body?: string;
  /** Answered with 404 on purpose: such answers are not errors here. */
  notFound?: boolean;
}

interface Ready {
  url: string;
  auth: string;
  /** Authorization of a second user, whose typing notices reach the first. */
  otherAuth: string;
  otherId: number;
  myId: number;
  body: string;
}

// ---------------------------------------------------------------------------------------------
// Servers under test, in child processes.

/** The child's side: the ops every server here answers, then `handle` for the rest. */
function serve(ready: Ready, handle: (op: string) => Promise<Reply> | Reply): void {
  serveIpc(handle);
  process.send!({ id: 0, ...ready });
}

/** Confab as `npm start` runs it. */
async function confabServer(): Promise<void> {
  const { loadConfig } = await confabModule<typeof import("../../src/config.js")>("config.js");
  const { startConfab } = await confabModule<typeof import("../../src/server.js")>("server.js");
  const { createRealm } = await confabModule<typeof import("../../src/actions/realms.js")>("actions/realms.js");
  const { runAction } = await confabModule<typeof import("../../src/actions/run.js")>("actions/run.js");
  const { createUserInTx } = await confabModule<typeof import("../../src/actions/users.js")>("actions/users.js");
  const { Role } = await confabModule<typeof import("../../src/domain/roles.js")>("domain/roles.js");

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-bench-http-"));
  const unreachable = JSON.stringify({ api_by_user: [[60, 1e12]], api_by_ip: [[60, 1e12]] });
  const config = loadConfig({ CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent", CONFAB_RATE_LIMITING: "1", CONFAB_RATE_LIMIT_RULES: unreachable }, { port: 0 });
  const running = await startConfab(config);
  const realm = await createRealm(running.app, { stringId: "bench", name: "Bench" });
  const people = [];
  for (let i = 0; i < 100; i++) {
    const user = await runAction(running.app, (tx) =>
      createUserInTx(tx, running.app, realm, { email: `user${i}@bench.example.com`, fullName: `User ${i}`, role: i === 0 ? Role.OWNER : Role.MEMBER }),
    );
    people.push({ id: user.id, auth: "Basic " + Buffer.from(`${user.delivery_email}:${user.api_key}`).toString("base64") });
  }
  const [me, other] = people;
  const call = async (method: string, route: string, params?: Record<string, string>) => {
    const res = await fetch(`${running.url}/api/v1${route}`, { method, headers: { authorization: me.auth }, body: params && new URLSearchParams(params) });
    if (!res.ok) throw new Error(`${method} ${route} failed: ${res.status} ${await res.text()}`);
    return res.text();
  };
  // One channel with all 100 people; 1,000 messages in 10 topics.
  await call("POST", "/users/me/subscriptions", { subscriptions: JSON.stringify([{ name: "bench" }]), principals: JSON.stringify(people.map((p) => p.id)) });
  for (let i = 0; i < 1000; i++) {
    await call("POST", "/messages", { type: "stream", to: "bench", topic: `topic ${i % 10}`, content: `Message ${i}: the numbers are in, **details** follow.` });
  }
  const body = await call("GET", "/users/me");
  serve({ url: running.url, auth: me.auth, otherAuth: other.auth, otherId: other.id, myId: me.id, body }, async (op) => {
    if (op === "close") {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      setImmediate(() => process.exit(0));
    }
    return {};
  });
}

/**
 * The bare servers answer every request with one body, the last one they were given (`body`
 * over IPC, see `control`); a GET /events waits for the next
 * POST /typing, or answers at once if one came since the last, as an event queue would.
 */
function bareHandler(initialBody: string) {
  let body = initialBody;
  const waiting: ((text: string) => void)[] = [];
  let queued = 0;
  const handle = (url: string, send: (text: string) => void) => {
    if (url.startsWith("/api/v1/events")) {
      if (queued) {
        queued = 0;
        send(body);
      } else waiting.push(send);
      return;
    }
    if (url.startsWith("/api/v1/typing")) {
      if (waiting.length) waiting.splice(0).forEach((w) => w(body));
      else queued++;
    }
    send(body);
  };
  /** The ops of a bare server: `body <text>` sets what it answers from then on. */
  const control = (op: string): Reply => {
    if (op === "close") setImmediate(() => process.exit(0));
    if (op.startsWith("body ")) body = op.slice("body ".length);
    return {};
  };
  return { handle, control };
}

async function bareNodeServer(body: string): Promise<void> {
  const { handle, control } = bareHandler(body);
  const server = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => handle(req.url ?? "/", (text) => res.writeHead(200, { "content-type": "application/json" }).end(text)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  serve({ url: `http://127.0.0.1:${port}`, auth: "", otherAuth: "", otherId: 0, myId: 0, body }, control);
}

async function bareFastifyServer(body: string): Promise<void> {
  const { default: Fastify } = await import("fastify");
  const { handle, control } = bareHandler(body);
  const server = Fastify();
  server.addContentTypeParser("*", { parseAs: "buffer" }, (_req, _body, done) => done(null, {}));
  server.all("/*", (req, reply) => handle(req.url, (text) => void reply.type("application/json").send(text)));
  await server.listen({ port: 0, host: "127.0.0.1" });
  const { port } = server.server.address() as { port: number };
  serve({ url: `http://127.0.0.1:${port}`, auth: "", otherAuth: "", otherId: 0, myId: 0, body }, control);
}

// ---------------------------------------------------------------------------------------------
// The parent: load and measurements.

type ServerHandle = Child<Ready>;

function startServer(mode: string, body = ""): Promise<ServerHandle> {
  return forkChild<Ready>(SELF, [mode, body]);
}

interface Load {
  rps: number;
  p99: number;
  cpuMicrosPerRequest: number;
  errors: number;
}

async function load(server: ServerHandle, target: Target, seconds: number, connections: number, profileDir?: string, label = target.name): Promise<Load> {
  if (profileDir) await server.call("profile start");
  const before = (await server.call("cpu")).cpuMicros as number;
  const result = await autocannon({
    url: server.ready.url + target.path,
    method: target.method,
    connections,
    duration: seconds,
    headers: {
      ...(server.ready.auth ? { authorization: server.ready.auth } : {}),
      ...(target.body ? { "content-type": "application/x-www-form-urlencoded" } : {}),
    },
    body: target.body,
  });
  const after = (await server.call("cpu")).cpuMicros as number;
  if (profileDir) await server.call(`profile ${profileFile(profileDir, label)}`);
  const requests = result.requests.total;
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuMicrosPerRequest: (after - before) / Math.max(1, requests),
    errors: (target.notFound ? 0 : result.non2xx) + result.errors + result.timeouts,
  };
}

/** Long-poll round trips, one at a time: POST /typing, and the waiting GET /events answers. */
async function roundTrips(server: ServerHandle, count: number): Promise<{ p50: number; p99: number }> {
  const post = (route: string, auth: string, params: Record<string, string>) =>
    fetch(`${server.ready.url}/api/v1${route}`, { method: "POST", headers: { authorization: auth }, body: new URLSearchParams(params) }).then((r) => r.json() as Promise<Reply>);
  let queueId = "";
  let lastEventId = -1;
  if (server.ready.auth) {
    const registered = await post("/register", server.ready.auth, { event_types: JSON.stringify(["typing"]), fetch_event_types: "[]" });
    queueId = registered.queue_id as string;
    lastEventId = registered.last_event_id as number;
  }
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const poll = fetch(`${server.ready.url}/api/v1/events?queue_id=${queueId}&last_event_id=${lastEventId}`, { headers: { authorization: server.ready.auth } }).then(
      (r) => r.json() as Promise<{ events?: { id: number }[] }>,
    );
    // Give the poll time to arrive and wait before the event is made.
    await new Promise((r) => setTimeout(r, 2));
    const t0 = performance.now();
    void post("/typing", server.ready.otherAuth, { op: i % 2 ? "stop" : "start", to: JSON.stringify([server.ready.myId]) });
    const answer = await poll;
    times.push(performance.now() - t0);
    if (server.ready.auth) lastEventId = Math.max(...answer.events!.map((e) => e.id));
  }
  times.sort((a, b) => a - b);
  return { p50: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
}

function option(args: string[], name: string, fallback: number): number {
  const arg = args.find((a) => a.startsWith(`--${name}=`));
  return arg ? Number(arg.slice(name.length + 3)) : fallback;
}

export async function run(args: string[]): Promise<void> {
  const seconds = option(args, "seconds", 5);
  const connections = option(args, "connections", 50);
  const rounds = Math.max(1, option(args, "rounds", 1));
  const only = args.find((a) => a.startsWith("--only="))?.slice("--only=".length);
  // A CPU profile of each server's process under each load, for scripts/cpuprofile-top.ts.
  const profileDir = args.find((a) => a.startsWith("--cpu-prof="))?.slice("--cpu-prof=".length);
  console.log(`HTTP hot path (autocannon, ${connections} connections, ${seconds} s each, ${rounds} round${rounds > 1 ? "s" : ""}; node ${process.version}; ${os.cpus().length} CPUs)`);

  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  buildConfab();
  const confab = await startServer("http-confab");
  const stream = encodeURIComponent(JSON.stringify([{ operator: "channel", operand: "bench" }]));
  const topic = encodeURIComponent(JSON.stringify([{ operator: "channel", operand: "bench" }, { operator: "topic", operand: "topic 3" }]));
  const targets: Target[] = [
    { name: "GET /users/me", method: "GET", path: "/api/v1/users/me" },
    { name: "GET /server_settings", method: "GET", path: "/api/v1/server_settings" },
    { name: "GET /users/me/alert_words", method: "GET", path: "/api/v1/users/me/alert_words" },
    { name: "unknown route (404)", method: "GET", path: "/api/v1/no/such/route", notFound: true },
    { name: "GET /messages 20 newest", method: "GET", path: "/api/v1/messages?anchor=newest&num_before=20&num_after=0" },
    { name: "GET /messages channel+topic", method: "GET", path: `/api/v1/messages?anchor=newest&num_before=20&num_after=0&narrow=${topic}` },
    { name: "GET /messages channel", method: "GET", path: `/api/v1/messages?anchor=newest&num_before=20&num_after=0&narrow=${stream}` },
    { name: "POST /messages (100 subscribers)", method: "POST", path: "/api/v1/messages", body: "type=stream&to=bench&topic=load&content=Hello+**there**%2C+a+load+test+message." },
    { name: "POST /register", method: "POST", path: "/api/v1/register" },
  ];
  const measured = targets.filter((t) => !only || t.path.includes(only) || t.name.includes(only));
  const bareNode = await startServer("http-bare-node", confab.ready.body);
  const bareFastify = await startServer("http-bare-fastify", confab.ready.body);
  const baselineTarget = targets[0];

  /** What Confab answers `target` with, for the bare server to answer with too. */
  const answerOf = async (target: Target) => {
    const headers = { authorization: confab.ready.auth, ...(target.body ? { "content-type": "application/x-www-form-urlencoded" } : {}) };
    return (await fetch(confab.ready.url + target.path, { method: target.method, headers, body: target.body })).text();
  };

  /**
   * Loads `server` right after the bare Node server (answering the same request with `body`),
   * `rounds` times: medians of both, and of the ratio.
   */
  const paired = async (server: ServerHandle, target: Target, label: string, body: string) => {
    await bareNode.call(`body ${body}`);
    const pairs: { bare: Load; load: Load }[] = [];
    for (let round = 0; round < rounds; round++) {
      const bare = await load(bareNode, target, seconds, connections);
      // Profiled in the last round only: one profile per label, as scripts/cpuprofile-top.ts reads them.
      pairs.push({ bare, load: await load(server, target, seconds, connections, round === rounds - 1 ? profileDir : undefined, label) });
    }
    const ratios = pairs.map((p) => p.load.rps / p.bare.rps);
    return { bare: medianLoad(pairs.map((p) => p.bare)), load: medianLoad(pairs.map((p) => p.load)), ratio: median(ratios) };
  };

  const confabLoads = new Map<string, Paired>();
  for (const target of measured) confabLoads.set(target.name, await paired(confab, target, target.name, await answerOf(target)));
  const fastifyLoad = await paired(bareFastify, baselineTarget, "bare Fastify", confab.ready.body);
  const rss = (await confab.call("cpu")).rss as number;
  const trips = { Confab: await roundTrips(confab, 300), "bare Node http": await roundTrips(bareNode, 300), "bare Fastify": await roundTrips(bareFastify, 300) };
  for (const server of [confab, bareNode, bareFastify]) await closeChild(server);

  const row = (name: string, p: Paired) =>
    `  ${name.padEnd(36)} ${p.load.rps.toFixed(0).padStart(8)} req/s   p99 ${String(p.load.p99).padStart(5)} ms   cpu ${p.load.cpuMicrosPerRequest
      .toFixed(0)
      .padStart(6)} µs/req   ${(100 * p.ratio).toFixed(0).padStart(4)}% of bare Node (${p.bare.rps.toFixed(0)} req/s, ${p.bare.cpuMicrosPerRequest.toFixed(0)} µs/req beside it)${p.load.errors ? `   ${p.load.errors} errors!` : ""}`;
  console.log(`\nbaseline (GET /users/me's body; bare Node loaded before each row, ${rounds} round${rounds > 1 ? "s, medians" : ""}):`);
  console.log(row("bare Fastify", fastifyLoad));
  console.log("\nConfab (SQLite, 100 users, 1,000 messages; bare Node answering each request with Confab's body for it):");
  for (const target of measured) console.log(row(target.name, confabLoads.get(target.name)!));
  console.log(`  idle-after-load RSS ${(rss / 1024 / 1024).toFixed(1)} MiB`);
  console.log("\nlong-poll round trip (POST /typing → waiting GET /events answers), 300 in a row:");
  for (const [name, t] of Object.entries(trips)) console.log(`  ${name.padEnd(16)} p50 ${t.p50.toFixed(2)} ms   p99 ${t.p99.toFixed(2)} ms`);
}

interface Paired {
  bare: Load;
  load: Load;
  ratio: number;
}

function median(values: readonly number[]): number {
  return percentile([...values].sort((a, b) => a - b), 50);
}

/** Each figure's median over the rounds; errors are summed, since any is worth showing. */
function medianLoad(loads: readonly Load[]): Load {
  return {
    rps: median(loads.map((l) => l.rps)),
    p99: median(loads.map((l) => l.p99)),
    cpuMicrosPerRequest: median(loads.map((l) => l.cpuMicrosPerRequest)),
    errors: loads.reduce((sum, l) => sum + l.errors, 0),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const [mode, body] = process.argv.slice(2);
  if (mode === "http-confab") await confabServer();
  else if (mode === "http-bare-node") await bareNodeServer(body);
  else if (mode === "http-bare-fastify") await bareFastifyServer(body);
}
