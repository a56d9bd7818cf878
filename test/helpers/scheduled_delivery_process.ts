/**
 * A second server process for tests of scheduled message delivery: opens an existing test
 * database, says "ready", and on "go" (stdin) runs one delivery pass at the given time, then
 * reports how many messages it tried to send.
 *
 * Usage: node --import tsx scheduled_delivery_process.ts <dataDir> <databaseUrl|""> <now>
 */
import { loadConfig } from "../../src/config.js";
import { openAppContext } from "../../src/server.js";
import { systemTimers } from "../../src/context.js";
import { ScheduledMessageWorker } from "../../src/workers/scheduled_messages.js";

const [dataDir, databaseUrl, now] = process.argv.slice(2);
const config = loadConfig({ CONFAB_DATA_DIR: dataDir, LOG_LEVEL: "silent" }, { port: 0, databaseUrl: databaseUrl || undefined });
const { app, close } = await openAppContext(config, { clock: { now: () => Number(now) } });
const worker = new ScheduledMessageWorker(app, systemTimers);
process.stdout.write("ready\n");
await new Promise<void>((resolve) => process.stdin.once("data", () => resolve()));
const attempted = await worker.runPass();
await close();
process.stdout.write(JSON.stringify({ attempted }) + "\n");
process.exit(0);
