/**
 * The outbox: emails, calls to the push bouncer and outgoing webhooks that a change implies are stored as jobs in
 * the change's own transaction, so they exist exactly when it committed, and the outbox worker
 * (src/workers/outbox.ts) of any process makes them, retrying failures with backoff.
 */
import type { AppContext } from "../context.js";
import type { PendingEvents, Tx } from "../actions/run.js";
import type { OutgoingEmail } from "./email.js";
import { insertOutboxJob } from "../store/outbox.js";
import type { OutgoingWebhookJob } from "../actions/outgoing_webhooks.js";
import type { LinkPreviewJob } from "../media/link_previews.js";
import type { ThumbnailJob } from "../media/thumbnails.js";

/** Each kind of job, with the payload its performer takes. */
export interface OutboxPayloads {
  email: OutgoingEmail;
  push_message: PushMessageJob;
  push_register: PushRegisterJob;
  outgoing_webhook: OutgoingWebhookJob;
  link_preview: LinkPreviewJob;
  thumbnail: ThumbnailJob;
}
export type OutboxKind = keyof OutboxPayloads;

/** One new message to one recipient's devices of one kind; the devices are looked up when sent. */
export interface PushMessageJob {
  realmId: number;
  userId: number;
  via: "e2ee" | "legacy";
  message: Record<string, unknown>;
}

/** Forwarding one pending E2EE device registration to the bouncer. */
export interface PushRegisterJob {
  realmId: number;
  userId: number;
  pushAccountId: string;
  bouncerPublicKey: string;
  encryptedPushRegistration: string;
}

const listeners = new WeakMap<AppContext, Set<() => void>>();

/** Calls `fn` whenever this process has committed new jobs; returns the way to stop. */
export function onOutboxJobsQueued(app: AppContext, fn: () => void): () => void {
  let set = listeners.get(app);
  if (!set) {
    set = new Set();
    listeners.set(app, set);
  }
  set.add(fn);
  return () => set.delete(fn);
}

export async function queueOutboxJob<K extends OutboxKind>(app: AppContext, tx: Tx, events: PendingEvents, kind: K, payload: OutboxPayloads[K]): Promise<void> {
  await insertOutboxJob(tx, kind, payload, app.clock.now());
  events.afterCommit(() => listeners.get(app)?.forEach((fn) => fn()));
}
