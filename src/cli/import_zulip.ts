/**
 * `confab import zulip FILE [--realm STRING_ID] [--print-bot-keys]`: loads a Zulip export
 * (tarball or its unpacked directory) as a new organization, with a progress bar on stderr and a
 * summary on stdout.
 */
import type { AppContext } from "../context.js";
import { openExport } from "../importers/zulip/archive.js";
import { importZulipExport } from "../importers/zulip/import.js";

export interface CliOutput {
  out(text: string): void;
  err(text: string): void;
}

/** A progress bar redrawn on one line of stderr, at most every 1% of the work. */
function progressBar(io: CliOutput, isTty: boolean) {
  let lastPercent = -1;
  return (done: number, total: number) => {
    const percent = total ? Math.floor((done / total) * 100) : 100;
    if (percent === lastPercent) return;
    lastPercent = percent;
    const width = 30;
    const filled = Math.round((percent / 100) * width);
    const line = `messages [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${percent}% ${done}/${total}`;
    if (isTty) process.stderr.write(`\r${line}${percent === 100 ? "\n" : ""}`);
    else if (percent % 10 === 0) io.err(line);
  };
}

export async function runImportZulip(app: AppContext, file: string, opts: { realm?: string; printBotKeys?: boolean }, io: CliOutput): Promise<void> {
  const source = await openExport(file);
  try {
    const summary = await importZulipExport(app, source.dir, {
      stringId: opts.realm,
      progress: progressBar(io, process.stderr.isTTY === true),
    });
    const messages = summary.counts.messages ?? 0;
    io.out(`Imported organization '${summary.name}' (string id '${summary.stringId}', id ${summary.realmId}) in ${summary.seconds.toFixed(1)} s, ${Math.round(messages / Math.max(summary.seconds, 0.001))} messages/s.`);
    io.out(`User ids ${summary.idsKept.users ? "kept" : "renumbered"}; message ids ${summary.idsKept.messages ? "kept" : "renumbered"}.`);
    for (const [name, n] of Object.entries(summary.counts).sort()) io.out(`  ${name.padEnd(24)} ${n}`);
    io.out(
      "Exports carry no passwords or API keys: imported users have no password and new API keys. " +
        `Print a user's key with: confab print-api-key --realm '${summary.stringId}' --email EMAIL`,
    );
    if (opts.printBotKeys) for (const b of summary.bots) io.out(`bot ${b.email} ${b.apiKey}`);
  } finally {
    source.cleanup();
  }
}
