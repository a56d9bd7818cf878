/**
 * Three Confab processes on one PostgreSQL and one Redis, behind a round-robin proxy: clients
 * register on one process and poll whichever the proxy picks; senders post through it too. One
 * process is killed with SIGKILL mid-run and started again. Runs when CONFAB_TEST_PG_URL and
 * CONFAB_TEST_REDIS_URL are both set (the CI's Redis pass).
 */
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { setMaxListeners } from "node:events";
import { loadConfig } from "../../src/config.js";
import { openAppContext } from "../../src/server.js";
import { createRealm } from "../../src/actions/realms.js";
import { createStreamInTx } from "../../src/actions/streams.js";
import { runAction } from "../../src/actions/run.js";
import { insertMembers, type BenchUser } from "../../scripts/bench/lib.js";
import { freshPgDatabase } from "../helpers/pg_database.js";
import { freePort, startConfabProcess, startRoundRobinProxy, type ConfabProcess, type Proxy } from "../helpers/cluster.js";

const pgAdmin = process.env.CONFAB_TEST_PG_URL;
const redisUrl = process.env.CONFAB_TEST_REDIS_URL;
const skip = !pgAdmin || !redisUrl ? "needs CONFAB_TEST_PG_URL and CONFAB_TEST_REDIS_URL" : false;

const CLIENTS = 200;
const SENDERS = 20;
const MESSAGES = 2000;
const CHANNELS = 20;
/** Each user's channels; the rest of the traffic is direct messages. */
const CHANNELS_PER_USER = 2;
/** After this many acknowledged messages, one process is killed. */
const KILL_AFTER = 700;

let database: { url: string; drop(): Promise<void> };
let dataDir: string;
let env: Record<string, string>;
let processes: ConfabProcess[] = [];
let proxy: Proxy;
let users: BenchUser[];
const channelsOf = new Map<number, string[]>();

