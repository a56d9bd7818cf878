import type { FastifyInstance } from "fastify";
import type { Config } from "./config.js";
import { systemClock, type AppContext, type Clock } from "./context.js";
import { openDatabase } from "./store/db.js";
import { EventBus } from "./events/bus.js";
import { buildServer, createLogger } from "./app.js";

export interface Running {
  app: AppContext;
  server: FastifyInstance;
  /** Base URL the server listens on, e.g. http://127.0.0.1:9991 */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  /** Runs once the database is ready, before the server accepts requests. */
  beforeListen?: (app: AppContext) => Promise<void>;
}

/** Opens the database (applying migrations) and everything actions need, without serving. */
export async function openAppContext(config: Config, clock: Clock = systemClock): Promise<{ app: AppContext; close(): Promise<void> }> {
  const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const app: AppContext = {
    db: database.db,
    dialect: database.dialect,
    config,
    bus: new EventBus(),
    log: createLogger(config.logLevel),
    clock,
  };
  return { app, close: () => database.close() };
}

/** Opens the database (applying migrations), builds the server and starts listening. */
export async function startConfab(config: Config, opts: StartOptions = {}): Promise<Running> {
  const { app, close: closeDatabase } = await openAppContext(config, opts.clock);
  await opts.beforeListen?.(app);
  const server = await buildServer(app);
  await server.listen({ port: config.port, host: config.host });
  const address = server.server.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  return {
    app,
    server,
    url: `http://${config.host}:${port}`,
    async close() {
      await server.close();
      await closeDatabase();
    },
  };
}
