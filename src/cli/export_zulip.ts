/** `confab export --format zulip --realm ID --output FILE [--migration-status FILE]`: an organization as a Zulip export tarball. */
import fs from "node:fs";
import type { AppContext } from "../context.js";
import { ZulipImportError } from "../importers/zulip/archive.js";
import type { Realm } from "../store/realms.js";
import { exportZulipFormat } from "../exporters/zulip/export.js";
import type { CliOutput } from "./import_zulip.js";

export async function runExportZulip(app: AppContext, realm: Realm, output: string, io: CliOutput, migrationStatusFile?: string): Promise<void> {
  const started = performance.now();
  let migrationStatus;
  if (migrationStatusFile) {
    try {
      migrationStatus = JSON.parse(fs.readFileSync(migrationStatusFile, "utf8"));
    } catch (err) {
      throw new ZulipImportError(`Can't read ${migrationStatusFile}: ${(err as Error).message}`);
    }
    if (typeof migrationStatus?.zulip_version !== "string" || typeof migrationStatus.migrations_by_app !== "object") {
      throw new ZulipImportError(`${migrationStatusFile} is not a Zulip migration_status.json.`);
    }
  }
  const { counts } = await exportZulipFormat(app, realm, output, { migrationStatus });
  io.out(`Wrote ${output} (organization '${realm.string_id}') in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  for (const name of ["zerver_userprofile", "zerver_stream", "zerver_subscription", "zerver_message", "zerver_usermessage", "zerver_reaction", "zerver_attachment"]) {
    io.out(`  ${name.padEnd(24)} ${counts[name] ?? 0}`);
  }
}
