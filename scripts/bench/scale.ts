/**
 * `npm run bench -- scale [--messages=10000,1000000] [--sampled=50] [--requests=200] [--only=register] [--cpu-prof=DIR]`:
 *   Builds a large organization directly in the database with set-based SQL (10,000 members,
 *   1,000 channels, 100 subscriptions each, N messages of which 10% are direct messages), starts
 *   a production-mode Confab (tsc's build, as `npm start` runs it) on it in a child process, and
 *   times common requests (those whose label contains `--only`'s text, if given) from one client
 *   sending them one after another: p50 and p99 after a warm-up, and the server's CPU time per
 *   request. SQLite always; PostgreSQL too
 *   when CONFAB_BENCH_PG_URL names an administrative connection (a database is created for each
 *   run and dropped after).
 *
 *   Confab stores one user_messages row per recipient of a message. At a million messages with
 *   about a thousand subscribers each that would be a billion rows, so only a sample of members
 *   (the first `--sampled` users, the measured ones among them) get rows for channel messages;
 *   the others are like Zulip's soft-deactivated users, who have none until they come back.
 *   Every direct message has rows for both of its participants.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { freshPgDatabase } from "../../test/helpers/pg_database.js";
import { buildConfab, closeChild, confabModule, forkChild, insertMembers, percentile, profileFile, serveIpc, type BenchUser, type Child } from "./lib.js";

const SELF = fileURLToPath(import.meta.url);

const USERS = 10_000;
/** Channels besides `general`, which every member is in and which the realm starts with. */
const OTHER_CHANNELS = 999;
const SUBSCRIPTIONS_PER_USER = 100;
/** A prime above every hash input's range; `h(x) = x * 2654435761 % HASH_MOD` spreads consecutive ids. */
const HASH_MOD = 1_000_003;
const SEARCH_WORD = "kumquat";
const GENERAL_TOPIC = "discussion 3";

interface Counts {
  users: number;
  streams: number;
  subscriptions: number;
  messages: number;
  user_messages: number;
}

interface Ready {
  url: string;
  /** The member whose requests are timed: in 100 channels, with real copies of their messages. */
  member: BenchUser;
  /** The member's direct-message partner. */
  partner: BenchUser;
  generalId: number;
  generationSecs: number;
  counts: Counts;
  bytes: number;
  sampled: number;
}

// ---------------------------------------------------------------------------------------------
// The server process: generates the organization, then serves.

type Sql = (text: string) => Promise<Record<string, unknown>[]>;

/** Bulk loads are faster without secondary indexes: drops them and returns what rebuilds them. */
async function dropIndexes(run: Sql, dialect: string, table: string): Promise<() => Promise<void>> {
  const rows =
    dialect === "postgres"
      ? await run(
          `SELECT indexname AS name, indexdef AS sql FROM pg_indexes WHERE schemaname = current_schema() AND tablename = '${table}'
           AND indexname NOT IN (SELECT conname FROM pg_constraint)`,
        )
      : await run(`SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = '${table}' AND sql IS NOT NULL`);
  for (const r of rows) await run(`DROP INDEX "${r.name}"`);
  return async () => {
    for (const r of rows) await run(String(r.sql));
  };
}

