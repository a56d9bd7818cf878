/**
 * `npm run bench -- events [--clients=1000,10000]`:
 *   N clients (one user each, all subscribed to one channel) register an event queue and
 *   long-poll it; once the server holds all N, one of them sends a channel message with
 *   POST /messages, which Confab stores for all N and fans out. Reports p50/p99 delivery latency
 *   and the server's resident memory, and the same fan-out on a baseline: a bare Node HTTP
 *   server holding N long-polls and answering them all. Servers run in child processes (so
 *   their memory is theirs alone); clients run here. Loopback only.
 */
import http from "node:http";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { closeChild, forkChild, insertMembers, percentile, serveIpc, type BenchUser, type Child, type Reply } from "./lib.js";

const SELF = fileURLToPath(import.meta.url);
const wallClockMs = () => performance.timeOrigin + performance.now();
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

// ---------------------------------------------------------------------------------------------
// Child processes: the servers under test. They talk to the parent over IPC.

/** A message event like the one a channel message produces. */
function channelMessage(id: number) {
  const content = "The quarterly numbers are in. " + "Details follow in the usual place. ".repeat(8);
  return {
    id,
    type: "stream",
    stream_id: 1,
    display_recipient: "general",
    subject: "announcements",
    sender_id: 1,
    sender_email: "owner@bench.example.com",
    sender_full_name: "Bench Owner",
    sender_realm_str: "bench",
    avatar_url: "https://secure.gravatar.com/avatar/0123456789abcdef?d=identicon&version=1",
    client: "website",
    content,
    rendered_content: `<p>${content}</p>`,
    recipient_id: 10,
    timestamp: Math.floor(Date.now() / 1000),
    topic_links: [],
    is_me_message: false,
    reactions: [],
    submessages: [],
    sender_email_address_visibility: 1,
  };
}

async function confabServer(clients: number): Promise<void> {
  const { loadConfig } = await import("../../src/config.js");
  const { startConfab } = await import("../../src/server.js");
  const { createRealm } = await import("../../src/actions/realms.js");
  const { runAction } = await import("../../src/actions/run.js");
  const { createStreamInTx } = await import("../../src/actions/streams.js");

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-bench-"));
  const config = loadConfig({ CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent" }, { port: 0 });
  const running = await startConfab(config);
  const realm = await createRealm(running.app, { stringId: "bench", name: "Bench" });
  const users = await insertMembers(running.app, realm, clients);
  // Every client's user is subscribed to one channel; the message is a real POST /messages to it.
  const channel = await runAction(running.app, (tx) => createStreamInTx(tx, running.app, realm, null, { name: "bench" }));
  for (let start = 0; start < users.length; start += 500) {
    await running.app.db
      .insertInto("subscriptions")
      .values(users.slice(start, start + 500).map((u) => ({ user_id: u.id, stream_id: channel.id, active: 1 as const, color: "#76ce90", props: "{}" })))
      .execute();
  }
  const sender = users[0];
  const auth = "Basic " + Buffer.from(`${sender.email}:${sender.key}`).toString("base64");
  let messageId = 0;
  serveIpc(async (op) => {
    if (op === "stats") return { ...(await running.app.eventQueues.stats()), rss: process.memoryUsage().rss };
    if (op === "publish") {
      const body = new URLSearchParams({ type: "stream", to: "bench", topic: "announcements", content: channelMessage(++messageId).content });
      const t0 = wallClockMs();
      const res = await fetch(`${running.url}/api/v1/messages`, { method: "POST", headers: { authorization: auth }, body });
      if (!res.ok) throw new Error(`POST /messages failed: ${res.status} ${await res.text()}`);
      return { t0, publishMs: wallClockMs() - t0 };
    }
    if (op === "close") {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      setImmediate(() => process.exit(0));
      return {};
    }
    throw new Error(`unknown op ${op}`);
  });
  process.send!({ id: 0, url: running.url, users });
}

async function baselineServer(): Promise<void> {
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    held.push(res);
  });
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  serveIpc(async (op) => {
    if (op === "stats") return { queues: held.length, waiting: held.length, rss: process.memoryUsage().rss };
    if (op === "publish") {
      const t0 = wallClockMs();
      const message = channelMessage(1);
      for (const res of held.splice(0)) {
        const body = JSON.stringify({ result: "success", msg: "", events: [{ type: "message", message, flags: [], id: 0 }] });
        res.writeHead(200, { "content-type": "application/json" }).end(body + "\n");
      }
      return { t0, publishMs: wallClockMs() - t0 };
    }
    if (op === "close") {
      server.close();
      setImmediate(() => process.exit(0));
      return {};
    }
    throw new Error(`unknown op ${op}`);
  });
  process.send!({ id: 0, url: `http://127.0.0.1:${port}`, users: [] });
}

// ---------------------------------------------------------------------------------------------
// The parent: clients and measurements.

interface Ready {
  url: string;
  users: BenchUser[];
}
type ServerHandle = Child<Ready>;

