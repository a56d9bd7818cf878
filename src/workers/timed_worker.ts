/**
 * A worker that makes passes over work waiting in the database: one when it starts, one when
 * its process queues new work (`wake`), and one when the next item falls due, looking at least
 * every `pollSeconds` for work other processes queued. Passes never overlap; wakes during a pass
 * are served by one pass after it.
 */
import type { AppContext, TimerHandle, Timers } from "../context.js";
import { startBackground } from "../outbound/background.js";

export abstract class TimedWorker {
  private timer: TimerHandle | undefined;
  private work: Promise<void> = Promise.resolve();
  private passQueued = false;
  private closed = false;
  private stopListening: (() => void) | undefined;

  constructor(
    protected readonly app: AppContext,
    protected readonly timers: Timers,
    private readonly pollSeconds: number,
    /** Names the work in logs. */
    private readonly what: string,
  ) {}

  /** Does everything due now; returns how many items it attempted. */
  abstract runPass(): Promise<number>;
  /** When the next item falls due, if any is waiting. */
  protected abstract nextDue(): Promise<number | undefined>;
  /** Calls `wake` whenever this process queues work; returns how to stop. */
  protected abstract listen(wake: () => void): () => void;

  /** Does what came due while the server was down, then keeps up. */
  start(): void {
    this.stopListening = this.listen(() => void this.wake());
    void this.wake();
  }

  /** Runs a pass after any under way, then sets the timer for the next. Tests wait for it with `settled` or `backgroundSettled`. */
  wake(): Promise<void> {
    if (!this.passQueued) {
      this.passQueued = true;
      this.work = this.work.then(() => {
        this.passQueued = false;
        return this.tick();
      });
      const work = this.work;
      startBackground(this.app, this.what, () => work);
    }
    return this.work;
  }

  /** Resolves once no pass is running or waiting, including passes started meanwhile. */
  async settled(): Promise<void> {
    for (let work = this.work; ; work = this.work) {
      await work;
      if (work === this.work) return;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopListening?.();
    this.cancelTimer();
    await this.work;
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (this.closed) return;
    this.cancelTimer();
    let delaySeconds = this.pollSeconds;
    try {
      await this.runPass();
      const next = await this.nextDue();
      if (next !== undefined) delaySeconds = Math.min(this.pollSeconds, Math.max(0, next - this.app.clock.now()));
    } catch (err) {
      this.app.log.error({ err, worker: this.what }, "worker pass failed; retrying later");
    }
    if (this.closed) return;
    this.timer = this.timers.setTimeout(() => void this.wake(), delaySeconds * 1000);
  }
}