before(async () => {
  if (skip) return;
  database = await freshPgDatabase(pgAdmin!);
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-cluster-"));
  env = { DATABASE_URL: database.url, CONFAB_REDIS_URL: redisUrl!, CONFAB_REDIS_KEY_PREFIX: `test-${randomUUID()}`, CONFAB_DATA_DIR: dataDir };
  // The organization is made directly in the database, before any process serves it.
  const config = loadConfig({ CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent" }, { databaseUrl: database.url });
  const { app, close } = await openAppContext(config);
  const realm = await createRealm(app, { stringId: "cluster", name: "Cluster" });
  users = await insertMembers(app, realm, CLIENTS);
  const channels: { id: number; name: string }[] = [];
  for (let i = 0; i < CHANNELS; i++) {
    const stream = await runAction(app, (tx) => createStreamInTx(tx, app, realm, null, { name: `channel ${i}` }));
    channels.push({ id: stream.id, name: `channel ${i}` });
  }
  const rows = users.flatMap((u, n) =>
    Array.from({ length: CHANNELS_PER_USER }, (_, k) => {
      const channel = channels[(n + k * 7) % CHANNELS];
      channelsOf.set(u.id, [...(channelsOf.get(u.id) ?? []), channel.name]);
      return { user_id: u.id, stream_id: channel.id, active: 1 as const, color: "#76ce90", props: "{}" };
    }),
  );
  await app.db.insertInto("subscriptions").values(rows).execute();
  await close();

  const ports = await Promise.all([0, 1, 2].map(() => freePort()));
  for (const port of ports) processes.push(await startConfabProcess(port, env));
  proxy = await startRoundRobinProxy(ports);
});

after(async () => {
  if (skip) return;
  await proxy?.close();
  for (const p of processes) p.child.kill("SIGKILL");
  await Promise.all(processes.map((p) => p.exited));
  await database.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

const auth = (u: BenchUser) => "Basic " + Buffer.from(`${u.email}:${u.key}`).toString("base64");

/** One request through the proxy; a gateway error (the process died under it) is tried again. */
async function call(u: BenchUser, method: string, route: string, params: Record<string, string> = {}, signal?: AbortSignal) {
  for (;;) {
    const query = new URLSearchParams(params).toString();
    const url = `${proxy.url}/api/v1${route}${method === "GET" && query ? `?${query}` : ""}`;
    try {
      const res = await fetch(url, { method, headers: { authorization: auth(u) }, body: method === "GET" ? undefined : new URLSearchParams(params), signal });
      if (res.status === 502) continue;
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    } catch (err) {
      if (signal?.aborted) throw err;
    }
  }
}

interface Listener {
  user: BenchUser;
  registered: boolean;
  received: number[];
  badQueue: number;
  /** Event ids that did not follow the one before. */
  gaps: string[];
}

/** Registers, then long-polls until stopped, recording what arrives. */
async function listen(me: Listener, stop: AbortSignal): Promise<void> {
  const user = me.user;
  const reg = await call(user, "POST", "/register", { event_types: JSON.stringify(["message"]) });
  assert.equal(reg.status, 200, JSON.stringify(reg.body));
  const queueId = reg.body.queue_id as string;
  let last = reg.body.last_event_id as number;
  me.registered = true;
  while (!stop.aborted) {
    let r;
    try {
      r = await call(user, "GET", "/events", { queue_id: queueId, last_event_id: String(last) }, stop);
    } catch {
      break;
    }
    if (r.body.code === "BAD_EVENT_QUEUE_ID") {
      me.badQueue++;
      break;
    }
    assert.equal(r.status, 200, JSON.stringify(r.body));
    for (const e of r.body.events as { id: number; type: string; message?: { id: number } }[]) {
      if (e.id !== last + 1) me.gaps.push(`${last} -> ${e.id}`);
      last = e.id;
      if (e.type === "message") me.received.push(e.message!.id);
    }
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("clients polling any process get every message event once, in order, through a process's death", { skip, timeout: 600_000 }, async () => {
  const stop = new AbortController();
  // Every long-poll's fetch listens on this one signal and lets go only when it is collected:
  // thousands of listeners, each warned about in the log, are expected here.
  setMaxListeners(0, stop.signal);
  const listeners: Listener[] = users.map((user) => ({ user, registered: false, received: [], badQueue: 0, gaps: [] }));
  const listening = Promise.all(listeners.map((l) => listen(l, stop.signal)));
  while (!listeners.every((l) => l.registered)) await sleep(100);

  const acknowledged = new Map<number, { sender: number }>();
  let sent = 0;
  let killed: ConfabProcess | undefined;
  const senders = users.slice(0, SENDERS);
  await Promise.all(
    senders.map(async (sender, s) => {
      for (let i = 0; i < MESSAGES / SENDERS; i++) {
        const n = s * 1000 + i;
        const params: Record<string, string> =
          n % 3 === 2
            ? { type: "direct", to: JSON.stringify([users[(n * 13) % CLIENTS].id]), content: `dm ${n}` }
            : { type: "stream", to: channelsOf.get(sender.id)![n % CHANNELS_PER_USER], topic: `topic ${n % 5}`, content: `message ${n}` };
        const r = await call(sender, "POST", "/messages", params);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        acknowledged.set(r.body.id as number, { sender: sender.id });
        if (++sent === KILL_AFTER) {
          killed = processes[1];
          killed.child.kill("SIGKILL");
          await killed.exited;
          processes[1] = await startConfabProcess(killed.port, env);
        }
      }
    }),
  );
  assert.ok(killed, "a process was killed mid-run");
  assert.equal(acknowledged.size, MESSAGES);

  // What each user should have got: the stored messages of this run that reach them.
  const config = loadConfig({ CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent" }, { databaseUrl: database.url });
  const { app, close } = await openAppContext(config);
  const stored = await app.db.selectFrom("user_messages").innerJoin("messages", "messages.id", "user_messages.message_id").select(["user_messages.user_id", "messages.id", "messages.sender_id"]).execute();
  await close();
  const expected = new Map<number, Set<number>>();
  const senderOf = new Map<number, number>();
  for (const row of stored) {
    senderOf.set(row.id, row.sender_id);
    if (!expected.has(row.user_id)) expected.set(row.user_id, new Set());
    expected.get(row.user_id)!.add(row.id);
  }
  for (const id of acknowledged.keys()) assert.ok(senderOf.has(id), `acknowledged message ${id} is stored`);

  // Every client gets every acknowledged message meant for it; then they stop.
  const caughtUp = () =>
    listeners.every((l) => {
      const have = new Set(l.received);
      return [...(expected.get(l.user.id) ?? [])].every((id) => !acknowledged.has(id) || have.has(id));
    });
  const deadline = Date.now() + 120_000;
  while (!caughtUp() && Date.now() < deadline) await sleep(250);
  stop.abort();
  await listening;

  let events = 0;
  for (const l of listeners) {
    const mine = expected.get(l.user.id) ?? new Set<number>();
    assert.equal(l.badQueue, 0, `${l.user.email} lost its queue`);
    assert.deepEqual(l.gaps, [], `${l.user.email}'s event ids follow each other`);
    assert.equal(new Set(l.received).size, l.received.length, `${l.user.email} got no message twice`);
    for (const id of l.received) assert.ok(mine.has(id), `${l.user.email} got only its own messages (${id})`);
    for (const id of mine) if (acknowledged.has(id)) assert.ok(l.received.includes(id), `${l.user.email} got acknowledged message ${id}`);
    // One sender's messages arrive in the order they were sent.
    const lastBySender = new Map<number, number>();
    for (const id of l.received) {
      const sender = senderOf.get(id)!;
      assert.ok((lastBySender.get(sender) ?? 0) < id, `${l.user.email} got ${sender}'s messages in order`);
      lastBySender.set(sender, id);
    }
    events += l.received.length;
  }
  assert.ok(events > MESSAGES, `fan-out delivered ${events} message events`);
});
