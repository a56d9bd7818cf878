// Runs every test file with Node's test runner (TypeScript through tsx).
// `--pg` runs the same suite against PostgreSQL: CONFAB_TEST_PG_URL must name an admin database.
import { spawnSync } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const pgMode = args.includes("--pg");
const filters = args.filter((a) => !a.startsWith("--"));

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "helpers" ? [] : find(p);
    return p.endsWith(".test.ts") ? [p] : [];
  });
}

const files = find("test").filter((f) => !filters.length || filters.some((x) => f.includes(x))).sort();
const env = { ...process.env };
if (pgMode) {
  env.CONFAB_TEST_PG_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
} else {
  delete env.CONFAB_TEST_PG_URL;
}
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-reporter=spec", ...files],
  { stdio: "inherit", env },
);
process.exit(result.status ?? 1);
