/**
 * Outgoing webhooks: a message that mentions an outgoing-webhook bot in a channel, or is sent to
 * one directly, is queued in the outbox (in the message's own transaction) for each of the bot's
 * services; the outbox worker posts it to the service's URL (src/outbound/safe_fetch.ts) and the
 * bot answers in the conversation, or reports the failure there and to its owner, as Zulip's
 * outgoing webhook worker does. A timed-out or unreachable server is tried again
 * MAX_REQUEST_RETRIES times; any other outcome is final.
 */
import type { AppContext } from "../context.js";
import type { Config } from "../config.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { checkMessage, defaultReadBySender, normalizeContent, sendMessageInTx, type MessageTarget } from "./messages.js";
import { realmUserRows } from "./users.js";
import { updateMessageFlagsInTx } from "./message_flags.js";
import { queueOutboxJob } from "../outbound/outbox.js";
import { AddressPolicy } from "../outbound/address_policy.js";
import { DisallowedAddress, RequestTimeout, ConnectionFailure, safeFetch, type SafeResponse } from "../outbound/safe_fetch.js";
import { indexById } from "../store/read_cache.js";
import { getRealm, type Realm } from "../store/realms.js";
import { getRealmUser, type UserRow } from "../store/users.js";
import { getStream } from "../store/streams.js";
import { takeOutboxJob, type OutboxJobRow } from "../store/outbox.js";
import { ZulipError, streamDoesNotExistById } from "../http/errors.js";
import { ZULIP_VERSION } from "../domain/limits.js";
import { messageUrl } from "../domain/message_links.js";
import {
  BOT_UNAVAILABLE,
  CONNECTION_ERROR,
  DISALLOWED_NETWORK_STATUS,
  SLACK_INTERFACE,
  SLACK_NO_DIRECT_MESSAGES,
  THIRD_PARTY_STATUS,
  conversationFailure,
  exceptionInConversation,
  ownerNotice,
  pythonRepr,
  readAnswer,
  replyRefused,
  slackForm,
  timedOut,
  triggeredBots,
  type OwnerNotice,
  type Trigger,
} from "../domain/outgoing_webhooks.js";

/** One call of one bot's service about one message. */
export interface OutgoingWebhookJob {
  realmId: number;
  botId: number;
  serviceId: number;
  trigger: Trigger;
  /** The message as its bot's server is sent it, taken when it was sent (Zulip's event does the same). */
  message: Record<string, unknown>;
}

/** A failure Zulip tries again: the bot server did not answer in time, or could not be reached. */
export class RetryableWebhookFailure extends Error {}

/** The client Zulip records on a bot's answers. */
const RESPONSE_CLIENT = "OutgoingWebhookResponse";
/** Larger answers are not read; a bot's reply is at most a message long. */
const MAX_RESPONSE_BYTES = 1 << 20;

/**
 * In the send's transaction: queues a call for each service of each outgoing-webhook bot the
 * message triggers. `mentioned` holds the users the content mentions, group members included.
 */
export async function queueOutgoingWebhooks(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  sender: UserRow,
  target: MessageTarget,
  mentioned: ReadonlySet<number>,
  message: () => Record<string, unknown>,
): Promise<void> {
  let candidates: UserRow[];
  let trigger: Trigger;
  if (target.kind === "stream") {
    if (!mentioned.size) return;
    const users = indexById(await realmUserRows(app, realm.id, tx));
    candidates = [...mentioned].map((id) => users.get(id)).filter((u): u is UserRow => u !== undefined);
    trigger = "mention";
  } else {
    candidates = target.recipients;
    trigger = "direct_message";
  }
  const botIds = triggeredBots(sender, candidates);
  if (!botIds.length) return;
  const services = await tx.selectFrom("bot_services").select(["id", "user_id"]).where("user_id", "in", botIds).orderBy("id").execute();
  if (!services.length) return;
  const dict = message();
  for (const s of services) {
    await queueOutboxJob(app, tx, events, "outgoing_webhook", { realmId: realm.id, botId: s.user_id, serviceId: s.id, trigger, message: dict });
  }
}

const policies = new WeakMap<Config, AddressPolicy>();
function addressPolicy(config: Config): AddressPolicy {
  let policy = policies.get(config);
  if (!policy) policies.set(config, (policy = new AddressPolicy(config.outboundAllowedNetworks)));
  return policy;
}

