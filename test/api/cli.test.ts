/**
 * The built management CLI and `main.js --dev`, run as child processes against the same
 * database as a test server (SQLite file or PostgreSQL database).
 */
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { startTestServer, type TestServer } from "../helpers/server.js";
import { Api } from "../helpers/client.js";
import { getRealmByStringId } from "../../src/store/realms.js";
import { USAGE } from "../../src/cli/manage.js";

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, "../..");
let srv: TestServer;
let api: Api;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

async function cli(args: string[], entry = "dist/src/cli/manage.js"): Promise<Result> {
  const env = {
    ...process.env,
    CONFAB_DATA_DIR: srv.dataDir,
    DATABASE_URL: srv.app.config.databaseUrl ?? "",
    CONFAB_EXTERNAL_URL: "https://chat.example.com",
  };
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(ROOT, entry), ...args], { env, cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

before(async () => {
  const build = spawnSync(process.execPath, [path.join(ROOT, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"], { cwd: ROOT, encoding: "utf8" });
  assert.equal(build.status, 0, build.stdout + build.stderr);
  srv = await startTestServer();
  api = new Api(srv.url);
});
after(() => srv.close());

describe("management CLI", () => {
  test("create-realm creates an organization with its system groups, bots and first channel", async () => {
    const r = await cli(["create-realm", "--string-id", "acme", "--name", "Acme Corp"]);
    assert.equal(r.code, 0, r.stderr);
    const realm = (await getRealmByStringId(srv.app.db, "acme"))!;
    assert.equal(r.stdout, `Created organization 'Acme Corp' (string id 'acme', id ${realm.id}).\n`);
    assert.equal(realm.name, "Acme Corp");
    const groups = await srv.app.db.selectFrom("user_groups").select("name").where("realm_id", "=", realm.id).where("is_system_group", "=", 1).execute();
    assert.equal(groups.length, 8);
  });

  test("create-realm refuses bad or taken string ids and names", async () => {
    const cases: [string[], string][] = [
      [["--string-id", "acme", "--name", "Other"], "Subdomain unavailable. Please choose a different one."],
      [["--string-id", "ab", "--name", "X"], "Subdomain needs to have length 3 or greater."],
      [["--string-id", "Bad_Id", "--name", "X"], "Subdomain can only have lowercase letters, numbers, and '-'s."],
      [["--string-id", "fine", "--name", "  "], "The organization name can't be empty."],
      [["--string-id", "fine", "--name", "x".repeat(41)], "The organization name is too long (limit: 40 characters)."],
      [["--name", "X"], "missing --string-id"],
    ];
    for (const [args, msg] of cases) {
      const r = await cli(["create-realm", ...args]);
      assert.deepEqual([r.code, r.stderr, r.stdout], [1, `error: ${msg}\n`, ""], args.join(" "));
    }
    assert.equal(await getRealmByStringId(srv.app.db, "fine"), undefined);
  });

  test("create-user creates a user who can log in, with the role asked for", async () => {
    const r = await cli(["create-user", "--realm", "acme", "--email", "boss@acme.example.com", "--full-name", "The Boss", "--role", "owner", "--password", "s3cret-pass"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Created user boss@acme\.example\.com \(id \d+\) in organization 'acme'\.\n$/);
    const realm = (await getRealmByStringId(srv.app.db, "acme"))!;
    const user = await srv.app.db.selectFrom("users").selectAll().where("delivery_email", "=", "boss@acme.example.com").executeTakeFirstOrThrow();
    assert.deepEqual([user.realm_id, user.role, user.full_name, user.is_bot], [realm.id, 100, "The Boss", 0]);
    const general = await srv.app.db.selectFrom("streams").select("id").where("realm_id", "=", realm.id).where("name", "=", "general").executeTakeFirstOrThrow();
    const subs = await srv.app.db.selectFrom("subscriptions").select("stream_id").where("user_id", "=", user.id).execute();
    assert.deepEqual(subs.map((s) => s.stream_id), [general.id], "subscribed to the default channel");

    for (const [role, code] of [["admin", 200], ["moderator", 300], ["member", 400], ["guest", 600]] as const) {
      const c = await cli(["create-user", "--realm", "acme", "--email", `${role}@acme.example.com`, "--full-name", `A ${role}`, "--role", role]);
      assert.equal(c.code, 0, c.stderr);
      const row = await srv.app.db.selectFrom("users").select(["role", "password_hash"]).where("delivery_email", "=", `${role}@acme.example.com`).executeTakeFirstOrThrow();
      assert.equal(row.role, code);
      assert.equal(row.password_hash, null, "no password unless one is given");
    }
    const plain = await cli(["create-user", "--realm", "acme", "--email", "plain@acme.example.com", "--full-name", "Plain User"]);
    assert.equal(plain.code, 0, plain.stderr);
    const row = await srv.app.db.selectFrom("users").select("role").where("delivery_email", "=", "plain@acme.example.com").executeTakeFirstOrThrow();
    assert.equal(row.role, 400, "member by default");
  });

  test("--can-create-users grants the permission POST /users needs", async () => {
    const r = await cli(["create-user", "--realm", "acme", "--email", "hr@acme.example.com", "--full-name", "Human Resources", "--role", "admin", "--password", "hr-password", "--can-create-users"]);
    assert.equal(r.code, 0, r.stderr);
    const key = (await cli(["print-api-key", "--realm", "acme", "--email", "hr@acme.example.com"])).stdout.trim();
    const created = await api.as({ email: "hr@acme.example.com", apiKey: key }).post("/users", { email: "hired@acme.example.com", full_name: "New Hire", password: "welcome1" });
    assert.equal(created.body.result, "success");
  });

  test("--can-change-user-emails lets an owner change addresses", async () => {
    const r = await cli(["create-user", "--realm", "acme", "--email", "it@acme.example.com", "--full-name", "IT Desk", "--role", "owner", "--can-change-user-emails"]);
    assert.equal(r.code, 0, r.stderr);
    const key = (await cli(["print-api-key", "--realm", "acme", "--email", "it@acme.example.com"])).stdout.trim();
    const me = await api.as({ email: "it@acme.example.com", apiKey: key }).get("/users/me");
    const changed = await api.as({ email: "it@acme.example.com", apiKey: key }).patch(`/users/${me.body.user_id}`, { new_email: "desk@acme.example.com" });
    assert.equal(changed.body.result, "success", JSON.stringify(changed.body));
  });

  test("create-user refuses what POST /users refuses, and unknown organizations and roles", async () => {
    const cases: [string[], string][] = [
      [["--realm", "acme", "--email", "BOSS@acme.example.com", "--full-name", "Dup"], "Email 'BOSS@acme.example.com' already in use"],
      [["--realm", "acme", "--email", "nope", "--full-name", "Bad Email"], "Bad name or username"],
      [["--realm", "acme", "--email", "x@acme.example.com", "--full-name", "X"], "Name too short!"],
      [["--realm", "acme", "--email", "x@acme.example.com", "--full-name", "Weak", "--password", "123"], "The password is too weak."],
      [["--realm", "acme", "--email", "x@acme.example.com", "--full-name", "Xavier", "--role", "king"], "Invalid role 'king': use one of owner, admin, moderator, member, guest."],
      [["--realm", "nowhere", "--email", "x@acme.example.com", "--full-name", "Xavier"], "Organization 'nowhere' does not exist."],
      [["--realm", "acme", "--full-name", "Xavier"], "missing --email"],
    ];
    for (const [args, msg] of cases) {
      const r = await cli(["create-user", ...args]);
      assert.deepEqual([r.code, r.stderr], [1, `error: ${msg}\n`], args.join(" "));
    }
    const count = await srv.app.db.selectFrom("users").select("id").where("delivery_email", "=", "x@acme.example.com").execute();
    assert.equal(count.length, 0);
  });

  test("print-api-key prints the key the server accepts", async () => {
    const r = await cli(["print-api-key", "--realm", "acme", "--email", "Boss@Acme.example.com"]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^[A-Za-z0-9]{32}\n$/);
    const me = await api.as({ email: "boss@acme.example.com", apiKey: r.stdout.trim() }).get("/users/me");
    assert.equal(me.body.full_name, "The Boss");
    const missing = await cli(["print-api-key", "--realm", "acme", "--email", "ghost@acme.example.com"]);
    assert.deepEqual([missing.code, missing.stderr], [1, "error: No user with email 'ghost@acme.example.com' in organization 'acme'.\n"]);
  });

  test("write-zuliprc writes a zuliprc to a file or standard output", async () => {
    const key = (await cli(["print-api-key", "--realm", "acme", "--email", "boss@acme.example.com"])).stdout.trim();
    const expected = `[api]\nemail=boss@acme.example.com\nkey=${key}\nsite=https://chat.example.com\n`;
    const shown = await cli(["write-zuliprc", "--realm", "acme", "--email", "boss@acme.example.com"]);
    assert.equal(shown.stdout, expected);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-rc-"));
    try {
      const file = path.join(dir, "zuliprc");
      const written = await cli(["write-zuliprc", "--realm", "acme", "--email", "boss@acme.example.com", "--output", file]);
      assert.deepEqual([written.code, written.stdout], [0, `Wrote ${file}\n`]);
      assert.equal(fs.readFileSync(file, "utf8"), expected);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("usage: no command, help, unknown commands and options", async () => {
    const none = await cli([]);
    assert.deepEqual([none.code, none.stdout], [2, USAGE + "\n"]);
    const help = await cli(["--help"]);
    assert.deepEqual([help.code, help.stdout], [0, USAGE + "\n"]);
    const unknown = await cli(["frobnicate"]);
    assert.deepEqual([unknown.code, unknown.stderr], [2, `error: unknown command 'frobnicate'\n\n${USAGE}\n`]);
    const badOption = await cli(["print-api-key", "--realm", "acme", "--emial", "x"]);
    assert.equal(badOption.code, 2);
    assert.match(badOption.stderr, /^error: Unknown option '--emial'/);
  });

  test("bin/confab.js runs the same commands", async () => {
    const r = await cli(["print-api-key", "--realm", "acme", "--email", "boss@acme.example.com"], "bin/confab.js");
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^[A-Za-z0-9]{32}\n$/);
  });
});

describe("confab start", () => {
  const start = (args: string[], env: Record<string, string>) =>
    spawnSync(process.execPath, [path.join(ROOT, "bin/confab.js"), "start", ...args], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, PORT: "0", LOG_LEVEL: "warn", DATABASE_URL: "", CONFAB_REDIS_URL: "", ...env },
      timeout: 30_000,
    });

  test("several processes need Redis and PostgreSQL, and say so", () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-start-"));
    try {
      let r = start(["--processes", "2"], { CONFAB_DATA_DIR: dataDir });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /confab: several processes share their event queues through Redis: set CONFAB_REDIS_URL/);
      r = start(["--processes", "2"], { CONFAB_DATA_DIR: dataDir, CONFAB_REDIS_URL: "redis://127.0.0.1:1" });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /confab: several processes need PostgreSQL \(DATABASE_URL\)/);
      r = start(["--processes", "many"], { CONFAB_DATA_DIR: dataDir });
      assert.equal(r.status, 2);
      assert.match(r.stderr, /confab: --processes wants a whole number from 1 to 256, not "many"/);
      // Nothing was created on the way out.
      assert.deepEqual(fs.readdirSync(dataDir), []);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe("main.js --dev", () => {
  test("serves the freshly seeded development organization with development mode on", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-devmain-"));
    const child = spawn(process.execPath, [path.join(ROOT, "dist/src/main.js"), "--dev"], {
      cwd: ROOT,
      env: { ...process.env, PORT: "0", CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "info", DATABASE_URL: "postgres://ignored.invalid/x" },
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on("data", () => {
          const m = /Confab is serving \S+ on (http:\/\/\S+) \(database: sqlite\)/.exec(out);
          if (m) resolve(m[1]);
        });
        child.on("exit", (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
      const dev = new Api(url);
      const list = await dev.get("/dev_list_users");
      assert.deepEqual(list.body.direct_admins.map((u: { email: string }) => u.email), ["iago@zulip.com", "desdemona@zulip.com"]);
      const login = await dev.post("/fetch_api_key", { username: "hamlet@zulip.com", password: "zulipdev" });
      assert.equal(login.body.result, "success");
      assert.ok(fs.existsSync(path.join(dataDir, "confab.sqlite3")));

      // Each request is one log line; a refused one says why.
      const refused = await dev.post("/fetch_api_key", { username: "hamlet@zulip.com", password: "wrong" });
      assert.equal(refused.status, 401);
      const deadline = Date.now() + 5000;
      const refusalLine = () =>
        out
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l.route === "/api/v1/fetch_api_key" && l.status === 401);
      while (!refusalLine() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.deepEqual(
        { ...refusalLine(), time: undefined, duration_ms: undefined },
        { level: 30, time: undefined, method: "POST", route: "/api/v1/fetch_api_key", status: 401, duration_ms: undefined, user_id: null, error_code: refused.body.code, error: refused.body.msg },
      );
      const success = out.split("\n").find((l) => l.includes('"/api/v1/dev_list_users"'));
      assert.ok(success && !success.includes("error"), success);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
