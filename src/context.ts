import type { Logger } from "pino";
import type { Config } from "./config.js";
import type { DB, Db } from "./store/schema.js";
import type { Dialect } from "./store/db.js";
import type { EventBus } from "./events/bus.js";

/** A source of the current time in UNIX seconds; injectable so tests control time. */
export interface Clock {
  now(): number;
}
export const systemClock: Clock = { now: () => Date.now() / 1000 };

/** Everything an action needs from the running server. */
export interface AppContext {
  db: Db;
  dialect: Dialect;
  config: Config;
  bus: EventBus;
  log: Logger;
  clock: Clock;
}
export type { DB };
