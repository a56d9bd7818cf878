/**
 * What the system bots tell people around a sign-up: Welcome Bot's messages to the new user
 * (and its preview for administrators), Notification Bot's notes to the referrer and the
 * organization.
 */
import type { AppContext } from "../context.js";
import type { Caller } from "../http/auth.js";
import { runAction, type PendingEvents, type Tx } from "./run.js";
import type { Realm } from "../store/realms.js";
import { getSystemBot, type UserRow } from "../store/users.js";
import { getStream } from "../store/streams.js";
import { badRequest } from "../http/errors.js";
import { normalizeContent, sendMessageInTx, type SendOptions } from "./messages.js";

const WELCOME_BOT = "welcome-bot@zulip.com";
const NOTIFICATION_BOT = "notification-bot@zulip.com";
const SIGNUPS_TOPIC = "signups";
/** Messages from system bots, which nobody reads as they are sent. */
const AS_SYSTEM_BOT: SendOptions = { clientName: "Internal", readBySender: false };

const silentMention = (user: UserRow) => `@_**${user.full_name}|${user.id}**`;

function initialWelcomeText(): string {
  return [
    "Hello, and welcome to Zulip! 👋 I'm Welcome Bot, and this is a direct message from me.",
    "",
    "New to Zulip? The [getting started guide](/help/getting-started-with-zulip) shows you around.",
  ].join("\n");
}

/** Welcome Bot's greeting, then the custom welcome text when there is one. */
export async function sendWelcomeMessagesInTx(
  tx: Tx,
  app: AppContext,
  events: PendingEvents,
  realm: Realm,
  user: UserRow,
  customText: string | null,
): Promise<void> {
  const bot = await getSystemBot(tx, realm.id, WELCOME_BOT);
  const to = { kind: "direct" as const, recipients: [user] };
  await sendMessageInTx(tx, app, events, realm, bot, to, initialWelcomeText(), AS_SYSTEM_BOT);
  if (customText !== null) await sendMessageInTx(tx, app, events, realm, bot, to, normalizeContent(customText), AS_SYSTEM_BOT);
}

/** Notification Bot tells the person who invited the new user. */
export async function notifyReferrerInTx(tx: Tx, app: AppContext, events: PendingEvents, realm: Realm, referrer: UserRow, user: UserRow) {
  const bot = await getSystemBot(tx, realm.id, NOTIFICATION_BOT);
  const content = `${silentMention(user)} accepted your invitation to join Zulip!`;
  await sendMessageInTx(tx, app, events, realm, bot, { kind: "direct", recipients: [referrer] }, content, AS_SYSTEM_BOT);
}

/** Notification Bot announces the new user in the organization's sign-up announcements channel, if it has one. */
export async function announceSignupInTx(tx: Tx, app: AppContext, events: PendingEvents, realm: Realm, user: UserRow) {
  const stream = await getStream(tx, realm.id, realm.props.signup_announcements_stream_id);
  if (!stream || stream.is_archived === 1) return;
  const bot = await getSystemBot(tx, realm.id, NOTIFICATION_BOT);
  const content = `${silentMention(user)} joined this organization.`;
  await sendMessageInTx(tx, app, events, realm, bot, { kind: "stream", stream, topic: SIGNUPS_TOPIC }, content, AS_SYSTEM_BOT);
}

/**
 * POST /realm/test_welcome_bot_custom_message: Welcome Bot sends the administrator the custom
 * text exactly as a new user would get it. The organization's setting is left alone.
 */
export async function sendTestWelcomeMessage(app: AppContext, caller: Caller, text: string): Promise<number> {
  if (text.length === 0) throw badRequest("Message must not be empty");
  const content = normalizeContent(text);
  return runAction(app, async (tx, events) => {
    const bot = await getSystemBot(tx, caller.realm.id, WELCOME_BOT);
    return sendMessageInTx(tx, app, events, caller.realm, bot, { kind: "direct", recipients: [caller.user] }, content, AS_SYSTEM_BOT);
  });
}
