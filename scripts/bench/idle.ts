/**
 * `npm run bench -- idle [--wait=5]`: Confab's memory at idle (issue 11's budget: 80 MB after
 * the first start). Confab runs as `npm start` runs it, `node dist/src/main.js` built by tsc, on
 * a fresh SQLite data directory, started twice: the first start applies the migrations and
 * creates the first organization, the second finds them done. Each time, once the server answers
 * GET /api/v1/server_settings and `--wait` seconds more have passed, the bench prints the kernel's
 * figures (VmRSS, and its anonymous and file-backed parts) and V8's heap in use, beside a bare
 * Node `http` server started the same way in the same run.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** Each process prints its V8 figures on SIGUSR2; nothing else is added to what it loads. */
const REPORT_HEAP = `data:text/javascript,process.on("SIGUSR2",()=>process.stderr.write("HEAP "+JSON.stringify(process.memoryUsage())+"\\n"))`;
const BARE_SERVER = `require("node:http").createServer((q,s)=>s.end("{}")).listen(0,"127.0.0.1",function(){console.log("listening on http://127.0.0.1:"+this.address().port)})`;

interface Figures {
  rss: number;
  anon: number;
  file: number;
  heapUsed: number;
}

async function measure(args: string[], env: NodeJS.ProcessEnv, probe: string, waitSeconds: number): Promise<Figures> {
  const child = spawn(process.execPath, ["--import", REPORT_HEAP, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        const found = / on (http:\/\/[^\s)]+)/.exec(out);
        if (found) resolve(found[1]);
      });
      child.once("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}: ${out}`)));
    });
    const res = await fetch(url + probe);
    if (!res.ok) throw new Error(`GET ${probe}: ${res.status}`);
    await res.arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000));
    const status = fs.readFileSync(`/proc/${child.pid}/status`, "utf8");
    const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)![1]) * 1024;
    const heap = await heapOf(child);
    return { rss: kb("VmRSS"), anon: kb("RssAnon"), file: kb("RssFile"), heapUsed: heap.heapUsed };
  } finally {
    child.kill();
  }
}

function heapOf(child: ChildProcess): Promise<NodeJS.MemoryUsage> {
  return new Promise((resolve) => {
    let err = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      err += chunk.toString();
      const found = /^HEAP (.*)$/m.exec(err);
      if (found) resolve(JSON.parse(found[1]));
    });
    child.kill("SIGUSR2");
  });
}

export async function run(args: string[]): Promise<void> {
  const waitSeconds = Number(args.find((a) => a.startsWith("--wait="))?.slice("--wait=".length) ?? 5);
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "confab-bench-idle-"));
  const confab = { CONFAB_DATA_DIR: dataDir, PORT: "0" };
  try {
    const bare = await measure(["-e", BARE_SERVER], {}, "/", waitSeconds);
    const first = await measure(["dist/src/main.js"], confab, "/api/v1/server_settings", waitSeconds);
    const second = await measure(["dist/src/main.js"], confab, "/api/v1/server_settings", waitSeconds);
    const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1).padStart(6)} MiB`;
    console.log(`Idle memory ${waitSeconds} s after the first answer (node ${process.version})`);
    const row = (name: string, f: Figures) =>
      console.log(
        `  ${name.padEnd(20)} VmRSS ${mb(f.rss)}  (anon ${mb(f.anon)}, file ${mb(f.file)})   V8 heap used ${mb(f.heapUsed)}   ${(f.rss / bare.rss).toFixed(2)}× bare`,
      );
    row("bare Node http", bare);
    row("Confab, first start", first);
    row("Confab, second start", second);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