function startServer(mode: string, clients: number): Promise<ServerHandle> {
  return forkChild<Ready>(SELF, [mode, String(clients)]);
}

const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });

function request(url: string, method: string, auth: string | undefined, body?: string): Promise<{ status: number; text: string; at: number }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (auth) headers.authorization = auth;
    if (body) headers["content-type"] = "application/x-www-form-urlencoded";
    const req = http.request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString(), at: wallClockMs() }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(run));
}

async function untilWaiting(server: ServerHandle, count: number): Promise<Reply> {
  for (;;) {
    const stats = await server.call("stats");
    if ((stats.waiting as number) >= count) return stats;
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface FanOut {
  p50: number;
  p99: number;
  max: number;
  rssHolding: number;
  publishMs: number;
  setupSecs: number;
}

/** Holds `clients` long-polls on the server, publishes once, and times every delivery. */
async function measure(server: ServerHandle, clients: number, confab: boolean): Promise<FanOut> {
  const setupStart = performance.now();
  const targets: { url: string; auth?: string }[] = [];
  if (confab) {
    await inBatches(server.ready.users, 200, async (u) => {
      const auth = "Basic " + Buffer.from(`${u.email}:${u.key}`).toString("base64");
      const r = await request(`${server.ready.url}/api/v1/register`, "POST", auth, "event_types=%5B%22message%22%5D&fetch_event_types=%5B%5D");
      if (r.status !== 200) throw new Error(`register failed: ${r.text}`);
      const queueId = JSON.parse(r.text).queue_id;
      targets.push({ url: `${server.ready.url}/api/v1/events?queue_id=${queueId}&last_event_id=-1`, auth });
    });
  } else {
    for (let i = 0; i < clients; i++) targets.push({ url: `${server.ready.url}/poll/${i}` });
  }
  const responses: Promise<{ status: number; text: string; at: number }>[] = [];
  // Connect in steps so the listen backlog never overflows.
  for (let i = 0; i < targets.length; i += 1000) {
    for (const t of targets.slice(i, i + 1000)) responses.push(request(t.url, "GET", t.auth));
    await untilWaiting(server, Math.min(i + 1000, targets.length));
  }
  const stats = await untilWaiting(server, clients);
  const setupSecs = (performance.now() - setupStart) / 1000;
  const { t0, publishMs } = (await server.call("publish")) as { t0: number; publishMs: number };
  const done = await Promise.all(responses);
  for (const r of done) {
    if (r.status !== 200 || !r.text.includes('"type":"message"')) throw new Error(`bad delivery: ${r.status} ${r.text.slice(0, 200)}`);
  }
  const latencies = done.map((r) => r.at - t0).sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    max: latencies[latencies.length - 1],
    rssHolding: stats.rss as number,
    publishMs,
    setupSecs,
  };
}

async function runOne(mode: "confab" | "baseline", clients: number): Promise<FanOut> {
  const server = await startServer(mode === "confab" ? "events-confab-server" : "events-baseline-server", clients);
  try {
    return await measure(server, clients, mode === "confab");
  } finally {
    await closeChild(server);
  }
}

function openFileLimit(): number {
  try {
    return Number(execSync("ulimit -n", { shell: "/bin/sh" }).toString().trim());
  } catch {
    return Infinity;
  }
}

async function benchEvents(args: string[]): Promise<void> {
  const option = args.find((a) => a.startsWith("--clients="));
  const sizes = (option ? option.slice("--clients=".length) : "1000,10000").split(",").map(Number);
  const limit = openFileLimit();
  console.log(`Event fan-out benchmark (loopback; node ${process.version}; ${os.cpus().length} CPUs; open-file limit ${limit})`);
  for (const clients of sizes) {
    // Each long-poll is one socket in this process and one in the server's.
    if (limit < clients + 500) {
      console.log(`\nN=${clients}: skipped, needs "ulimit -n" of at least ${clients + 500} (now ${limit}).`);
      continue;
    }
    const confab = await runOne("confab", clients);
    const baseline = await runOne("baseline", clients);
    const row = (name: string, r: FanOut) =>
      `  ${name.padEnd(9)} p50 ${r.p50.toFixed(1).padStart(8)} ms   p99 ${r.p99.toFixed(1).padStart(8)} ms   max ${r.max
        .toFixed(1)
        .padStart(8)} ms   server RSS ${mib(r.rssHolding).padStart(10)}   publish ${r.publishMs.toFixed(1)} ms   setup ${r.setupSecs.toFixed(1)} s`;
    console.log(`\nN=${clients} long-polls, one message fanned out to all:`);
    console.log(row("confab", confab));
    console.log(row("baseline", baseline));
  }
}

export async function run(args: string[]): Promise<void> {
  await benchEvents(args);
}

// The servers under test run as child processes of this same module.
if (process.argv[1] && path.resolve(process.argv[1]) === SELF) {
  const [mode, clients] = process.argv.slice(2);
  if (mode === "events-confab-server") await confabServer(Number(clients));
  else if (mode === "events-baseline-server") await baselineServer();
}
