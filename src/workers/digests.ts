/**
 * Sends weekly digests (src/notifications/digests.ts). Every process runs one and looks every
 * hour, so a digest day is served whenever a process is up; each user's digest is claimed in the
 * transaction that queues it, so looking again, or from several processes, sends nothing twice.
 */
import type { AppContext, Timers } from "../context.js";
import { TimedWorker } from "./timed_worker.js";
import { sendDueDigests } from "../notifications/digests.js";

const POLL_SECONDS = 3600;

export class DigestWorker extends TimedWorker {
  constructor(app: AppContext, timers: Timers) {
    super(app, timers, POLL_SECONDS, "digests");
  }

  /** Nothing a request does makes a digest due sooner. */
  protected listen(): () => void {
    return () => {};
  }

  runPass(): Promise<number> {
    return sendDueDigests(this.app);
  }

  protected async nextDue(): Promise<number | undefined> {
    return undefined;
  }
}
