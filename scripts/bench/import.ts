/**
 * Import speed and peak memory of `import zulip` on a generated Zulip export.
 *   node --import tsx scripts/bench/import.ts [messages, default 200000] [members, default 50]
 * Uses SQLite in a temporary data directory, or PostgreSQL when DATABASE_URL is set (an empty
 * database). Prints messages/s and the peak RSS of this process.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadConfig } from "../../src/config.js";
import { openAppContext } from "../../src/server.js";
import { importZulipExport } from "../../src/importers/zulip/import.js";
import { writeZulipExport } from "../../test/fixtures/zulip_export.js";

const messages = Number(process.argv[2] ?? 200_000);
const members = Number(process.argv[3] ?? 50);
const work = fs.mkdtempSync(path.join(os.tmpdir(), "confab-bench-import-"));
try {
  const t0 = performance.now();
  const written = writeZulipExport(path.join(work, "export"), { messages, members, channels: 10 });
  const rssBefore = process.memoryUsage().rss;
  console.log(`generated ${messages} messages in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const dataDir = path.join(work, "data");
  fs.mkdirSync(dataDir);
  const { app, close } = await openAppContext(loadConfig({ ...process.env, CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent" }));
  try {
    let lastReport = 0;
    const summary = await importZulipExport(app, written.dir, {
      progress(done, total) {
        if (done - lastReport >= total / 10 || done === total) {
          lastReport = done;
          console.log(`  ${done}/${total}  ${((performance.now() - t0) / 1000).toFixed(1)} s  rss ${Math.round(process.memoryUsage().rss / 2 ** 20)} MiB`);
        }
      },
    });
    const peak = process.resourceUsage().maxRSS / 1024;
    console.log(
      JSON.stringify({
        database: app.dialect,
        messages: summary.counts.messages,
        user_messages: summary.counts.user_messages,
        reactions: summary.counts.reactions,
        seconds: Number(summary.seconds.toFixed(1)),
        messages_per_second: Math.round((summary.counts.messages ?? 0) / summary.seconds),
        rss_before_import_mib: Math.round(rssBefore / 2 ** 20),
        peak_rss_mib: Math.round(peak),
      }),
    );
  } finally {
    await close();
  }
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
