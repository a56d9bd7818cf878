import fs from "node:fs";
import cluster from "node:cluster";
import path from "node:path";
import { loadConfig } from "./config.js";
import { openAppContext, startConfab, type Running } from "./server.js";
import { bootstrapFirstRealm } from "./cli/bootstrap.js";
import { clusterConfigProblem, requestedProcesses, runWorkers } from "./cluster/processes.js";

/** Creates the first organization on a new database, printing how to sign in to it. */
async function bootstrap(app: Running["app"]): Promise<void> {
  const config = app.config;
  const zuliprc = path.join(config.dataDir, "zuliprc");
  const created = await bootstrapFirstRealm(app, (text) => {
    fs.mkdirSync(config.dataDir, { recursive: true });
    fs.writeFileSync(zuliprc, text, { mode: 0o600 });
  });
  if (created) {
    console.log(
      [
        "",
        `Confab created the organization "${created.realm.name}" and its owner.`,
        `  email:    ${created.owner.delivery_email}`,
        `  password: ${created.password} (sign in at ${config.externalUrl}/login/)`,
        `  API key:  ${created.owner.api_key}`,
        `  zuliprc:  ${zuliprc}`,
        "",
      ].join("\n"),
    );
  }
}

async function startProduction(): Promise<Running> {
  const running = await startConfab(loadConfig(process.env));
  // Workers of a cluster find the database ready: their primary prepared it.
  if (cluster.isPrimary) await bootstrap(running.app);
  return running;
}

async function startDevelopment(): Promise<Running> {
  // Loaded only with --dev: the seed data and what builds it stay out of a production server.
  const { devConfig, startDevServer } = await import("./dev/server.js");
  const { DEV_PASSWORD } = await import("./dev/seed.js");
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

async function startPrimary(processes: number): Promise<void> {
  const config = loadConfig(process.env);
  const problem = clusterConfigProblem(config);
  if (problem) {
    console.error(`confab: ${problem}`);
    process.exit(2);
  }
  // Migrations and the first organization, once, before any worker serves.
  const { app, close } = await openAppContext(config);
  await bootstrap(app);
  await close();
  console.log(`Confab is starting ${processes} processes serving ${config.externalUrl} on http://${config.host}:${config.port}`);
  runWorkers(processes, (line) => console.log(line));
}

/** Serves as the command line asks: the development server, one process, or a cluster's primary or worker. */
export async function start(): Promise<void> {
  const dev = process.argv.includes("--dev");
  let processes = 1;
  try {
    if (!dev) processes = requestedProcesses(process.argv, process.env);
  } catch (err) {
    console.error(`confab: ${(err as Error).message}`);
    process.exit(2);
  }
  if (cluster.isPrimary && processes > 1) {
    await startPrimary(processes);
    return;
  }
  const running = dev ? await startDevelopment() : await startProduction();
  const worker = cluster.isWorker ? ` (process ${process.env.CONFAB_WORKER_SLOT ?? cluster.worker?.id})` : "";
  console.log(`Confab is serving ${running.app.config.externalUrl} on ${running.url}${worker} (database: ${running.app.dialect})`);

  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      void running.close().then(() => process.exit(0));
    });
  }
}
