/**
 * Sends scheduled messages and reminders when they fall due. The worker sleeps until the earliest message
 * waiting in the database is due, and wakes early when this server schedules or reschedules
 * one. Other servers sharing the database may schedule messages too; it looks again at least
 * once a minute for those. Delivery itself is safe to run in every server at once.
 */
import type { AppContext, TimerHandle, Timers } from "../context.js";
import { deliverNextScheduledMessage } from "../actions/scheduled_messages.js";
import { nextScheduledTimestamp } from "../store/scheduled_messages.js";

/** The longest the worker sleeps without looking for messages other servers scheduled. */
export const POLL_SECONDS = 60;

export class ScheduledMessageWorker {
  private timer: TimerHandle | undefined;
  private work: Promise<void> = Promise.resolve();
  private closed = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly app: AppContext,
    private readonly timers: Timers,
  ) {}

  /** Delivers what came due while the server was down, then keeps delivering on time. */
  start(): void {
    this.unsubscribe = this.app.bus.subscribe((notice) => {
      const { type, op } = notice.event;
      if ((type === "scheduled_messages" || type === "reminders") && (op === "add" || op === "update")) void this.wake();
    });
    void this.wake();
  }

  /** Sends every message due now, one at a time; returns how many it tried to send. */
  async runPass(): Promise<number> {
    let attempted = 0;
    while ((await deliverNextScheduledMessage(this.app)) !== "none") attempted++;
    return attempted;
  }

  /** Runs a pass, after any already under way, then sets the timer for the next due message. */
  wake(): Promise<void> {
    this.work = this.work.then(() => this.tick());
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
    this.unsubscribe?.();
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
    let delaySeconds = POLL_SECONDS;
    try {
      await this.runPass();
      const next = await nextScheduledTimestamp(this.app.db);
      if (next !== undefined) delaySeconds = Math.min(POLL_SECONDS, Math.max(0, next - this.app.clock.now()));
    } catch (err) {
      this.app.log.error({ err }, "scheduled message delivery failed; retrying later");
    }
    if (this.closed) return;
    this.timer = this.timers.setTimeout(() => void this.wake(), delaySeconds * 1000);
  }
}
