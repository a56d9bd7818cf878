import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "./config.js";
import { startConfab } from "./server.js";
import { bootstrapFirstRealm } from "./cli/bootstrap.js";

const config = loadConfig(process.env);
const running = await startConfab(config);
const created = await bootstrapFirstRealm(running.app);
if (created) {
  const zuliprc = path.join(config.dataDir, "zuliprc");
  fs.writeFileSync(zuliprc, created.zuliprc, { mode: 0o600 });
  console.log(
    [
      "",
      `Confab created the organization "${created.realm.name}" and its owner.`,
      `  email:   ${created.owner.delivery_email}`,
      `  API key: ${created.owner.api_key}`,
      `  zuliprc: ${zuliprc}`,
      "",
    ].join("\n"),
  );
}
console.log(`Confab is serving ${config.externalUrl} (database: ${running.app.dialect})`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void running.close().then(() => process.exit(0));
  });
}
