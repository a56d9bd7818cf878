/**
 * Unpacks a Zulip export tarball into a private directory, checking every entry's header before
 * reading its data: an entry over the size cap, a path leaving the directory, a link or device,
 * or a truncated archive stops the unpacking with a clear message, before anything reaches the
 * database.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { Parser, type ReadEntry } from "tar";

export class ZulipImportError extends Error {}

export interface ExportDir {
  /** The directory holding realm.json. */
  dir: string;
  /** Removes what unpacking wrote (nothing for a directory given as is). */
  cleanup(): void;
}

export interface ArchiveLimits {
  /** Largest single file accepted, in bytes. */
  maxEntryBytes: number;
  /** Largest total of all files, in bytes. */
  maxTotalBytes: number;
  maxEntries: number;
}

export const DEFAULT_LIMITS: ArchiveLimits = {
  maxEntryBytes: 1024 ** 3,
  maxTotalBytes: 64 * 1024 ** 3,
  maxEntries: 2_000_000,
};

const mib = (n: number) => `${Math.round(n / 1024 ** 2)} MiB`;

/** A path inside the archive, or why it can't be one. */
function entryPathRefusal(name: string): string | null {
  const parts = name.split("/").filter((p) => p !== "" && p !== ".");
  if (name.startsWith("/") || /^[a-zA-Z]:/.test(name) || name.includes("\\") || name.includes("\0") || parts.includes("..")) {
    return `The archive has an entry outside its directory: ${JSON.stringify(name.slice(0, 200))}`;
  }
  return null;
}

async function unpack(file: string, into: string, limits: ArchiveLimits): Promise<void> {
  let total = 0;
  let count = 0;
  const writes: Promise<void>[] = [];
  await new Promise<void>((resolve, reject) => {
    const input = fs.createReadStream(file);
    const parser = new Parser({ strict: true });
    let failed = false;
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      input.destroy();
      reject(err instanceof ZulipImportError ? err : new ZulipImportError(`The archive is damaged or truncated (${err.message}).`));
    };
    parser.on("entry", (entry: ReadEntry) => {
      if (failed) return entry.resume();
      const refusal = entryPathRefusal(entry.path);
      if (refusal) return fail(new ZulipImportError(refusal));
      if (entry.type !== "File" && entry.type !== "OldFile" && entry.type !== "Directory") {
        return fail(new ZulipImportError(`The archive has an entry that is not a file or directory (${entry.type}): ${JSON.stringify(entry.path.slice(0, 200))}`));
      }
      const size = entry.size ?? 0;
      if (size > limits.maxEntryBytes) {
        return fail(new ZulipImportError(`The archive's entry ${JSON.stringify(entry.path.slice(0, 200))} is ${mib(size)}, over the limit of ${mib(limits.maxEntryBytes)}.`));
      }
      total += size;
      count += 1;
      if (total > limits.maxTotalBytes) return fail(new ZulipImportError(`The archive holds more than ${mib(limits.maxTotalBytes)}.`));
      if (count > limits.maxEntries) return fail(new ZulipImportError(`The archive has more than ${limits.maxEntries} entries.`));
      const dest = path.join(into, entry.path);
      if (entry.type === "Directory") {
        fs.mkdirSync(dest, { recursive: true });
        return entry.resume();
      }
      fs.mkdirSync(path.dirname(dest), { recursive: true });
      writes.push(pipeline(entry, fs.createWriteStream(dest, { flags: "wx" })).catch((err: Error) => fail(err)));
    });
    parser.on("error", fail);
    parser.on("warn", (_code: string, message: string | Error) => fail(message instanceof Error ? message : new Error(message)));
    parser.on("end", () => {
      if (!failed && count === 0) fail(new ZulipImportError("The archive is empty or not a tar archive."));
    });
    parser.on("close", () => {
      if (!failed) resolve();
    });
    input.on("error", fail);
    input.pipe(parser);
  });
  await Promise.all(writes);
}

/** The directory of an export: as given, or unpacked from a tarball into a temporary one. */
export async function openExport(source: string, limits: ArchiveLimits = DEFAULT_LIMITS): Promise<ExportDir> {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(source);
  } catch {
    throw new ZulipImportError(`No such file or directory: ${source}`);
  }
  if (stat.isDirectory()) return { dir: findRealmJson(source), cleanup() {} };
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "confab-zulip-import-"));
  const cleanup = () => fs.rmSync(work, { recursive: true, force: true });
  try {
    await unpack(source, work, limits);
    return { dir: findRealmJson(work), cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** Zulip's tarball has one top-level directory; a directory given directly may be that one or its parent. */
function findRealmJson(dir: string): string {
  if (fs.existsSync(path.join(dir, "realm.json"))) return dir;
  const subdirs = fs.readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory());
  if (subdirs.length === 1 && fs.existsSync(path.join(dir, subdirs[0]!.name, "realm.json"))) return path.join(dir, subdirs[0]!.name);
  throw new ZulipImportError("This is not a Zulip export: it has no realm.json.");
}
