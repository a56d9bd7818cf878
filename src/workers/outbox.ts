/**
 * Makes the outbox's jobs (src/outbound/outbox.ts): emails, push bouncer calls and outgoing
 * webhooks. Every process runs one; a job is taken by one worker at a time, under a lease longer
 * than an attempt may last, and deleted once done. A failed attempt is tried again after a
 * growing delay (or as its kind's policy says), until the job is given up. The worker wakes when this process queues jobs, and looks for jobs other
 * processes queued (or that fell due) every few seconds.
 */
import type { AppContext, TimerHandle, Timers } from "../context.js";
import { TimedWorker } from "./timed_worker.js";
import { onOutboxJobsQueued, type OutboxPayloads } from "../outbound/outbox.js";
import { claimDueOutboxJobs, deleteOutboxJob, nextOutboxAttemptAt, retryOutboxJobAt, type OutboxJobRow } from "../store/outbox.js";
import { forwardRegistration, pushMessageTo } from "../actions/push_devices.js";
import { deliverOutgoingWebhook, outgoingWebhookGivenUp } from "../actions/outgoing_webhooks.js";
import { MAX_REQUEST_RETRIES } from "../domain/outgoing_webhooks.js";
import { makeLinkPreviews } from "../media/link_previews.js";
import { makeThumbnails } from "../media/thumbnails.js";

/** The longest the worker sleeps without looking for jobs. */
export const POLL_SECONDS = 5;
/** Jobs one worker takes at once and attempts side by side. */
const BATCH_SIZE = 20;
/** How long after the n-th failed attempt the next one is made; the last delay repeats. */
export const RETRY_DELAYS_SECONDS = [10, 60, 300, 1800, 3600];
/** Attempts after which a job is given up: about nine hours of retrying. */
export const MAX_ATTEMPTS = 12;
/** Beyond the attempt timeout, how long a lease lasts: the time to record the outcome. */
const LEASE_MARGIN_SECONDS = 30;

export const retryDelaySeconds = (attempts: number) => RETRY_DELAYS_SECONDS[Math.min(attempts, RETRY_DELAYS_SECONDS.length) - 1];

interface RetryPolicy {
  maxAttempts: number;
  delaySeconds(attempts: number): number;
  /** Done once the last attempt failed, before the job is deleted. */
  giveUp?(app: AppContext, job: OutboxJobRow, payload: unknown, err: unknown): Promise<void>;
}
const DEFAULT_POLICY: RetryPolicy = { maxAttempts: MAX_ATTEMPTS, delaySeconds: retryDelaySeconds };
/** Zulip puts a failed call straight back on its queue, and reports it after the last retry. */
const POLICIES: Record<string, RetryPolicy> = {
  outgoing_webhook: {
    maxAttempts: 1 + MAX_REQUEST_RETRIES,
    delaySeconds: () => 0,
    giveUp: (app, job, payload, err) => outgoingWebhookGivenUp(app, job, payload as OutboxPayloads["outgoing_webhook"], err),
  },
};

async function perform(app: AppContext, job: OutboxJobRow): Promise<void> {
  const payload: unknown = JSON.parse(job.payload);
  switch (job.kind) {
    case "email":
      return app.mailer.send(payload as OutboxPayloads["email"]);
    case "push_message":
      return pushMessageTo(app, payload as OutboxPayloads["push_message"]);
    case "push_register":
      return forwardRegistration(app, payload as OutboxPayloads["push_register"]);
    case "outgoing_webhook":
      return deliverOutgoingWebhook(app, job, payload as OutboxPayloads["outgoing_webhook"]);
    case "link_preview":
      return makeLinkPreviews(app, payload as OutboxPayloads["link_preview"]);
    case "thumbnail":
      return makeThumbnails(app, payload as OutboxPayloads["thumbnail"]);
    default:
      // Perhaps queued by a newer version of Confab sharing the database; it may take the job.
      throw new Error(`unknown outbox job kind ${job.kind}`);
  }
}

export class OutboxWorker extends TimedWorker {
  constructor(app: AppContext, timers: Timers) {
    super(app, timers, POLL_SECONDS, "outbox");
  }

  protected listen(wake: () => void): () => void {
    return onOutboxJobsQueued(this.app, wake);
  }

  /** Attempts every job due now; returns how many attempts it made. */
  async runPass(): Promise<number> {
    const timeoutSeconds = this.app.config.outboxJobTimeoutMs / 1000;
    let attempted = 0;
    for (;;) {
      const now = this.app.clock.now();
      const jobs = await claimDueOutboxJobs(this.app.db, this.app.dialect, now, now + timeoutSeconds + LEASE_MARGIN_SECONDS, BATCH_SIZE);
      if (!jobs.length) return attempted;
      attempted += jobs.length;
      await Promise.all(jobs.map((job) => this.attempt(job)));
    }
  }

  protected nextDue(): Promise<number | undefined> {
    return nextOutboxAttemptAt(this.app.db);
  }

  private async attempt(job: OutboxJobRow): Promise<void> {
    const { db, log } = this.app;
    try {
      await this.withinTimeout(perform(this.app, job));
    } catch (err) {
      const context = { err, job_id: job.id, kind: job.kind, attempts: job.attempts };
      const policy = POLICIES[job.kind] ?? DEFAULT_POLICY;
      if (job.attempts >= policy.maxAttempts) {
        log.error(context, "outbox job given up");
        await policy.giveUp?.(this.app, job, JSON.parse(job.payload), err);
        await deleteOutboxJob(db, job);
      } else {
        const delay = policy.delaySeconds(job.attempts);
        log.warn({ ...context, retry_in_seconds: delay }, "outbox job failed; will retry");
        await retryOutboxJobAt(db, job, this.app.clock.now() + delay);
      }
      return;
    }
    await deleteOutboxJob(db, job);
  }

  /** The attempt goes on after the timeout, but the job is then free to be tried again. */
  private withinTimeout(attempt: Promise<void>): Promise<void> {
    const ms = this.app.config.outboxJobTimeoutMs;
    let timer: TimerHandle;
    const timeout = new Promise<never>((_, reject) => {
      timer = this.timers.setTimeout(() => reject(new Error(`outbox job: no outcome within ${ms} ms`)), ms);
    });
    return Promise.race([attempt, timeout]).finally(() => this.timers.clearTimeout(timer));
  }
}
