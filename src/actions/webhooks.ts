/**
 * Incoming webhooks (`/api/v1/external/{name}`): who is calling, what the integration makes of
 * the request, and posting its messages as the caller — to a channel, or as a direct message
 * to the bot's owner — in one transaction. Misconfigurations are reported to the bot's owner by
 * Notification Bot, at most once a minute per bot, as Zulip does.
 */
import type { AppContext } from "../context.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import { checkMessage, sendMessageInTx, defaultReadBySender, type Addressee } from "./messages.js";
import { channelSubscriberLists } from "./channel_context.js";
import type { Caller } from "../http/auth.js";
import type { Credentials } from "../context.js";
import { getUserByApiKey } from "../store/users.js";
import { frozenRealm, getRealm } from "../store/realms.js";
import { ZulipError, realmDeactivated, userDeactivated } from "../http/errors.js";
import { getNotificationBot, getRealmUser, type UserRow } from "../store/users.js";
import type { Realm } from "../store/realms.js";
import { eventWanted, unquote } from "../integrations/outcome.js";
import {
  AnomalousPayload,
  MissingEventHeader,
  UnsupportedEvent,
  type Integration,
  type WebhookMessage,
  type WebhookRequest,
} from "../integrations/types.js";

const API_KEY_SHAPE = /^[A-Za-z0-9]{32}$/;

/** Zulip's InvalidAPIKeyError and InvalidAPIKeyFormatError (no Basic challenge: the key is a URL parameter). */
const invalidApiKey = (msg: string) => new ZulipError(msg, "INVALID_API_KEY", 401);

/** The client name Zulip records on a webhook's messages: `Zulip<name>Webhook`. */
export function webhookClientName(integration: Integration): string {
  return `Zulip${integration.displayName}Webhook`;
}

/** The user whose `api_key` is in the URL: any active user of an active organization. */
export async function callerByWebhookKey(app: AppContext, apiKey: string, clientName: string): Promise<Caller> {
  const key = apiKey.trim();
  if (!API_KEY_SHAPE.test(key)) throw invalidApiKey("Malformed API key");
  const credentials = await app.caches.credentials.get(key, app.db, () => loadCredentials(app, key));
  if (!credentials) throw invalidApiKey("Invalid API key");
  if (credentials.realm.deactivated) throw realmDeactivated();
  if (credentials.user.is_active !== 1) throw userDeactivated();
  return { user: credentials.user, realm: credentials.realm, clientName };
}

/** As src/http/auth.ts reads them for HTTP Basic: shared through the same cache, frozen. */
async function loadCredentials(app: AppContext, apiKey: string): Promise<Credentials | undefined> {
  const user = await getUserByApiKey(app.db, apiKey);
  const realm = user && (await getRealm(app.db, user.realm_id));
  if (!user || !realm) return undefined;
  return { user: Object.freeze(user), realm: frozenRealm(realm) };
}

/** The last notice each bot's owner got, per server process: Zulip keeps it on the bot (`last_reminder`). */
const lastNotice = new WeakMap<AppContext, Map<number, number>>();
const NOTICE_INTERVAL_SECONDS = 60;

/**
 * Notification Bot tells a bot's owner about a problem with the bot's requests, unless it did
 * in the last minute. Nothing for users who are not bots, or bots without an owner.
 */
async function noticeToBotOwner(tx: Tx, app: AppContext, events: PendingEvents, realm: Realm, bot: UserRow, content: string): Promise<void> {
  if (bot.is_bot !== 1 || bot.bot_owner_id === null || realm.deactivated) return;
  let sent = lastNotice.get(app);
  if (!sent) lastNotice.set(app, (sent = new Map()));
  const now = app.clock.now();
  const last = sent.get(bot.id);
  if (last !== undefined && now - last <= NOTICE_INTERVAL_SECONDS) return;
  const owner = await getRealmUser(tx, realm.id, bot.bot_owner_id);
  if (!owner || owner.is_active !== 1) return;
  sent.set(bot.id, now);
  const notificationBot = await getNotificationBot(tx, realm.id);
  await sendMessageInTx(tx, app, events, realm, notificationBot, { kind: "direct", recipients: [owner] }, content, {
    clientName: "Internal",
    readBySender: false,
  });
}

function noticeAlone(app: AppContext, caller: Caller, content: string): Promise<void> {
  return runAction(app, (tx, events) => noticeToBotOwner(tx, app, events, caller.realm, caller.user, content));
}

const missingHeaderNotice = (bot: UserRow, path: string, header: string, integration: Integration, supportEmail: string) =>
  `Hi there!  Your bot ${bot.full_name} just sent an HTTP request to ${path} that
is missing the HTTP ${header} header.  Because this header is how
${integration.displayName} indicates the event type, this usually indicates a configuration
issue, where you either entered the URL for a different integration, or are running
an older version of the third-party service that doesn't provide that header.
Contact ${supportEmail} if you need help debugging!`;

const invalidJsonNotice = (integration: Integration) =>
  `Hi there! It looks like you tried to set up the Zulip ${integration.displayName} integration,
but didn't correctly configure the webhook to send data in the JSON format
that this integration expects!`;

