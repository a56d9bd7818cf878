/**
 * Loads an organization export (POST /export/realm's archive) into an empty Confab database:
 * every table in the order its references need, ids kept, in one transaction, so a failed import
 * leaves the database as it was.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import * as tar from "tar";
import type { AppContext } from "../context.js";
import type { Executor } from "../store/schema.js";
import { insertRows, listTables, resetIdSequences, tableReferences } from "../store/realm_tables.js";
import { loadOrder } from "../domain/realm_export.js";
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, type ArchiveManifest } from "../workers/realm_export.js";

export class ImportError extends Error {}

const BATCH = 500;

function readManifest(dir: string): ArchiveManifest {
  const file = path.join(dir, "manifest.json");
  if (!fs.existsSync(file)) throw new ImportError("This is not a Confab organization export (no manifest.json).");
  const manifest = JSON.parse(fs.readFileSync(file, "utf8")) as ArchiveManifest;
  if (manifest.format !== ARCHIVE_FORMAT) throw new ImportError("This is not a Confab organization export.");
  if (manifest.version > ARCHIVE_VERSION) {
    throw new ImportError(`This export has format version ${manifest.version}; this Confab reads up to ${ARCHIVE_VERSION}.`);
  }
  return manifest;
}

async function* jsonLines(file: string): AsyncGenerator<Record<string, unknown>> {
  const lines = readline.createInterface({ input: fs.createReadStream(file, "utf8"), crlfDelay: Infinity });
  for await (const line of lines) if (line) yield JSON.parse(line) as Record<string, unknown>;
}

/** Loads a batch; a row the database refuses is reported with its table, so a broken export is found quickly. */
async function load(tx: Executor, table: string, rows: Record<string, unknown>[]): Promise<void> {
  try {
    await insertRows(tx, table, rows);
  } catch (err) {
    throw new ImportError(`Loading ${table} failed: ${(err as Error).message}`);
  }
}

export interface ImportSummary {
  realm: ArchiveManifest["realm"];
  rows: number;
}

export async function importRealm(app: AppContext, archive: string): Promise<ImportSummary> {
  if (!fs.existsSync(archive)) throw new ImportError(`No such file: ${archive}`);
  const { n } = await app.db.selectFrom("realms").select((eb) => eb.fn.countAll<number>().as("n")).executeTakeFirstOrThrow();
  if (Number(n) > 0) {
    throw new ImportError("The database already holds an organization: import into a new data directory or database, before the server's first start.");
  }
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "confab-import-"));
  try {
    try {
      await tar.extract({ file: archive, cwd: work, strict: true });
    } catch {
      throw new ImportError("This is not a Confab organization export (not a .tar.gz archive).");
    }
    const manifest = readManifest(work);
    const tables = await listTables(app.db);
    const byName = new Map(tables.map((t) => [t.name, t]));
    for (const t of manifest.tables) {
      if (!byName.has(t.name)) throw new ImportError(`The export has a table this Confab doesn't know: ${t.name}`);
    }
    const order = loadOrder(
      manifest.tables.map((t) => t.name),
      await tableReferences(app.db, app.dialect),
    );
    // Files first: storing one twice is harmless, while rows naming a missing file are not.
    const filesDir = path.join(work, "files");
    const files = fs.existsSync(filesDir) ? (fs.readdirSync(filesDir, { recursive: true }) as string[]) : [];
    for (const rel of files) {
      const full = path.join(filesDir, rel);
      if (fs.statSync(full).isFile()) await app.files.put(rel.split(path.sep).join("/"), fs.createReadStream(full));
    }
    let rows = 0;
    await app.db.transaction().execute(async (tx) => {
      for (const name of order) {
        const known = new Set(byName.get(name)!.columns);
        let batch: Record<string, unknown>[] = [];
        for await (const row of jsonLines(path.join(work, "tables", `${name}.jsonl`))) {
          for (const column of Object.keys(row)) {
            if (!known.has(column)) throw new ImportError(`The export's ${name} has a column this Confab doesn't know: ${column}`);
          }
          batch.push(row);
          if (batch.length === BATCH) {
            await load(tx, name, batch);
            rows += batch.length;
            batch = [];
          }
        }
        await load(tx, name, batch);
        rows += batch.length;
      }
      await resetIdSequences(tx, app.dialect, tables);
    });
    return { realm: manifest.realm, rows };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
