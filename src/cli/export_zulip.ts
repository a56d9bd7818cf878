/** `confab export --format zulip --realm ID --output FILE`: an organization as a Zulip export tarball. */
import type { AppContext } from "../context.js";
import type { Realm } from "../store/realms.js";
import { exportZulipFormat } from "../exporters/zulip/export.js";
import type { CliOutput } from "./import_zulip.js";

export async function runExportZulip(app: AppContext, realm: Realm, output: string, io: CliOutput): Promise<void> {
  const started = performance.now();
  const { counts } = await exportZulipFormat(app, realm, output);
  io.out(`Wrote ${output} (organization '${realm.string_id}') in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  for (const name of ["zerver_userprofile", "zerver_stream", "zerver_subscription", "zerver_message", "zerver_usermessage", "zerver_reaction", "zerver_attachment"]) {
    io.out(`  ${name.padEnd(24)} ${counts[name] ?? 0}`);
  }
}