interface Delivery {
  app: AppContext;
  job: OutboxJobRow;
  payload: OutgoingWebhookJob;
  realm: Realm;
  bot: UserRow;
}

/** The outbox's performer for `outgoing_webhook` jobs. */
export async function deliverOutgoingWebhook(app: AppContext, job: OutboxJobRow, payload: OutgoingWebhookJob): Promise<void> {
  const realm = await getRealm(app.db, payload.realmId);
  const bot = await getRealmUser(app.db, payload.realmId, payload.botId);
  const service = await app.db.selectFrom("bot_services").selectAll().where("id", "=", payload.serviceId).executeTakeFirst();
  // A bot deactivated or reconfigured since has nothing left to call.
  if (!realm || realm.deactivated || !bot || bot.is_active !== 1 || !service) return;
  const d: Delivery = { app, job, payload, realm, bot };
  const message = payload.message;
  const command = String(message.content);

  let request: { body: string; contentType: string };
  if (service.interface === SLACK_INTERFACE) {
    if (message.type === "private") return report(d, { conversation: SLACK_NO_DIRECT_MESSAGES });
    const form = slackForm({
      token: service.token,
      realmId: realm.id,
      realmHost: new URL(app.config.externalUrl).host,
      botId: bot.id,
      trigger: payload.trigger,
      message,
    });
    request = { body: form.toString(), contentType: "application/x-www-form-urlencoded" };
  } else {
    const body = { data: command, message, bot_email: bot.email, bot_full_name: bot.full_name, token: service.token, trigger: payload.trigger };
    request = { body: JSON.stringify(body), contentType: "application/json" };
  }

  const started = Date.now();
  let res: SafeResponse;
  try {
    res = await safeFetch(addressPolicy(app.config), {
      url: service.base_url,
      method: "POST",
      headers: { "content-type": request.contentType, "user-agent": `ZulipOutgoingWebhook/${ZULIP_VERSION}` },
      body: request.body,
      timeoutMs: app.config.outgoingWebhookTimeoutMs,
      maxBytes: MAX_RESPONSE_BYTES,
    });
  } catch (err) {
    if (err instanceof RequestTimeout) throw new RetryableWebhookFailure(timedOut(app.config.outgoingWebhookTimeoutMs / 1000));
    if (err instanceof ConnectionFailure) throw new RetryableWebhookFailure(CONNECTION_ERROR);
    if (err instanceof DisallowedAddress) {
      // Zulip's outgoing proxy refuses such URLs with a 407, and Zulip reports that status.
      return report(d, { conversation: THIRD_PARTY_STATUS(DISALLOWED_NETWORK_STATUS), owner: { status: DISALLOWED_NETWORK_STATUS } });
    }
    const e = err as Error;
    app.log.error({ err: e, bot_id: bot.id }, "outgoing webhook failed");
    return report(d, { conversation: exceptionInConversation(e.name, command), owner: { exception: { type: e.name, text: e.message } } });
  }
  app.log.info({ bot_id: bot.id, realm: realm.string_id, seconds: (Date.now() - started) / 1000 }, "outgoing webhook request");

  if (res.status < 200 || res.status > 299) {
    app.log.warn({ bot_id: bot.id, status: res.status }, "outgoing webhook answered with an error status");
    return report(d, {
      conversation: THIRD_PARTY_STATUS(res.status),
      owner: { status: res.status, responseRepr: res.body.length ? pythonRepr(res.body, true) : undefined },
    });
  }
  const text = res.body.toString("utf8");
  const answer = readAnswer(service.interface, text);
  if (answer.kind === "nothing") return finish(d);
  const refused = (error: string) =>
    report(d, { conversation: error, owner: { failureMessage: replyRefused(error), responseRepr: text ? pythonRepr(text, false) : undefined } });
  if (answer.kind === "invalid") return refused(answer.error);
  try {
    await finish(d, (tx, events) => postInConversation(tx, d, events, answer.content));
  } catch (err) {
    if (err instanceof ZulipError) return refused(err.msg);
    throw err;
  }
}

