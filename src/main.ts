import fs from "node:fs";
import path from "node:path";
import { loadConfig } from "./config.js";
import { startConfab, type Running } from "./server.js";
import { bootstrapFirstRealm } from "./cli/bootstrap.js";
import { devConfig, startDevServer } from "./dev/server.js";
import { DEV_PASSWORD } from "./dev/seed.js";

async function startProduction(): Promise<Running> {
  const config = loadConfig(process.env);
  const running = await startConfab(config);
  const zuliprc = path.join(config.dataDir, "zuliprc");
  const created = await bootstrapFirstRealm(running.app, (text) => {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(zuliprc, text, { mode: 0o600 });
  });
  if (created) {
    console.log(
      [
        "",
        `Confab created the organization "${created.realm.name}" and its owner.`,
        `  email:    ${created.owner.delivery_email}`,
        `  password: ${created.password} (sign in at ${running.app.config.externalUrl}/login/)`,
        `  API key:  ${created.owner.api_key}`,
        `  zuliprc:  ${zuliprc}`,
        "",
      ].join("\n"),
    );
  }
  return running;
}

async function startDevelopment(): Promise<Running> {
  const { running, org } = await startDevServer(devConfig(process.env));
  console.log(
    [
      "",
      `Development mode: the organization "${org.realm.name}" was created afresh in ${running.app.config.dataDir}.`,
      `  Log in as any of: ${Object.values(org.people).map((u) => u.delivery_email).join(", ")}`,
      `  Password for everyone: ${DEV_PASSWORD} (or POST /api/v1/dev_fetch_api_key with just the username)`,
      "",
    ].join("\n"),
  );
  return running;
}

const running = process.argv.includes("--dev") ? await startDevelopment() : await startProduction();
console.log(`Confab is serving ${running.app.config.externalUrl} on ${running.url} (database: ${running.app.dialect})`);

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void running.close().then(() => process.exit(0));
  });
}
