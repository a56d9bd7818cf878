/**
 * Writes an organization's data export: every table's rows of that organization (as the export
 * type allows) as JSON lines, the files those rows own, and a manifest, in one .tar.gz under the
 * data directory.
 * Runs in the background after the request that asked for it; reads a batch at a time and yields
 * between batches, so a large organization never holds the event loop.
 */
import fs from "node:fs";
import path from "node:path";
import { once } from "node:events";
import { randomBytes } from "node:crypto";
import { setImmediate as yieldToLoop } from "node:timers/promises";
import type { AppContext } from "../context.js";
import { listTables, realmRows, type RowSelection } from "../store/realm_tables.js";
import { ExportType, isPrivateUserTable, UNEXPORTED_TABLES } from "../domain/realm_export.js";
import { userSetting } from "../format/users.js";
import { listUsers } from "../store/users.js";
import type { Realm } from "../store/realms.js";
import { pipeline } from "node:stream/promises";
import { uploadStorageKey } from "../actions/uploads.js";
import { emojiStorageKey } from "../domain/custom_emoji.js";

export const ARCHIVE_FORMAT = "confab-realm-export";
export const ARCHIVE_VERSION = 1;

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  export_type: number;
  realm: { id: number; string_id: string; name: string };
  exported_at: number;
  tables: { name: string; rows: number }[];
  /** Stored files (uploads, custom emoji), under files/ by their storage key. */
  files: number;
}

/** The stored files an exported row owns. */
function fileKeys(table: string, row: Record<string, unknown>): string[] {
  if (table === "attachments") return [uploadStorageKey(String(row.path_id))];
  if (table === "realm_emoji" && row.file_name) return [emojiStorageKey(Number(row.realm_id), String(row.file_name))];
  return [];
}

/** Where exports live, relative to the data directory. */
export const EXPORTS_DIR = "exports";

async function selection(app: AppContext, realmId: number, type: number): Promise<RowSelection> {
  const tables = await listTables(app.db);
  const consenting =
    type === ExportType.FULL_WITH_CONSENT
      ? (await listUsers(app.db, realmId)).filter((u) => userSetting(u, "allow_private_data_export") === true).map((u) => u.id)
      : [];
  return {
    realmId,
    consentingUserIds: consenting,
    privateTables: new Set(tables.filter((t) => isPrivateUserTable(t.name, t.columns)).map((t) => t.name)),
  };
}

/** Writes the archive and returns its path relative to the data directory. */
export async function writeRealmExport(app: AppContext, realm: Realm, exportId: number, type: number): Promise<string> {
  const dataDir = app.config.dataDir;
  const relDir = path.join(EXPORTS_DIR, String(realm.id), randomBytes(18).toString("base64url"));
  const fileName = `confab-export-${realm.string_id || "realm"}-${exportId}.tar.gz`;
  const work = fs.mkdtempSync(path.join(dataDir, "export-work-"));
  try {
    const sel = await selection(app, realm.id, type);
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      export_type: type,
      realm: { id: realm.id, string_id: realm.string_id, name: realm.name },
      exported_at: app.clock.now(),
      tables: [],
      files: 0,
    };
    const keys: string[] = [];
    fs.mkdirSync(path.join(work, "tables"));
    for (const table of await listTables(app.db)) {
      if (UNEXPORTED_TABLES.has(table.name)) continue;
      const out = fs.createWriteStream(path.join(work, "tables", `${table.name}.jsonl`));
      let count = 0;
      for await (const batch of realmRows(app.db, table, sel)) {
        for (const row of batch) {
          if (!out.write(JSON.stringify(row) + "\n")) await once(out, "drain");
          keys.push(...fileKeys(table.name, row));
        }
        count += batch.length;
        await yieldToLoop();
      }
      out.end();
      await once(out, "close");
      manifest.tables.push({ name: table.name, rows: count });
    }
    for (const key of keys) {
      const stored = await app.files.get(key);
      if (!stored) continue;
      const target = path.join(work, "files", ...key.split("/"));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      await pipeline(stored.stream, fs.createWriteStream(target));
      manifest.files++;
    }
    fs.writeFileSync(path.join(work, "manifest.json"), JSON.stringify(manifest, null, 1));
    fs.mkdirSync(path.join(dataDir, relDir), { recursive: true });
    // tar is loaded by the first export, not by every server start.
    const tar = await import("tar");
    await tar.create({ gzip: true, file: path.join(dataDir, relDir, fileName), cwd: work, portable: true }, ["manifest.json", "tables", ...(manifest.files ? ["files"] : [])]);
    return path.join(relDir, fileName);
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
