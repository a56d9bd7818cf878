/**
 * Benchmarks: `npm run bench -- <name>`. Each benchmark lives in scripts/bench/<name>.ts and
 * exports `run(args)`.
 */
const BENCHES: Record<string, () => Promise<{ run(args: string[]): Promise<void> }>> = {
  abuse: () => import("./bench/abuse.js"),
  http: () => import("./bench/http.js"),
  scale: () => import("./bench/scale.js"),
  events: () => import("./bench/events.js"),
  render: () => import("./bench/render.js"),
  web: () => import("./bench/web.js"),
  cluster: () => import("./bench/cluster.js"),
  idle: () => import("./bench/idle.js"),
  thumbnails: () => import("./bench/thumbnails.js"),
  search: () => import("./bench/search.js"),
};

const [name, ...args] = process.argv.slice(2);
const load = name ? BENCHES[name] : undefined;
if (!load) {
  console.error(`usage: npm run bench -- <${Object.keys(BENCHES).join("|")}>`);
  process.exit(2);
}
await (await load()).run(args);
