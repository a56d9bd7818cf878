/**
 * Shared by the benchmarks that run Confab in a child process: the IPC between the two
 * processes, members created in bulk, and percentiles.
 */
import fs from "node:fs";
import path from "node:path";
import inspector from "node:inspector";
import { execFileSync, fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { AppContext } from "../../src/context.js";
import type { Realm } from "../../src/store/realms.js";

export type Reply = Record<string, unknown>;

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Compiles Confab as `npm start` runs it: tsc's output in dist/. */
export function buildConfab(): void {
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
}

/**
 * A module of Confab as `npm start` runs it, from dist/ (built by the parent with buildConfab).
 * Through tsx, every nested function would pay for esbuild's name-keeping helper each time it is
 * created: in a request that walks a thousand channels, that was most of some functions' time.
 */
export function confabModule<T>(module: string): Promise<T> {
  return import(path.join(ROOT, "dist/src", module)) as Promise<T>;
}

/** CPU profiles of one stretch of work each, taken in the child's own process. */
function profiler() {
  const session = new inspector.Session();
  session.connect();
  const post = (method: string) =>
    new Promise<Reply>((resolve, reject) => session.post(method, (err, result) => (err ? reject(err) : resolve((result ?? {}) as Reply))));
  return {
    start: async () => {
      await post("Profiler.enable");
      await post("Profiler.start");
    },
    stop: async (file: string) => fs.writeFileSync(file, JSON.stringify((await post("Profiler.stop")).profile)),
  };
}

/**
 * In the child: answers the parent's `{id, op}` requests; `{id: 0, ...}` is sent by the caller
 * when ready. Every child also answers "cpu" (its CPU time so far, and its RSS), and "profile
 * start" and then "profile FILE", which writes the CPU profile of what it did in between (read it
 * with scripts/cpuprofile-top.ts).
 */
export function serveIpc(handle: (op: string) => Promise<Reply> | Reply): void {
  const profiles = profiler();
  process.on("message", async (msg: { id: number; op: string }) => {
    let reply: Reply = {};
    if (msg.op === "cpu") {
      const { user, system } = process.cpuUsage();
      reply = { cpuMicros: user + system, rss: process.memoryUsage().rss };
    } else if (msg.op === "profile start") await profiles.start();
    else if (msg.op.startsWith("profile ")) await profiles.stop(msg.op.slice("profile ".length));
    else reply = await handle(msg.op);
    process.send!({ id: msg.id, ...reply });
  });
}

/** Where the profile of one measured case goes: `dir/<its label, as a file name>.cpuprofile`. */
export function profileFile(dir: string, label: string): string {
  return path.resolve(dir, label.replace(/[^a-z0-9]+/gi, "_") + ".cpuprofile");
}

export interface Child<Ready> {
  ready: Ready;
  call(op: string): Promise<Reply>;
  child: ChildProcess;
}

/** Forks `module` (run through tsx) with `args` and waits for its `{id: 0, ...}` ready message. */
export function forkChild<Ready>(module: string, args: string[]): Promise<Child<Ready>> {
  const child = fork(module, args, { execArgv: ["--import", "tsx", ...(process.env.BENCH_CHILD_IMPORT ? ["--import", process.env.BENCH_CHILD_IMPORT] : [])], stdio: ["ignore", "inherit", "inherit", "ipc"] });
  let next = 1;
  const pending = new Map<number, (reply: Reply) => void>();
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args[0] ?? module} exited with ${code}`)));
    child.on("message", (msg: Reply & { id: number }) => {
      if (msg.id !== 0) {
        pending.get(msg.id)?.(msg);
        pending.delete(msg.id);
        return;
      }
      resolve({
        ready: msg as unknown as Ready,
        child,
        call: (op) =>
          new Promise((done) => {
            const id = next++;
            pending.set(id, done);
            child.send({ id, op });
          }),
      });
    });
  });
}

/** Asks the child to close and waits until it has exited. */
export async function closeChild(c: Child<unknown>): Promise<void> {
  const exited = new Promise((resolve) => c.child.once("exit", resolve));
  await c.call("close");
  await exited;
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export interface BenchUser {
  id: number;
  /** The delivery email, which Basic authentication takes. */
  email: string;
  key: string;
}

/**
 * `count` members (`user<n>@bench.example.com`) inserted in bulk, with the rows createUserInTx
 * gives a member: their settings, a placeholder email when addresses are hidden, a personal
 * recipient and the system groups of a full member. Ids come out consecutive, in order.
 */
export async function insertMembers(app: AppContext, realm: Realm, count: number): Promise<BenchUser[]> {
  const { sql } = await import("kysely");
  const { generateApiKey } = await import("../../src/security/credentials.js");
  const { storedRealmDefaults } = await import("../../src/actions/user_settings.js");
  const { EMAIL_ADDRESS_VISIBILITY } = await import("../../src/domain/realm_settings.js");
  const { addGroupMembers, systemGroupIds } = await import("../../src/store/groups.js");
  const visibility = realm.props.email_address_visibility;
  const props = JSON.stringify({ ...storedRealmDefaults(realm), email_address_visibility: visibility });
  const system = await systemGroupIds(app.db, realm.id);
  const users: BenchUser[] = [];
  for (let start = 0; start < count; start += 500) {
    const batch = Array.from({ length: Math.min(500, count - start) }, (_, i) => {
      const email = `user${start + i}@bench.example.com`;
      return {
        realm_id: realm.id,
        email,
        delivery_email: email,
        full_name: `User ${start + i}`,
        role: 400,
        is_active: 1 as const,
        is_bot: 0 as const,
        bot_type: null,
        bot_owner_id: null,
        is_system_bot: 0 as const,
        api_key: generateApiKey(),
        password_hash: null,
        date_joined: Math.floor(Date.now() / 1000) - 365 * 86400,
        timezone: "",
        presence_enabled: 1 as const,
        props,
      };
    });
    const rows = await app.db.insertInto("users").values(batch).returning(["id", "delivery_email", "api_key"]).execute();
    const ids = rows.map((r) => r.id);
    if (visibility !== EMAIL_ADDRESS_VISIBILITY.EVERYONE) {
      await app.db
        .updateTable("users")
        .set({ email: sql<string>`'user' || id || ${"@" + app.config.fakeEmailDomain}` })
        .where("id", "in", ids)
        .execute();
    }
    await app.db.insertInto("recipients").values(ids.map((id) => ({ type: 1, type_id: id }))).execute();
    await addGroupMembers(app.db, system.get("role:members")!, ids);
    await addGroupMembers(app.db, system.get("role:fullmembers")!, ids);
    for (const r of rows) users.push({ id: r.id, email: r.delivery_email, key: r.api_key });
  }
  return users;
}
