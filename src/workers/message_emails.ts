/**
 * Sends message notification emails once each user's batch is due (src/notifications/message_emails.ts).
 * Every process runs one; a batch is taken in the transaction that queues its emails, so only one
 * worker sends it. Wakes when this process records a notification, and when the next batch falls due.
 */
import type { AppContext, Timers } from "../context.js";
import { TimedWorker } from "./timed_worker.js";
import { nextMessageEmailDue, onMessageEmailsQueued, sendDueMessageEmails } from "../notifications/message_emails.js";

/** The longest the worker sleeps without looking for batches other processes recorded. */
const POLL_SECONDS = 30;

export class MessageEmailWorker extends TimedWorker {
  constructor(app: AppContext, timers: Timers) {
    super(app, timers, POLL_SECONDS, "message emails");
  }

  protected listen(wake: () => void): () => void {
    return onMessageEmailsQueued(this.app, wake);
  }

  runPass(): Promise<number> {
    return sendDueMessageEmails(this.app);
  }

  protected nextDue(): Promise<number | undefined> {
    return nextMessageEmailDue(this.app.db);
  }
}
