/**
 * Where uploaded files and custom emoji images live. One narrow interface so that another
 * backend (S3) can replace the local directory without touching the callers.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";

export interface StoredFile {
  stream: Readable;
  /** The whole object's size, whatever part `stream` holds. */
  size: number;
}

/** Inclusive byte offsets, as HTTP ranges give them. */
export interface ByteRange {
  start: number;
  end: number;
}

export interface FileStorage {
  /** Stores (or replaces) the object under `key`. */
  put(key: string, data: Buffer | Readable): Promise<void>;
  /** The object's content (or only `range` of it), or null if there is none. */
  get(key: string, range?: ByteRange): Promise<StoredFile | null>;
  /** Removes the object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
}

/**
 * Keys are slash-separated names we generate; anything that could leave the root is refused, by
 * every backend alike, so that a key good in one is good in all.
 */
export function checkKey(key: string): void {
  const parts = key.split("/");
  if (!key || parts.some((p) => p === "" || p === "." || p === ".." || p.includes("\\") || p.includes("\0"))) {
    throw new Error(`invalid storage key: ${JSON.stringify(key)}`);
  }
}

/** Files under a directory (`<CONFAB_DATA_DIR>/uploads`), one file per key. */
export class LocalFileStorage implements FileStorage {
  constructor(readonly root: string) {}

  private pathOf(key: string): string {
    checkKey(key);
    return path.join(this.root, ...key.split("/"));
  }

  async put(key: string, data: Buffer | Readable): Promise<void> {
    const target = this.pathOf(key);
    await fs.promises.mkdir(path.dirname(target), { recursive: true });
    // Written aside and renamed, so a reader never sees half a file; the name stays short, as
    // the target's may already be as long as a filesystem allows.
    const partial = path.join(path.dirname(target), `.${randomBytes(8).toString("hex")}.part`);
    // Opened before streaming, so the file exists by the time a failure removes it: a stream
    // opening by path may create it only after a source that failed early was cleaned up.
    const handle = await fs.promises.open(partial, "w");
    try {
      await pipeline(Buffer.isBuffer(data) ? Readable.from([data]) : data, handle.createWriteStream());
      await fs.promises.rename(partial, target);
    } catch (err) {
      await fs.promises.rm(partial, { force: true });
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredFile | null> {
    const target = this.pathOf(key);
    try {
      const handle = await fs.promises.open(target, "r");
      const { size } = await handle.stat();
      return { stream: handle.createReadStream(range ? { start: range.start, end: range.end } : {}), size };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await fs.promises.rm(this.pathOf(key), { force: true });
  }
}

/** A server secret kept in the data directory, created on first start. */
export function loadOrCreateKey(file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const key = randomBytes(32);
  try {
    fs.writeFileSync(file, key, { flag: "wx", mode: 0o600 });
    return key;
  } catch {
    // Another process created it first.
    return fs.readFileSync(file);
  }
}
