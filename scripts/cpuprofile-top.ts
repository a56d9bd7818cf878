/**
 * `node --import tsx scripts/cpuprofile-top.ts FILE.cpuprofile [N]`: where a CPU profile's time
 * went, as self time by function and by package or source file, the top N of each.
 */
import fs from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, count = "25"] = process.argv.slice(2);
if (!file) {
  console.error("usage: node --import tsx scripts/cpuprofile-top.ts FILE.cpuprofile [N]");
  process.exit(2);
}
const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const byFunction = new Map<string, number>();
const bySource = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, i) => {
  const micros = profile.timeDeltas[i] ?? 0;
  total += micros;
  const { functionName, url, lineNumber } = nodes.get(id)!.callFrame;
  const source = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/)?.[1] ?? url.replace(/^.*?\/(src|scripts|test)\//, "$1/") ?? "";
  const fn = `${functionName || "(anonymous)"}  ${source}${url ? `:${lineNumber + 1}` : ""}`;
  byFunction.set(fn, (byFunction.get(fn) ?? 0) + micros);
  const where = source || functionName;
  bySource.set(where, (bySource.get(where) ?? 0) + micros);
});

function print(title: string, table: Map<string, number>): void {
  console.log(`\n${title}`);
  for (const [name, micros] of [...table].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
    console.log(`${((100 * micros) / total).toFixed(1).padStart(6)}%  ${name}`);
  }
}
console.log(`${file}: ${(total / 1e6).toFixed(2)} s sampled`);
print("self time by function", byFunction);
print("self time by package or file", bySource);