/** The outbox's last word on a job that kept timing out or failing to connect. */
export async function outgoingWebhookGivenUp(app: AppContext, job: OutboxJobRow, payload: OutgoingWebhookJob, err: unknown): Promise<void> {
  const realm = await getRealm(app.db, payload.realmId);
  const bot = await getRealmUser(app.db, payload.realmId, payload.botId);
  if (!realm || realm.deactivated || !bot || bot.is_active !== 1) return;
  app.log.warn({ bot_id: bot.id, err }, "outgoing webhook: maximum retries exceeded");
  await report(
    { app, job, payload, realm, bot },
    { conversation: BOT_UNAVAILABLE, owner: { failureMessage: err instanceof RetryableWebhookFailure ? err.message : undefined } },
  );
}

/**
 * Ends the job: what `post` posts is committed with the job's deletion, so it is posted once even
 * if the job's lease ran out and another worker took it meanwhile (that worker's outcome wins).
 */
async function finish(d: Delivery, post?: (tx: Tx, events: PendingEvents) => Promise<void>): Promise<void> {
  await runAction(d.app, async (tx, events) => {
    if (!(await takeOutboxJob(tx, d.job))) throw new Error("outgoing webhook job taken by another worker");
    await post?.(tx, events);
    // As Zulip's worker does once the bot's services were called.
    await updateMessageFlagsInTx(d.app, tx, events, d.bot, d.realm, { flag: "read", adding: true }, [Number(d.payload.message.id)]);
  });
}

/**
 * "Failure! …" where the bot was called and, with `owner`, a direct message to the bot's owner,
 * committed with the job's end. A conversation or owner the bot can no longer reach is skipped.
 */
async function report(d: Delivery, what: { conversation: string; owner?: Omit<OwnerNotice, "messageUrl" | "botFullName"> }): Promise<void> {
  const { app, bot } = d;
  await finish(d, async (tx, events) => {
    await skippingRefusals(() => postInConversation(tx, d, events, conversationFailure(what.conversation)));
    if (!what.owner || bot.bot_owner_id === null) return;
    const content = ownerNotice({ ...what.owner, messageUrl: linkTo(app, d.payload.message), botFullName: bot.full_name });
    await skippingRefusals(async () => {
      const { target } = await checkMessage(app, tx, d.realm, bot, { kind: "direct", recipients: [bot.bot_owner_id!] }, content);
      await send(tx, d, events, target, normalizeContent(content));
    });
  });
}

async function skippingRefusals(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof ZulipError)) throw err;
  }
}

/**
 * The bot posts in the conversation that called it: the same channel and topic (without the
 * channel's posting checks, as Zulip skips them for these bots), or the same direct message.
 */
async function postInConversation(tx: Tx, d: Delivery, events: PendingEvents, content: string): Promise<void> {
  const { app, realm, bot } = d;
  const m = d.payload.message;
  let target: MessageTarget;
  if (m.type === "stream") {
    const streamId = Number(m.stream_id);
    const stream = await getStream(tx, realm.id, streamId);
    if (!stream || stream.is_archived) throw streamDoesNotExistById(streamId);
    target = { kind: "stream", stream, topic: String(m.subject) };
  } else {
    const ids = (m.display_recipient as { id: number }[]).map((r) => r.id);
    target = (await checkMessage(app, tx, realm, bot, { kind: "direct", recipients: ids }, content)).target;
  }
  const normalized = normalizeContent(content);
  if (!normalized.trim()) return;
  await send(tx, d, events, target, normalized);
}

function send(tx: Tx, d: Delivery, events: PendingEvents, target: MessageTarget, content: string): Promise<number> {
  return sendMessageInTx(tx, d.app, events, d.realm, d.bot, target, content, { clientName: RESPONSE_CLIENT, readBySender: defaultReadBySender(RESPONSE_CLIENT) });
}

function linkTo(app: AppContext, m: Record<string, unknown>): string {
  const base = app.config.externalUrl.replace(/\/+$/, "");
  if (m.type === "stream") {
    return messageUrl(base, { id: Number(m.id), channel: { id: Number(m.stream_id), name: String(m.display_recipient), topic: String(m.subject) } });
  }
  return messageUrl(base, { id: Number(m.id), participantIds: (m.display_recipient as { id: number }[]).map((r) => r.id) });
}
