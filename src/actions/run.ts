import { sql, type Transaction } from "kysely";
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

type ActionBody<T> = (tx: Tx, events: PendingEvents) => Promise<T>;

/**
 * Runs one state change in one transaction, then publishes its events. Cached rows of the
 * tables it wrote are read afresh from then on, including by requests that read them before
 * the commit.
 *
 * On SQLite, actions that arrive together commit together (see ActionBatch); PostgreSQL runs
 * each in its own transaction on its own connection.
 */
export function runAction<T>(app: AppContext, fn: ActionBody<T>): Promise<T> {
  if (app.dialect !== "sqlite") return runAlone(app, fn);
  let batch = batches.get(app);
  if (!batch) batches.set(app, (batch = new ActionBatch(app)));
  return batch.run(fn);
}

async function runAlone<T>(app: AppContext, fn: ActionBody<T>): Promise<T> {
  const events = new PendingEvents();
  const written = new Set<string>();
  let result: T;
  let thrown: { error: unknown } | undefined;
  try {
    result = await app.db.transaction().execute((tx) =>
      fn(watchWrites(app, tx, written), events).catch((error: unknown) => {
        thrown = { error };
        throw error;
      }),
    );
  } catch (error) {
    // When SQLite has already rolled back, the driver's ROLLBACK fails too; the action's own
    // error is the one that says what happened.
    throw thrown ? thrown.error : error;
  } finally {
    // Also after a rollback: what was cached from inside the transaction must go.
    app.versions.bump(written);
  }
  await publish(app, events);
  return result;
}

/** The transaction as an action sees it: its writes to cached tables are noted in `written`. */
function watchWrites(app: AppContext, tx: Tx, written: Set<string>): Tx {
  const watched = tx.withPlugin(new WriteWatchPlugin(app.versions.tables, (tables) => tables.forEach((t) => written.add(t))));
  trackTransactionWrites(watched, written);
  return watched;
}

async function publish(app: AppContext, events: PendingEvents): Promise<void> {
  for (const fn of events.onCommit) fn();
  for (const notice of events.notices) await app.bus.publish(notice);
}

const batches = new WeakMap<AppContext, ActionBatch>();

/** Enough to share one commit widely, few enough that the last in a batch is not kept long. */
const MAX_BATCH = 64;

interface Waiting {
  fn: ActionBody<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown; events: PendingEvents } | { ok: false; error: unknown };

/** Thrown out of an attempt at a batch, so that its transaction is rolled back, when an action fails. */
class FailedAction {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {}
}

/**
 * SQLite commits by writing every page a transaction dirtied; a message to 100 people dirties
 * about 200 index pages, and writing them is most of the send. Actions that arrive in the same
 * turn of the event loop run one after another in one transaction, so that pages that several of
 * them touch are written once. Nothing is answered, and no event sent, before the shared commit.
 *
 * Most actions succeed, so they first run with nothing between them. When one fails, the
 * transaction is rolled back, that one is answered with its error, and the others run again,
 * each inside a savepoint (which copies every page it changes, a tenth of a send's cost) so that
 * another failure is undone alone: at most two attempts, whatever fails. If a transaction fails
 * by itself, each action is run again in a transaction of its own.
 */
class ActionBatch {
  private readonly waiting: Waiting[] = [];
  private draining = false;

  constructor(private readonly app: AppContext) {}

  run<T>(fn: ActionBody<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        // Requests read in this turn of the event loop queue their actions before it runs.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    const batch = this.waiting.splice(0, MAX_BATCH);
    try {
      await this.runBatch(batch);
    } catch (error) {
      // Whatever went wrong, every action gets an answer (a settled one keeps its own).
      for (const action of batch) action.reject(error);
    } finally {
      // Between batches the event loop turns, so reads and long-polls are answered meanwhile.
      if (this.waiting.length) setImmediate(() => void this.drain());
      else this.draining = false;
    }
  }

  private async runBatch(batch: Waiting[]): Promise<void> {
    let outcomes = await this.attempt((tx) => runInOrder(tx, batch));
    if (outcomes instanceof FailedAction) {
      const { index, error } = outcomes;
      batch[index]!.reject(error);
      batch = batch.filter((_, i) => i !== index);
      if (!batch.length) return;
      outcomes = await this.attempt((tx) => runEach(tx, batch));
    }
    if (!Array.isArray(outcomes)) {
      for (const action of batch) runAlone(this.app, action.fn).then(action.resolve, action.reject);
      return;
    }
    for (let i = 0; i < batch.length; i++) {
      const outcome = outcomes[i]!;
      if (!outcome.ok) {
        batch[i]!.reject(outcome.error);
        continue;
      }
      try {
        await publish(this.app, outcome.events);
        batch[i]!.resolve(outcome.value);
      } catch (error) {
        batch[i]!.reject(error);
      }
    }
  }

  /** The outcomes once committed; the action that failed; or undefined if the transaction did. */
  private async attempt(body: (tx: Tx) => Promise<Outcome[]>): Promise<Outcome[] | FailedAction | undefined> {
    const written = new Set<string>();
    let failed: FailedAction | undefined;
    try {
      return await this.app.db.transaction().execute((tx) =>
        body(watchWrites(this.app, tx, written)).catch((error: unknown) => {
          if (error instanceof FailedAction) failed = error;
          throw error;
        }),
      );
    } catch {
      // When SQLite has already rolled back, the driver's ROLLBACK fails instead.
      return failed;
    } finally {
      this.app.versions.bump(written);
    }
  }
}

async function runInOrder(tx: Tx, batch: Waiting[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let index = 0; index < batch.length; index++) {
    const events = new PendingEvents();
    try {
      outcomes.push({ ok: true, value: await batch[index]!.fn(tx, events), events });
    } catch (error) {
      throw new FailedAction(index, error);
    }
  }
  return outcomes;
}

async function runEach(tx: Tx, batch: Waiting[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const action of batch) {
    const events = new PendingEvents();
    await sql`SAVEPOINT action`.execute(tx);
    try {
      const value = await action.fn(tx, events);
      await sql`RELEASE action`.execute(tx);
      outcomes.push({ ok: true, value, events });
    } catch (error) {
      // Throws if SQLite has already rolled the whole transaction back; then the batch fails.
      await sql`ROLLBACK TO action`.execute(tx);
      await sql`RELEASE action`.execute(tx);
      outcomes.push({ ok: false, error });
    }
  }
  return outcomes;
}
