/**
 * Reading an uploaded zip archive (Slack's export) without trusting it. Only the central
 * directory is held in memory; entries are inflated one at a time, on demand. Before anything is
 * inflated every name is checked (no absolute paths, no `..`, no backslashes or NUL) and the
 * declared sizes are bounded: per entry, in total, and against the archive's own size (a zip bomb
 * declares far more than it holds). yauzl then refuses any entry whose inflated bytes differ from
 * its declared size, so the checks hold for what is actually read.
 */
import fs from "node:fs";
import type { Readable } from "node:stream";
import yauzl from "yauzl";

export class ZipError extends Error {
  override name = "ZipError";
}

export interface ZipLimits {
  /** Most entries the archive may list. */
  maxEntries: number;
  /** Largest single entry, uncompressed. */
  maxEntryBytes: number;
  /** Largest sum of all entries, uncompressed. */
  maxTotalBytes: number;
  /**
   * A total above this many bytes must also stay within `maxRatio` times the archive's size; real
   * exports of JSON compress about 10:1 (Zulip's Slack importer applies the same two figures).
   */
  ratioFloorBytes: number;
  maxRatio: number;
}

export const DEFAULT_ZIP_LIMITS: ZipLimits = {
  maxEntries: 1_000_000,
  maxEntryBytes: 512 * 1024 * 1024,
  maxTotalBytes: 64 * 1024 * 1024 * 1024,
  ratioFloorBytes: 1024 * 1024 * 1024,
  maxRatio: 10,
};

export interface ZipEntryInfo {
  name: string;
  size: number;
}

function checkName(name: string): string {
  if (name.includes("\0") || name.includes("\\")) throw new ZipError(`Invalid file name in the archive: ${JSON.stringify(name)}`);
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name)) throw new ZipError(`Absolute path in the archive: ${JSON.stringify(name)}`);
  if (name.split("/").some((part) => part === "..")) throw new ZipError(`Path traversal in the archive: ${JSON.stringify(name)}`);
  return name;
}

export class ZipArchive {
  private constructor(
    private readonly zip: yauzl.ZipFile,
    private readonly byName: Map<string, yauzl.Entry>,
  ) {}

  /** Opens `file`, reads and checks its directory; throws ZipError for anything refused. */
  static async open(file: string, limits: ZipLimits = DEFAULT_ZIP_LIMITS): Promise<ZipArchive> {
    const stat = await fs.promises.stat(file).catch(() => undefined);
    if (!stat?.isFile()) throw new ZipError(`${file} is not a file that can be read.`);
    const archiveBytes = stat.size;
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(file, { lazyEntries: true, autoClose: false, decodeStrings: false, validateEntrySizes: true }, (err, z) =>
        err ? reject(new ZipError(`Not a readable zip file: ${err.message}`)) : resolve(z!),
      ),
    );
    const byName = new Map<string, yauzl.Entry>();
    let total = 0;
    try {
      await new Promise<void>((resolve, reject) => {
        zip.on("error", (e: Error) => reject(new ZipError(`Not a readable zip file: ${e.message}`)));
        zip.on("end", () => resolve());
        zip.on("entry", (entry: yauzl.Entry) => {
          try {
            if (byName.size >= limits.maxEntries) throw new ZipError(`The archive has more than ${limits.maxEntries} entries.`);
            // Slack writes UTF-8 names without setting the zip's UTF-8 flag; decoding them as
            // UTF-8 regardless reads both kinds correctly.
            const name = checkName((entry.fileName as unknown as Buffer).toString("utf8"));
            if (entry.uncompressedSize > limits.maxEntryBytes) throw new ZipError(`The archive entry ${name} is too large (${entry.uncompressedSize} bytes; limit ${limits.maxEntryBytes}).`);
            total += entry.uncompressedSize;
            if (total > limits.maxTotalBytes) throw new ZipError(`The archive is too large uncompressed (limit ${limits.maxTotalBytes} bytes).`);
            if (total > limits.ratioFloorBytes && total > limits.maxRatio * archiveBytes) throw new ZipError("The archive expands to far more than its size; refusing it as a zip bomb.");
            if (!name.endsWith("/")) byName.set(name, entry);
            zip.readEntry();
          } catch (e) {
            reject(e);
          }
        });
        zip.readEntry();
      });
    } catch (e) {
      zip.close();
      throw e;
    }
    return new ZipArchive(zip, byName);
  }

  /** The file entries (directories left out), in the archive's order. */
  entries(): ZipEntryInfo[] {
    return [...this.byName].map(([name, e]) => ({ name, size: e.uncompressedSize }));
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  async stream(name: string): Promise<Readable> {
    const entry = this.byName.get(name);
    if (!entry) throw new ZipError(`The archive has no ${name}`);
    return new Promise((resolve, reject) =>
      this.zip.openReadStream(entry, (err, s) => (err ? reject(new ZipError(`Cannot read ${name} in the archive: ${err.message}`)) : resolve(s!))),
    );
  }

  async read(name: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of await this.stream(name)) chunks.push(chunk as Buffer);
    } catch (e) {
      throw e instanceof ZipError ? e : new ZipError(`Cannot read ${name} in the archive: ${(e as Error).message}`);
    }
    return Buffer.concat(chunks);
  }

  /** An entry parsed as JSON; a ZipError names the entry when it is not JSON. */
  async readJson(name: string): Promise<unknown> {
    const text = (await this.read(name)).toString("utf8");
    try {
      return JSON.parse(text);
    } catch {
      throw new ZipError(`${name} in the archive is not valid JSON.`);
    }
  }

  close(): void {
    this.zip.close();
  }
}
