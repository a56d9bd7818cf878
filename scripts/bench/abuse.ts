/**
 * `npm run bench -- abuse [--repeat=3]`:
 *   Sends the worst inputs we know of to a production-mode Confab (SQLite) in a child process and
 *   reports, for each, the slowest answer and the longest event-loop stall the server saw while
 *   handling it (`monitorEventLoopDelay` and a 5 ms ticker in the server process). The baseline is GET /users/me,
 *   measured in the same run. Target: no stall over 100 ms. Rate limits are off in the server so
 *   that every input reaches the code that handles it.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { forkChild, type Reply } from "./lib.js";

const SELF = fileURLToPath(import.meta.url);
const PASSWORD = "a fine bench password";

interface Account {
  email: string;
  apiKey: string;
}
interface Ready {
  url: string;
  owner: Account;
  member: Account;
  /** The channel the member is subscribed to. */
  channel: string;
}

// ---------------------------------------------------------------------------------------------
// The server process.

async function serve(): Promise<void> {
  const { loadConfig } = await import("../../src/config.js");
  const { startConfab } = await import("../../src/server.js");
  const { createRealm } = await import("../../src/actions/realms.js");
  const { runAction } = await import("../../src/actions/run.js");
  const { createUserInTx } = await import("../../src/actions/users.js");
  const { Role } = await import("../../src/domain/roles.js");

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-bench-abuse-"));
  const config = loadConfig({ CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent", CONFAB_RATE_LIMITING: "0" }, { port: 0 });
  const running = await startConfab(config);
  const realm = await createRealm(running.app, { stringId: "bench", name: "Bench" });
  const person = (email: string, role: number) =>
    runAction(running.app, async (tx) => {
      const u = await createUserInTx(tx, running.app, realm, { email, fullName: email.split("@")[0], role, password: PASSWORD });
      return { id: u.id, email: u.delivery_email, apiKey: u.api_key };
    });
  const owner = await person("owner@bench.example.com", Role.OWNER);
  const member = await person("member@bench.example.com", Role.MEMBER);
  const auth = (a: Account) => "Basic " + Buffer.from(`${a.email}:${a.apiKey}`).toString("base64");
  const res = await fetch(`${running.url}/api/v1/users/me/subscriptions`, {
    method: "POST",
    headers: { authorization: auth(owner) },
    body: new URLSearchParams({ subscriptions: JSON.stringify([{ name: "Denmark" }]), principals: JSON.stringify([owner.id, member.id]) }),
  });
  if (!res.ok) throw new Error(`subscribing failed: ${res.status} ${await res.text()}`);

  // Node 20's monitorEventLoopDelay can miss one long block, so a 5 ms ticker measures gaps too.
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let lastTick = performance.now();
  let longestGap = 0;
  setInterval(() => {
    const now = performance.now();
    longestGap = Math.max(longestGap, now - lastTick - 5);
    lastTick = now;
  }, 5).unref();
  process.on("message", async (msg: { id: number; op: string }) => {
    let reply: Reply = {};
    if (msg.op === "reset") {
      delay.reset();
      longestGap = 0;
    }
    if (msg.op === "stall") reply = { maxMs: Math.max(delay.max / 1e6, longestGap) };
    if (msg.op === "close") {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      setImmediate(() => process.exit(0));
    }
    process.send!({ id: msg.id, ...reply });
  });
  process.send!({ id: 0, url: running.url, owner, member, channel: "Denmark" });
}

// ---------------------------------------------------------------------------------------------
// The attacker.

interface Handle extends Ready {
  call(op: string): Promise<Reply>;
}

async function startServer(): Promise<Handle> {
  const server = await forkChild<Ready>(SELF, ["serve"]);
  return { ...server.ready, call: server.call };
}

interface Case {
  label: string;
  method: string;
  route: string;
  params: Record<string, string>;
  as?: "owner" | "member";
}

const json = (v: unknown) => JSON.stringify(v);
const nested = (depth: number, line: string) => Array.from({ length: depth }, () => line).join("");

function cases(h: Handle): Case[] {
  const render = (label: string, content: string): Case => ({ label: `render: ${label}`, method: "POST", route: "/messages/render", params: { content }, as: "member" });
  return [
    { label: "baseline: GET /users/me", method: "GET", route: "/users/me", params: {}, as: "member" },
    { label: "login: a@ + 40,000 dots + @", method: "POST", route: "/fetch_api_key", params: { username: "a@" + ".".repeat(40_000) + "@", password: "x" } },
    { label: "login: a@ + 80,000 dots + @", method: "POST", route: "/fetch_api_key", params: { username: "a@" + ".".repeat(80_000) + "@", password: "x" } },
    { label: "login: wrong password, known email", method: "POST", route: "/fetch_api_key", params: { username: h.member.email, password: "wrong" } },
    { label: "login: unknown email", method: "POST", route: "/fetch_api_key", params: { username: "nobody@bench.example.com", password: "wrong" } },
    render("```quote × 1,111", "```quote\n".repeat(1111)),
    render("[ × 10,000", "[".repeat(10_000)),
    render("> × 5,000 (nested quotes)", "> ".repeat(5_000) + "x"),
    render("nested lists × 2,500", Array.from({ length: 2_500 }, (_, i) => " ".repeat(i * 2) + "- x").join("\n").slice(0, 10_000)),
    render("* × 10,000", "*".repeat(10_000)),
    render("** a × 3,300", "**a ".repeat(2_500)),
    render("~~~spoiler × 900", "~~~spoiler x\n".repeat(769)),
    render("$$ × 5,000", "$$".repeat(5_000)),
    render("( × 10,000 after a link", "[a](" + "(".repeat(9_990)),
    render("@** × 3,300", "@**".repeat(3_333)),
    render(":a: × 3,300", ":a:".repeat(3_333)),
    render("| table of 1,000 rows", "|a|b|\n|-|-|\n" + "|x|y|\n".repeat(1_600)),
    render("` × 10,000", "`".repeat(10_000)),
    render("_ × 10,000", "_".repeat(10_000)),
    render("\\t × 10,000", "\t".repeat(10_000) + "x"),
    render("http:// × 1,400", "http://a.b ".repeat(900)),
    { label: "send: ```quote × 1,111", method: "POST", route: "/messages", params: { type: "stream", to: h.channel, topic: "t", content: "```quote\n".repeat(1111) }, as: "member" },
    { label: "alert words: add 50,000", method: "POST", route: "/users/me/alert_words", params: { alert_words: json(Array.from({ length: 50_000 }, (_, i) => `word${i}`)) }, as: "member" },
    { label: "send to the alert-word user's channel", method: "POST", route: "/messages", params: { type: "stream", to: h.channel, topic: "t", content: "word1 word2 hello" }, as: "owner" },
    { label: "alert words: remove 33,000", method: "DELETE", route: "/users/me/alert_words", params: { alert_words: json(Array.from({ length: 33_000 }, (_, i) => `word${i}`)) }, as: "member" },
    { label: "search: 999 words", method: "GET", route: "/messages", params: { anchor: "newest", num_before: "10", num_after: "0", narrow: json([{ operator: "search", operand: Array.from({ length: 999 }, (_, i) => `w${i}`).join(" ") }]) }, as: "member" },
    { label: "timezone: 1 MB", method: "PATCH", route: "/settings", params: { timezone: "A".repeat(1_000_000) }, as: "member" },
    { label: "500 user ids beyond int32", method: "GET", route: "/users", params: { user_ids: json(Array.from({ length: 500 }, (_, i) => 2_147_483_600 + i)) }, as: "member" },
    { label: "flags for 100,000 message ids", method: "POST", route: "/messages/flags", params: { messages: json(Array.from({ length: 100_000 }, (_, i) => i + 1)), op: "add", flag: "read" }, as: "member" },
    { label: "JSON nested 100,000 deep", method: "POST", route: "/messages/flags", params: { messages: nested(100_000, "[") + nested(100_000, "]"), op: "add", flag: "read" }, as: "member" },
    { label: "1 MB topic", method: "POST", route: "/messages", params: { type: "stream", to: h.channel, topic: "t".repeat(1_000_000), content: "x" }, as: "member" },
  ];
}

async function send(h: Handle, c: Case): Promise<{ status: number; ms: number }> {
  const account = c.as === "owner" ? h.owner : c.as === "member" ? h.member : undefined;
  const headers: Record<string, string> = {};
  if (account) headers.authorization = "Basic " + Buffer.from(`${account.email}:${account.apiKey}`).toString("base64");
  const form = new URLSearchParams(c.params);
  const url = `${h.url}/api/v1${c.route}${c.method === "GET" ? `?${form}` : ""}`;
  const started = performance.now();
  const res = await fetch(url, { method: c.method, headers, body: c.method === "GET" ? undefined : form });
  await res.arrayBuffer();
  return { status: res.status, ms: performance.now() - started };
}

export async function run(args: string[]): Promise<void> {
  const repeat = Number(args.find((a) => a.startsWith("--repeat="))?.split("=")[1] ?? 3);
  const h = await startServer();
  const rows: { label: string; status: number; ms: number; stallMs: number }[] = [];
  try {
    const [baseline] = cases(h);
    for (let i = 0; i < 50; i++) await send(h, baseline);
    for (const c of cases(h)) {
      let worst = { status: 0, ms: 0 };
      let stallMs = 0;
      for (let i = 0; i < repeat; i++) {
        await h.call("reset");
        const r = await send(h, c);
        stallMs = Math.max(stallMs, Number((await h.call("stall")).maxMs));
        if (r.ms > worst.ms) worst = r;
      }
      rows.push({ label: c.label, ...worst, stallMs });
    }
  } finally {
    await h.call("close");
  }
  const baseline = rows[0];
  const pad = (s: string, n: number) => s.padEnd(n);
  console.log(`${pad("input", 44)} ${pad("status", 6)} ${"slowest ms".padStart(10)} ${"stall ms".padStart(9)} ${"× baseline".padStart(11)}`);
  for (const r of rows) {
    const ratio = (r.ms / baseline.ms).toFixed(1);
    console.log(`${pad(r.label, 44)} ${pad(String(r.status), 6)} ${r.ms.toFixed(1).padStart(10)} ${r.stallMs.toFixed(1).padStart(9)} ${ratio.padStart(11)}`);
  }
  const slowest = rows.reduce((a, b) => (b.ms > a.ms ? b : a));
  const longest = rows.reduce((a, b) => (b.stallMs > a.stallMs ? b : a));
  console.log(`\nslowest request: ${slowest.label}: ${slowest.ms.toFixed(1)} ms (baseline ${baseline.ms.toFixed(1)} ms)`);
  console.log(`longest event-loop stall: ${longest.label}: ${longest.stallMs.toFixed(1)} ms (target: under 100 ms)`);
}

if (process.argv[2] === "serve") await serve();