export interface WebhookTarget {
  /** The `stream` parameter: a channel name, or an id when all digits; none for a direct message to the bot's owner. */
  stream: string | undefined;
  /** The `topic` parameter, which replaces every channel message's topic. */
  topic: string | undefined;
  /** The request's path, quoted in the missing-header notice. */
  path: string;
  supportEmail: string;
}

/**
 * Runs the integration on the request and posts what it says, as the caller. Returns the
 * answer's fields; throws Zulip's webhook errors.
 */
export async function receiveWebhook(
  app: AppContext,
  caller: Caller,
  integration: Integration,
  request: WebhookRequest,
  target: WebhookTarget,
): Promise<Record<string, unknown>> {
  let outcome;
  try {
    outcome = integration.handle(request);
  } catch (e) {
    if (e instanceof UnsupportedEvent) {
      // Zulip answers a known event it does not report with a success carrying an error code.
      return {
        msg: `The '${e.eventType}' event isn't currently supported by the ${integration.displayName} webhook; ignoring`,
        webhook_name: integration.displayName,
        event_type: e.eventType,
        code: "UNSUPPORTED_WEBHOOK_EVENT_TYPE",
      };
    }
    if (e instanceof MissingEventHeader) {
      await noticeAlone(app, caller, missingHeaderNotice(caller.user, target.path, e.header, integration, target.supportEmail));
      throw new ZulipError(`Missing the HTTP event header '${e.header}'`, "MISSING_HTTP_EVENT_HEADER", 400, { header: e.header });
    }
    if (e instanceof ZulipError && e.code !== "INVALID_JSON") throw e;
    if (request.json === undefined || (e instanceof ZulipError && e.code === "INVALID_JSON")) {
      // The integration needed a JSON payload and the body was not one.
      await noticeAlone(app, caller, invalidJsonNotice(integration));
      throw new ZulipError("Malformed JSON", "INVALID_JSON", 400);
    }
    if (!(e instanceof AnomalousPayload)) app.log.info({ err: e, integration: integration.name }, "webhook payload not understood");
    throw new ZulipError(`Unable to parse request: Did ${integration.displayName} generate this event?`, "ANOMALOUS_WEBHOOK_PAYLOAD", 400, {
      webhook_name: integration.displayName,
    });
  }
  if (!eventWanted(outcome.event, request.params) || !outcome.messages.length) return {};
  const twice = (v: string | undefined) => (outcome.unquoteTopic && v !== undefined ? unquote(v) : v);
  await postWebhookMessages(app, caller, outcome.messages, { ...target, stream: twice(target.stream), topic: twice(target.topic) });
  return {};
}

/** Posts the messages in one transaction; a channel that does not exist gets none, and the bot's owner a notice. */
async function postWebhookMessages(app: AppContext, caller: Caller, messages: WebhookMessage[], target: WebhookTarget): Promise<void> {
  const { user: sender, realm } = caller;
  await runAction(app, async (tx, events) => {
    for (const message of messages) {
      let addressee: Addressee;
      if (target.stream === undefined) {
        // Without a channel, a bot's messages go to its owner; anyone else's to themself.
        const to = sender.is_bot === 1 && sender.bot_owner_id !== null ? sender.bot_owner_id : sender.id;
        addressee = { kind: "direct", recipients: [to] };
      } else {
        const byId = /^\d+$/.test(target.stream);
        const channel = byId ? Math.min(Number(target.stream), Number.MAX_SAFE_INTEGER) : target.stream;
        addressee = { kind: "stream", channel, topic: target.topic ?? message.topic };
      }
      let checked;
      try {
        checked = await checkMessage(app, tx, realm, sender, addressee, message.content);
      } catch (e) {
        if (!(e instanceof ZulipError) || e.code !== "STREAM_DOES_NOT_EXIST" || addressee.kind !== "stream") throw e;
        const identity = `\`${sender.delivery_email}\``;
        const notice =
          typeof addressee.channel === "number"
            ? `Your bot ${identity} tried to send a message to channel ID ${addressee.channel}, but there is no channel with that ID.`
            : `Your bot ${identity} tried to send a message to channel #**${String(addressee.channel).trim()}**, but that channel does not exist. Click [here](#channels/new) to create it.`;
        await noticeToBotOwner(tx, app, events, realm, sender, notice);
        continue;
      }
      const { target: where, content } = checked;
      if (where.kind === "stream") {
        const subscribers = (await channelSubscriberLists(app, tx, [where.stream.id])).get(where.stream.id) ?? [];
        if (!subscribers.length) {
          await noticeToBotOwner(
            tx,
            app,
            events,
            realm,
            sender,
            `Your bot \`${sender.delivery_email}\` tried to send a message to channel #**${where.stream.name}**. The channel exists but does not have any subscribers.`,
          );
        }
      }
      await sendMessageInTx(tx, app, events, realm, sender, where, content, {
        clientName: caller.clientName,
        readBySender: defaultReadBySender(caller.clientName),
      });
    }
  });
}