async function serve(messageCount: number, sampled: number, databaseUrl: string): Promise<void> {
  const { sql } = await import("kysely");
  const { loadConfig } = await confabModule<typeof import("../../src/config.js")>("config.js");
  const { startConfab } = await confabModule<typeof import("../../src/server.js")>("server.js");
  const { createRealm } = await confabModule<typeof import("../../src/actions/realms.js")>("actions/realms.js");
  const { runAction } = await confabModule<typeof import("../../src/actions/run.js")>("actions/run.js");
  const { createStreamInTx } = await confabModule<typeof import("../../src/actions/streams.js")>("actions/streams.js");
  const { FLAG_BITS } = await confabModule<typeof import("../../src/domain/message_flags.js")>("domain/message_flags.js");

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-bench-scale-"));
  const env: NodeJS.ProcessEnv = { CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent", CONFAB_RATE_LIMITING: "0" };
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  const running = await startConfab(loadConfig(env, { port: 0 }));
  const app = running.app;
  const dialect = app.dialect;
  const realm = await createRealm(app, { stringId: "bench", name: "Bench" });
  const generalId = realm.props.new_stream_announcements_stream_id as number;

  const started = performance.now();
  const users = await insertMembers(app, realm, USERS);
  const u0 = users[0].id;
  if (users.some((u, i) => u.id !== u0 + i)) throw new Error("member ids are not consecutive");
  const channels = await runAction(app, async (tx) => {
    const made = [];
    for (let i = 1; i <= OTHER_CHANNELS; i++) made.push(await createStreamInTx(tx, app, realm, null, { name: `channel ${String(i).padStart(3, "0")}` }));
    return made;
  });
  const s0 = channels[0].id;
  if (channels.some((c, i) => c.id !== s0 + i)) throw new Error("channel ids are not consecutive");

  const read = FLAG_BITS.read;
  const dmFlags = FLAG_BITS.is_private;
  const now = Math.floor(Date.now() / 1000);
  const n = messageCount;
  const firstId = 1 + Number((await sql<{ m: number | null }>`SELECT max(id) AS m FROM messages`.execute(app.db)).rows[0].m ?? 0);
  // The newest 1% are unread, as in an organization whose members keep up.
  const unreadFrom = firstId + Math.floor(n * 0.99);
  const seq = (count: number) =>
    dialect === "postgres"
      ? `seq(i) AS (SELECT generate_series(0, ${count - 1}))`
      : `seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < ${count})`;

  // One connection throughout, so that PostgreSQL's session setting holds for every statement.
  await app.db.connection().execute(async (db) => {
    const run: Sql = async (text) => (await sql.raw<Record<string, unknown>>(text).execute(db)).rows;
    // Every row is valid by construction; PostgreSQL need not check each foreign key one by one.
    if (dialect === "postgres") await run(`SET session_replication_role = replica`);

    // Everyone is in general; the other 99 channels of a member are consecutive from a start
    // skewed towards the first channels, so that channel sizes range from hundreds to thousands.
    await run(`INSERT INTO subscriptions (user_id, stream_id, active, color, props)
      SELECT id, ${generalId}, 1, '#76ce90', '{}' FROM users WHERE id BETWEEN ${u0} AND ${u0 + USERS - 1}`);
    await run(`WITH RECURSIVE ${seq(SUBSCRIPTIONS_PER_USER - 1)},
      member AS (SELECT id, (id * 2654435761) % ${HASH_MOD} AS h FROM users WHERE id BETWEEN ${u0} AND ${u0 + USERS - 1})
      INSERT INTO subscriptions (user_id, stream_id, active, color, props)
      SELECT member.id, ${s0} + ((member.h * member.h / ${HASH_MOD}) * ${OTHER_CHANNELS} / ${HASH_MOD} + seq.i) % ${OTHER_CHANNELS},
        1, '#e79ab5', '{}'
      FROM member CROSS JOIN seq`);

    // Messages: every tenth goes to general and every tenth is a direct message; the rest go to
    // channels skewed towards the popular first ones. One direct message in twenty is between
    // the measured member and their partner (users 0 and 1), the others between a random member
    // and one of their 50 correspondents.
    const restoreMessageIndexes = await dropIndexes(run, dialect, "messages");
    await run(`WITH RECURSIVE ${seq(n)},
      h AS (SELECT i, i / 10 AS j, (i * 2654435761 + 17) % ${HASH_MOD} AS h1, (CAST(i AS BIGINT) * 40503 + 7) % ${HASH_MOD} AS h2 FROM seq),
      pick AS (SELECT i, h2,
        CASE WHEN i % 10 = 9 THEN NULL WHEN i % 10 = 0 THEN ${generalId}
             ELSE ${s0} + (h1 * h1 / ${HASH_MOD}) * ${OTHER_CHANNELS} / ${HASH_MOD} END AS sid,
        CASE WHEN i % 10 = 9 AND j % 20 = 0 THEN ${u0} + (j / 20) % 2 ELSE ${u0} + h2 % ${USERS} END AS sender,
        CASE WHEN i % 10 <> 9 THEN NULL WHEN j % 20 = 0 THEN ${u0 + 1} - (j / 20) % 2
             ELSE ${u0} + (h2 % ${USERS} + 1 + j % 50) % ${USERS} END AS dm_to,
        CASE i % 8
          WHEN 0 THEN 'Deploy ' || i || ' finished; the staging numbers look fine to me.'
          WHEN 1 THEN 'Can someone review the change for ticket ' || (i % 5000) || ' before Friday?'
          WHEN 2 THEN 'I moved the meeting to Thursday afternoon, same room as last week.'
          WHEN 3 THEN 'The dashboard shows ' || (i % 900) || ' errors since this morning, looking into it.'
          WHEN 4 THEN 'Thanks, that fixed it. I will update the documentation as well.'
          WHEN 5 THEN 'Lunch order is in the shared sheet; add yours by eleven please.'
          WHEN 6 THEN 'Release notes draft ' || (i % 300) || ' is ready for comments.'
          ELSE 'Sounds good, let us pick this up again tomorrow morning.' END
        || CASE WHEN i % 97 = 3 THEN ' The ${SEARCH_WORD} shipment is late again.' ELSE '' END AS body
        FROM h)
      INSERT INTO messages (id, realm_id, sender_id, recipient_id, stream_id, topic, dm_key, content, rendered_content, client, date_sent)
      SELECT ${firstId} + pick.i, ${realm.id}, pick.sender, COALESCE(s.recipient_id, r.id), pick.sid,
        CASE WHEN pick.sid IS NULL THEN '' ELSE 'discussion ' || ((pick.h2 / ${USERS}) % (10 + (pick.sid * 37) % 41)) END,
        CASE WHEN pick.sid IS NOT NULL THEN NULL
             WHEN pick.sender < pick.dm_to THEN pick.sender || ',' || pick.dm_to ELSE pick.dm_to || ',' || pick.sender END,
        pick.body, '<p>' || pick.body || '</p>', 'website', ${now} - (${n} - pick.i) * 30
      FROM pick
      LEFT JOIN streams s ON s.id = pick.sid
      LEFT JOIN recipients r ON r.type = 1 AND r.type_id = pick.dm_to
      ORDER BY pick.i`);
    await restoreMessageIndexes();

    // The copies below are chosen by joins; PostgreSQL plans them well only with statistics.
    if (dialect === "postgres") await run(`ANALYZE messages, subscriptions, recipients`);
    const restoreCopyIndexes = await dropIndexes(run, dialect, "user_messages");
    for (let a = u0; a < u0 + sampled; a++) {
      await run(`INSERT INTO user_messages (user_id, message_id, flags)
        SELECT ${a}, m.id, CASE WHEN m.id >= ${unreadFrom} AND m.sender_id <> ${a} THEN 0 ELSE ${read} END
        FROM subscriptions s JOIN messages m ON m.stream_id = s.stream_id
        WHERE s.user_id = ${a} ORDER BY m.id`);
    }
    await run(`INSERT INTO user_messages (user_id, message_id, flags)
      SELECT sender_id, id, ${dmFlags | read} FROM messages WHERE dm_key IS NOT NULL`);
    await run(`INSERT INTO user_messages (user_id, message_id, flags)
      SELECT r.type_id, m.id, CASE WHEN m.id >= ${unreadFrom} THEN ${dmFlags} ELSE ${dmFlags | read} END
      FROM messages m JOIN recipients r ON r.id = m.recipient_id WHERE m.dm_key IS NOT NULL`);
    await restoreCopyIndexes();

    await run(`UPDATE streams SET first_message_id = (SELECT min(id) FROM messages WHERE messages.stream_id = streams.id)
      WHERE realm_id = ${realm.id}`);
    if (dialect === "postgres") {
      await run(`RESET session_replication_role`);
      // Explicit ids leave the sequence behind.
      await run(`SELECT setval(pg_get_serial_sequence('messages', 'id'), (SELECT max(id) FROM messages))`);
      // An organization this size has had its old rows vacuumed and its statistics gathered.
      // Left to autovacuum, the gigabyte just written is vacuumed while requests are timed.
      await run(`VACUUM (ANALYZE)`);
    } else {
      await run(`PRAGMA wal_checkpoint(TRUNCATE)`);
    }
  });
  const generationSecs = (performance.now() - started) / 1000;

  const count = async (table: string) =>
    Number((await sql<{ n: number }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(app.db)).rows[0].n);
  const counts: Counts = {
    users: await count("users"),
    streams: await count("streams"),
    subscriptions: await count("subscriptions"),
    messages: await count("messages"),
    user_messages: await count("user_messages"),
  };
  const size = async () => {
    if (dialect === "postgres") {
      return Number((await sql<{ n: number }>`SELECT pg_database_size(current_database()) AS n`.execute(app.db)).rows[0].n);
    }
    const file = path.join(dataDir, "confab.sqlite3");
    return [file, `${file}-wal`].reduce((sum, f) => sum + (fs.existsSync(f) ? fs.statSync(f).size : 0), 0);
  };

  serveIpc(async (op) => {
    if (op === "size") return { bytes: await size() };
    if (op === "close") {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      setImmediate(() => process.exit(0));
      return {};
    }
    throw new Error(`unknown op ${op}`);
  });
  const ready: Ready = {
    url: running.url,
    member: users[0],
    partner: users[1],
    generalId,
    generationSecs,
    counts,
    bytes: await size(),
    sampled,
  };
  process.send!({ id: 0, ...ready });
}

// ---------------------------------------------------------------------------------------------
// The parent: one client, one request at a time.

interface Timing {
  p50: number;
  p99: number;
  /** The server's CPU time per timed request, which other work on the machine barely moves. */
  cpuMs: number;
  /** What a successful answer held (messages returned), to show the results are real. */
  note: string;
  failures: string[];
}

interface Case {
  label: string;
  method: "GET" | "POST";
  route: string;
  params: () => Record<string, string>;
  /** A short description of a successful answer. */
  describe?: (body: Record<string, unknown>) => string;
}

function cases(r: Ready): Case[] {
  const newest = (narrow: unknown[]) => () => ({ anchor: "newest", num_before: "20", num_after: "0", narrow: JSON.stringify(narrow) });
  const returned = (body: Record<string, unknown>) => `${(body.messages as unknown[]).length} messages`;
  let sent = 0;
  return [
    { label: "GET /messages channel (general)", method: "GET", route: "/messages", params: newest([{ operator: "channel", operand: r.generalId }]), describe: returned },
    {
      label: "GET /messages channel+topic",
      method: "GET",
      route: "/messages",
      params: newest([
        { operator: "channel", operand: r.generalId },
        { operator: "topic", operand: GENERAL_TOPIC },
      ]),
      describe: returned,
    },
    { label: `GET /messages search "${SEARCH_WORD}"`, method: "GET", route: "/messages", params: newest([{ operator: "search", operand: SEARCH_WORD }]), describe: returned },
    { label: `GET /messages search "thursday room"`, method: "GET", route: "/messages", params: newest([{ operator: "search", operand: "thursday room" }]), describe: returned },
    { label: `GET /messages search "${SEARCH_WORD} absent"`, method: "GET", route: "/messages", params: newest([{ operator: "search", operand: `${SEARCH_WORD} absent` }]), describe: returned },
    { label: "GET /messages dm (one user)", method: "GET", route: "/messages", params: newest([{ operator: "dm", operand: [r.partner.id] }]), describe: returned },
    {
      label: "POST /register (100 channels)",
      method: "POST",
      route: "/register",
      params: () => ({}),
      describe: (b) => `${(b.subscriptions as unknown[] | undefined)?.length ?? "?"} subscriptions, ${(b.unread_msgs as { count?: number } | undefined)?.count ?? "?"} unread`,
    },
    {
      // As zulip-terminal registers: every visible channel comes with its subscribers.
      label: "POST /register include_subscribers",
      method: "POST",
      route: "/register",
      params: () => ({ include_subscribers: "true" }),
      describe: (b) => `${((b.never_subscribed as { subscribers: unknown[] }[] | undefined) ?? []).reduce((n, c) => n + c.subscribers.length, 0).toLocaleString("en")} subscriber ids of channels not subscribed to`,
    },
    {
      label: "POST /messages to general (10k members)",
      method: "POST",
      route: "/messages",
      params: () => ({ type: "stream", to: "general", topic: "scale benchmark", content: `Scale benchmark message ${++sent}.` }),
    },
  ];
}

/** Times one case; with `profile`, the server's CPU profile of its timed requests goes to that file. */
async function time(server: Child<Ready>, c: Case, warmup: number, requests: number, profile?: string): Promise<Timing> {
  const r = server.ready;
  const auth = "Basic " + Buffer.from(`${r.member.email}:${r.member.key}`).toString("base64");
  const durations: number[] = [];
  const failures: string[] = [];
  let note = "";
  let cpuBefore = 0;
  for (let i = 0; i < warmup + requests; i++) {
    if (i === warmup) {
      if (profile) await server.call("profile start");
      cpuBefore = Number((await server.call("cpu")).cpuMicros);
    }
    const form = new URLSearchParams(c.params());
    const url = `${r.url}/api/v1${c.route}${c.method === "GET" ? `?${form}` : ""}`;
    const startedAt = performance.now();
    const res = await fetch(url, { method: c.method, headers: { authorization: auth }, body: c.method === "GET" ? undefined : form });
    const text = await res.text();
    const ms = performance.now() - startedAt;
    if (res.status !== 200) {
      if (failures.length < 3) failures.push(`${res.status} ${text.slice(0, 300)}`);
      continue;
    }
    if (!note && c.describe) note = c.describe(JSON.parse(text));
    if (i >= warmup) durations.push(ms);
  }
  const cpuMs = (Number((await server.call("cpu")).cpuMicros) - cpuBefore) / 1000 / requests;
  if (profile) await server.call(`profile ${profile}`);
  durations.sort((a, b) => a - b);
  return { p50: durations.length ? percentile(durations, 50) : NaN, p99: durations.length ? percentile(durations, 99) : NaN, cpuMs, note, failures };
}


interface Column {
  title: string;
  ready: Ready;
  bytes: number;
  timings: Map<string, Timing>;
}

interface RunOptions {
  sampled: number;
  requests: number;
  /** Only the cases whose label contains this. */
  only?: string;
  pgAdmin?: string;
  profileDir?: string;
}

async function runOne(title: string, messages: number, { sampled, requests, only, pgAdmin, profileDir }: RunOptions): Promise<Column> {
  const database = pgAdmin ? await freshPgDatabase(pgAdmin, "confab_bench_scale") : undefined;
  try {
    console.log(`\n${title}: generating…`);
    const server: Child<Ready> = await forkChild<Ready>(SELF, ["serve", String(messages), String(sampled), database?.url ?? ""]);
    try {
      const r = server.ready;
      console.log(
        `${title}: generated in ${r.generationSecs.toFixed(1)} s: ` +
          Object.entries(r.counts).map(([k, v]) => `${v.toLocaleString("en")} ${k}`).join(", ") +
          `; ${mib(r.bytes)}`,
      );
      const timings = new Map<string, Timing>();
      for (const c of cases(r).filter((c) => !only || c.label.includes(only))) {
        const t = await time(server, c, 20, requests, profileDir && profileFile(profileDir, `${title} ${c.label}`));
        timings.set(c.label, t);
        console.log(`  ${c.label.padEnd(42)} p50 ${fmt(t.p50)} ms  p99 ${fmt(t.p99)} ms  cpu ${fmt(t.cpuMs)} ms/req  ${t.note}`);
        for (const f of t.failures) console.log(`    FAILED: ${f}`);
      }
      const bytes = Number((await server.call("size")).bytes);
      return { title, ready: r, bytes, timings };
    } finally {
      await closeChild(server);
    }
  } finally {
    await database?.drop();
  }
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
const fmt = (ms: number) => (Number.isNaN(ms) ? "—" : ms.toFixed(1)).padStart(7);
const short = (n: number) => (n >= 1_000_000 ? `${n / 1_000_000}M` : n >= 1000 ? `${n / 1000}k` : String(n));

function printTable(columns: Column[]): void {
  const rows: [string, (c: Column) => string][] = [
    ["generation time", (c) => `${c.ready.generationSecs.toFixed(1)} s`],
    ["database size (after runs)", (c) => mib(c.bytes)],
    ...(Object.keys(columns[0].ready.counts) as (keyof Counts)[]).map(
      (k): [string, (c: Column) => string] => [`rows: ${k}`, (c) => c.ready.counts[k].toLocaleString("en")],
    ),
    ...[...columns[0].timings.keys()].map((label): [string, (c: Column) => string] => [
      `${label} p50/p99 ms`,
      (c) => {
        const t = c.timings.get(label)!;
        return t.failures.length ? `FAILED` : `${t.p50.toFixed(1)} / ${t.p99.toFixed(1)}`;
      },
    ]),
  ];
  const width = Math.max(...rows.map(([l]) => l.length));
  console.log(`\n${"".padEnd(width)}  ${columns.map((c) => c.title.padStart(16)).join("")}`);
  for (const [label, cell] of rows) console.log(`${label.padEnd(width)}  ${columns.map((c) => cell(c).padStart(16)).join("")}`);
}

export async function run(args: string[]): Promise<void> {
  const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.split("=")[1];
  const sizes = (option("messages") ?? "10000,1000000").split(",").map(Number);
  const sampled = Number(option("sampled") ?? 50);
  const requests = Number(option("requests") ?? 200);
  const only = option("only");
  const pgAdmin = process.env.CONFAB_BENCH_PG_URL;
  // A CPU profile of the server for each case's timed requests, for scripts/cpuprofile-top.ts.
  const profileDir = option("cpu-prof");
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  buildConfab();
  console.log(
    `Scale benchmark: ${USERS.toLocaleString("en")} members, ${OTHER_CHANNELS + 1} channels, ${SUBSCRIPTIONS_PER_USER} subscriptions each ` +
      `(general has everyone), 10% direct messages; node ${process.version}; ${os.cpus().length} CPUs.\n` +
      `Sampled copies: only the first ${sampled} members have user_messages rows for channel messages (the others are like ` +
      `Zulip's soft-deactivated users); direct messages have rows for both participants. The measured member (user 0) ` +
      `has every row they would really have. One client, sequential requests: 20 warm-up, then ${requests} timed.`,
  );
  const columns: Column[] = [];
  const databases: [string, string | undefined][] = [["SQLite", undefined]];
  if (pgAdmin) databases.push(["PG", pgAdmin]);
  for (const [name, admin] of databases) {
    for (const n of sizes) columns.push(await runOne(`${short(n)} ${name}`, n, { sampled, requests, only, pgAdmin: admin, profileDir }));
  }
  printTable(columns);
}

// The server under test runs as a child process of this same module.
if (process.argv[1] && path.resolve(process.argv[1]) === SELF && process.argv[2] === "serve") await serve(Number(process.argv[3]), Number(process.argv[4]), process.argv[5] ?? "");
