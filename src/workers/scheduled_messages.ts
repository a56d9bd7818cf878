/**
 * Sends scheduled messages and reminders when they fall due. The worker sleeps until the earliest message
 * waiting in the database is due, and wakes early when this server schedules or reschedules
 * one. Other servers sharing the database may schedule messages too; it looks again at least
 * once a minute for those. Delivery itself is safe to run in every server at once.
 */
import type { AppContext, Timers } from "../context.js";
import { TimedWorker } from "./timed_worker.js";
import { deliverNextScheduledMessage } from "../actions/scheduled_messages.js";
import { nextScheduledTimestamp } from "../store/scheduled_messages.js";

/** The longest the worker sleeps without looking for messages other servers scheduled. */
export const POLL_SECONDS = 60;

export class ScheduledMessageWorker extends TimedWorker {
  constructor(app: AppContext, timers: Timers) {
    super(app, timers, POLL_SECONDS, "scheduled message delivery");
  }

  protected listen(wake: () => void): () => void {
    return this.app.bus.subscribe((notice) => {
      const { type, op } = notice.event;
      if ((type === "scheduled_messages" || type === "reminders") && (op === "add" || op === "update")) wake();
    });
  }

  /** Sends every message due now, one at a time; returns how many it tried to send. */
  async runPass(): Promise<number> {
    let attempted = 0;
    while ((await deliverNextScheduledMessage(this.app)) !== "none") attempted++;
    return attempted;
  }

  protected nextDue(): Promise<number | undefined> {
    return nextScheduledTimestamp(this.app.db);
  }
}
