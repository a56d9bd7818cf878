import type { Transaction } from "kysely";
import type { AppContext } from "../context.js";
import type { DB } from "../store/schema.js";
import type { Notice } from "../events/bus.js";
import { WriteWatchPlugin, trackTransactionWrites } from "../store/table_versions.js";

export type Tx = Transaction<DB>;

/** Collects the events an action implies; they are published only once it commits. */
export class PendingEvents {
  readonly notices: Notice[] = [];
  readonly onCommit: (() => void)[] = [];
  send(notice: Notice): void {
    this.notices.push(notice);
  }
  /** Calls `fn` once the action has committed; never after a rollback. */
  afterCommit(fn: () => void): void {
    this.onCommit.push(fn);
  }
}

/**
 * Runs one state change in one transaction, then publishes its events. Cached rows of the
 * tables it wrote are read afresh from then on, including by requests that read them before
 * the commit.
 */
export async function runAction<T>(app: AppContext, fn: (tx: Tx, events: PendingEvents) => Promise<T>): Promise<T> {
  const events = new PendingEvents();
  const written = new Set<string>();
  const watch = new WriteWatchPlugin(app.versions.tables, (tables) => tables.forEach((t) => written.add(t)));
  let result: T;
  try {
    result = await app.db.transaction().execute((tx) => {
      const watched = tx.withPlugin(watch);
      trackTransactionWrites(watched, written);
      return fn(watched, events);
    });
  } finally {
    // Also after a rollback: what was cached from inside the transaction must go.
    app.versions.bump(written);
  }
  for (const fn of events.onCommit) fn();
  for (const notice of events.notices) await app.bus.publish(notice);
  return result;
}
