/**
 * Message notification emails, as Zulip's missedmessage_emails worker sends them. When a message
 * is sent, each recipient with a reason to be emailed (domain/message_emails.ts) who is away gets
 * a pending row, in the send's own transaction. Once the user's batching period has passed, one
 * transaction takes all of the user's rows, drops messages since read or deleted, and queues one
 * email per conversation in the outbox: rows taken and emails queued commit together, so a crash
 * at any point neither loses a batch nor sends one twice, and two processes never take the same rows.
 */
import type { AppContext } from "../context.js";
import type { PendingEvents, Tx } from "../actions/run.js";
import { runAction } from "../actions/run.js";
import type { Realm } from "../store/realms.js";
import { getRealm } from "../store/realms.js";
import type { Executor } from "../store/schema.js";
import type { MessageRow } from "../store/messages.js";
import { dmKeyUserIds } from "../store/messages.js";
import type { UserRow } from "../store/users.js";
import { isUnread } from "../store/message_flags.js";
import { realmUserRows } from "../actions/users.js";
import { usersMuting } from "../actions/muted_users.js";
import { queueOutboxJob } from "../outbound/outbox.js";
import { replyAddressFor } from "../email_gateway/addresses.js";
import { userProps } from "../format/users.js";
import { settingValue } from "../domain/user_settings.js";
import { FLAG_BITS } from "../domain/message_flags.js";
import { PRESENCE } from "../domain/presence.js";
import { messageUrl } from "../domain/message_links.js";
import {
  batchDueAt,
  bucketsOf,
  emailTrigger,
  includeRealmName,
  isAway,
  notificationSubject,
  TOPIC_POLICY,
  type EmailConversation,
  type EmailRecipientFacts,
  type EmailTrigger,
} from "../domain/message_emails.js";
import { notificationEmailBodies } from "./templates.js";
import { baseUrl, unsubscribeUrl } from "./unsubscribe.js";

/** Users whose batches one pass takes at a time. */
const USERS_PER_PASS = 20;
/** How long a batch that failed waits before it is tried again. */
const RETRY_SECONDS = 300;
/** Pending rows written per statement. */
const INSERT_CHUNK = 500;
/** Zulip's sender name for notification emails. */
const FROM_NAME = "Zulip notifications";

const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.has_alert_word;

const listeners = new WeakMap<AppContext, Set<() => void>>();

/** Calls `fn` whenever this process has committed new pending notifications; returns the way to stop. */
export function onMessageEmailsQueued(app: AppContext, fn: () => void): () => void {
  let set = listeners.get(app);
  if (!set) listeners.set(app, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

const bool = (props: Record<string, unknown>, name: string) => settingValue(props, name) === true;

/**
 * Remembered per row object: user rows come from the organization's shared cache, and every
 * channel message asks this of each recipient, so a large channel must not parse each one's
 * settings JSON on every send. A changed user is a new row object.
 */
const settingsByRow = new WeakMap<UserRow, EmailRecipientFacts["settings"]>();

function settingsOf(user: UserRow): EmailRecipientFacts["settings"] {
  let settings = settingsByRow.get(user);
  if (!settings) settingsByRow.set(user, (settings = readSettings(user)));
  return settings;
}

function readSettings(user: UserRow): EmailRecipientFacts["settings"] {
  const props = userProps(user);
  return {
    enable_offline_email_notifications: bool(props, "enable_offline_email_notifications"),
    enable_stream_email_notifications: bool(props, "enable_stream_email_notifications"),
    wildcard_mentions_notify: bool(props, "wildcard_mentions_notify"),
    enable_followed_topic_email_notifications: bool(props, "enable_followed_topic_email_notifications"),
    enable_followed_topic_wildcard_mentions_notify: bool(props, "enable_followed_topic_wildcard_mentions_notify"),
  };
}

const optionalBool = (v: unknown): boolean | null => (typeof v === "boolean" ? v : null);

/** Whether the user has an event queue open that receives messages (Zulip's receiver_is_off_zulip). */
async function hasMessageQueue(app: AppContext, userId: number): Promise<boolean> {
  for (const id of await app.eventQueues.queueIdsOf(userId)) {
    const types = (await app.eventQueues.inspect(id))?.spec.eventTypes;
    if (types === null || types?.includes("message")) return true;
  }
  return false;
}

/**
 * Records the emails a new message calls for; part of the send's transaction. `flagsByUser`
 * holds every recipient's flags as stored.
 */
export async function queueMessageEmails(
  app: AppContext,
  tx: Tx,
  events: PendingEvents,
  realm: Realm,
  message: MessageRow,
  flagsByUser: ReadonlyMap<number, number>,
): Promise<void> {
  const users = new Map((await realmUserRows(app, realm.id, tx)).map((u) => [u.id, u]));
  const isChannel = message.stream_id !== null;
  const candidates: number[] = [];
  const settings = new Map<number, EmailRecipientFacts["settings"]>();
  const subscriptionOptIn = isChannel ? await channelEmailSubscribers(tx, message.stream_id!) : new Set<number>();
  const topicPolicies = new Map<number, number>();
  if (isChannel) {
    const rows = await tx
      .selectFrom("user_topics")
      .select(["user_id", "visibility_policy"])
      .where("stream_id", "=", message.stream_id!)
      .where("topic_key", "=", message.topic.toLowerCase())
      .execute();
    for (const r of rows) topicPolicies.set(r.user_id, r.visibility_policy);
  }
  for (const [userId, flags] of flagsByUser) {
    const user = users.get(userId);
    if (!user || user.is_bot === 1 || userId === message.sender_id || flags & FLAG_BITS.read) continue;
    const s = settingsOf(user);
    const maybe =
      !isChannel ||
      (flags & (MENTION_BITS | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0 ||
      s.enable_stream_email_notifications ||
      subscriptionOptIn.has(userId) ||
      topicPolicies.get(userId) === TOPIC_POLICY.followed;
    if (!maybe) continue;
    settings.set(userId, s);
    candidates.push(userId);
  }
  if (!candidates.length) return;

  const subscriptions = new Map<number, Record<string, unknown>>();
  if (isChannel) {
    const rows = await tx
      .selectFrom("subscriptions")
      .select(["user_id", "props"])
      .where("stream_id", "=", message.stream_id!)
      .where("user_id", "in", candidates)
      .execute();
    for (const r of rows) subscriptions.set(r.user_id, JSON.parse(r.props));
  }
  const muting = new Set(await usersMuting(app, tx, message.sender_id));
  const triggers = new Map<number, EmailTrigger>();
  for (const userId of candidates) {
    const flags = flagsByUser.get(userId)!;
    const sub = subscriptions.get(userId);
    const trigger = emailTrigger({
      userId,
      isBot: false,
      senderId: message.sender_id,
      senderMuted: muting.has(userId),
      directMessage: !isChannel,
      mentioned: (flags & MENTION_BITS) !== 0,
      streamWildcardMentioned: (flags & FLAG_BITS.stream_wildcard_mentioned) !== 0,
      topicWildcardMentioned: (flags & FLAG_BITS.topic_wildcard_mentioned) !== 0,
      settings: settings.get(userId)!,
      subscription: sub && {
        isMuted: sub.is_muted === true,
        emailNotifications: optionalBool(sub.email_notifications),
        wildcardMentionsNotify: optionalBool(sub.wildcard_mentions_notify),
      },
      topicPolicy: topicPolicies.get(userId),
    });
    if (trigger) triggers.set(userId, trigger);
  }
  if (!triggers.size) return;

  const now = app.clock.now();
  const ids = [...triggers.keys()];
  const presence = new Map(
    (await tx.selectFrom("user_presence").select(["user_id", "last_active_time"]).where("user_id", "in", ids).execute()).map((r) => [
      r.user_id,
      r.last_active_time === null ? null : Number(r.last_active_time),
    ]),
  );
  const pendingDue = new Map(
    (
      await tx
        .selectFrom("message_email_notifications")
        .select((eb) => ["user_id", eb.fn.min("scheduled_at").as("due")])
        .where("user_id", "in", ids)
        .groupBy("user_id")
        .execute()
    ).map((r) => [r.user_id, Number(r.due)]),
  );
  const rows = [];
  for (const [userId, trigger] of triggers) {
    if (!isAway(await hasMessageQueue(app, userId), presence.get(userId) ?? null, now, PRESENCE.offlineThresholdSecs)) continue;
    const period = Number(settingValue(userProps(users.get(userId)!), "email_notifications_batching_period_seconds"));
    rows.push({ user_id: userId, message_id: message.id, trigger, scheduled_at: batchDueAt(pendingDue.get(userId), now, period) });
  }
  if (!rows.length) return;
  // A wildcard mention in a large channel is many rows: chunks stay under the databases' bound-value limits.
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await tx.insertInto("message_email_notifications").values(rows.slice(i, i + INSERT_CHUNK)).execute();
  events.afterCommit(() => listeners.get(app)?.forEach((fn) => fn()));
}

/**
 * Subscribers of the channel who turned its email notifications on themselves. Subscription
 * settings are one JSON text per row, written by JSON.stringify, so the key and value appear
 * exactly so.
 */
async function channelEmailSubscribers(db: Executor, streamId: number): Promise<Set<number>> {
  const rows = await db
    .selectFrom("subscriptions")
    .select("user_id")
    .where("stream_id", "=", streamId)
    .where("active", "=", 1)
    .where("props", "like", '%"email_notifications":true%')
    .execute();
  return new Set(rows.map((r) => r.user_id));
}

/** When the next batch is due, if any is waiting. */
export async function nextMessageEmailDue(db: Executor): Promise<number | undefined> {
  const row = await db
    .selectFrom("message_email_notifications")
    .select((eb) => eb.fn.min("scheduled_at").as("due"))
    .executeTakeFirst();
  return row?.due === null || row?.due === undefined ? undefined : Number(row.due);
}

/** Sends every batch due now; returns how many users' batches it took. */
export async function sendDueMessageEmails(app: AppContext): Promise<number> {
  let taken = 0;
  for (;;) {
    const users = await app.db
      .selectFrom("message_email_notifications")
      .select("user_id")
      .distinct()
      .where("scheduled_at", "<=", app.clock.now())
      .orderBy("user_id")
      .limit(USERS_PER_PASS)
      .execute();
    if (!users.length) return taken;
    for (const { user_id } of users) {
      try {
        await runAction(app, (tx, events) => emailBatch(app, tx, events, user_id));
      } catch (err) {
        // The batch stays, later, so one user's failure neither loops this pass nor holds up the others.
        app.log.error({ err, user_id }, "message emails: batch failed; will retry");
        await app.db
          .updateTable("message_email_notifications")
          .set({ scheduled_at: app.clock.now() + RETRY_SECONDS })
          .where("user_id", "=", user_id)
          .execute();
      }
      taken += 1;
    }
  }
}

interface BatchMessage extends MessageRow {
  trigger: EmailTrigger;
  participantIds: number[] | null;
}

async function emailBatch(app: AppContext, tx: Tx, events: PendingEvents, userId: number): Promise<void> {
  // Taking the rows is what makes this batch ours: another process finds none left.
  const pending = await tx.deleteFrom("message_email_notifications").where("user_id", "=", userId).returning(["message_id", "trigger"]).execute();
  if (!pending.length) return;
  const user = await tx.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
  if (!user || user.is_active !== 1 || user.is_bot === 1) return;
  const props = userProps(user);
  if (!bool(props, "enable_offline_email_notifications")) return;
  const realm = await getRealm(tx, user.realm_id);
  if (!realm || realm.deactivated) return;
  const triggerOf = new Map(pending.map((p) => [Number(p.message_id), p.trigger as EmailTrigger]));
  // Read or deleted since: dropped, as Zulip's batch does. Edits show: the row is read now.
  const messages = await tx
    .selectFrom("messages")
    .innerJoin("user_messages", "user_messages.message_id", "messages.id")
    .selectAll("messages")
    .where("user_messages.user_id", "=", userId)
    .where("messages.id", "in", [...triggerOf.keys()])
    .where(isUnread())
    .execute();
  if (!messages.length) return;
  const batch: BatchMessage[] = messages.map((m) => ({
    ...m,
    trigger: triggerOf.get(m.id)!,
    participantIds: m.dm_key === null ? null : dmKeyUserIds(m.dm_key),
  }));
  const people = new Map((await realmUserRows(app, realm.id, tx)).map((u) => [u.id, u]));
  const name = (id: number) => people.get(id)?.full_name ?? "Unknown user";
  const showContent = realm.props.message_content_allowed_in_email_notifications && bool(props, "message_content_in_email_notifications");
  const accounts = await tx
    .selectFrom("users")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("delivery_email", "=", user.delivery_email)
    .where("is_active", "=", 1)
    .where("is_bot", "=", 0)
    .executeTakeFirstOrThrow();
  const realmName = includeRealmName(Number(settingValue(props, "realm_name_in_email_notifications_policy")), Number(accounts.n)) ? realm.name : null;
  const base = baseUrl(app);
  const footer = {
    realmName: realm.name,
    settingsUrl: `${base}/#settings/notifications`,
    unsubscribeUrl: unsubscribeUrl(app, "missed_messages", userId),
  };
  for (const bucket of bucketsOf(batch.map((m) => ({ ...m, senderId: m.sender_id, recipientId: m.recipient_id, streamId: m.stream_id })))) {
    const first = bucket[0];
    let conversation: EmailConversation;
    let heading: string;
    let narrowUrl: string;
    if (first.streamId !== null) {
      const channel = await tx.selectFrom("streams").select("name").where("id", "=", first.streamId).executeTakeFirst();
      if (!channel) continue;
      conversation = { kind: "channel", channelName: channel.name, topic: first.topic };
      heading = `#${channel.name} > ${first.topic}`;
      narrowUrl = messageUrl(base, { id: first.id, channel: { id: first.streamId, name: channel.name, topic: first.topic } }).replace(/\/near\/\d+$/, "");
    } else {
      const others = first.participantIds!.filter((id) => id !== userId);
      conversation =
        first.participantIds!.length > 2
          ? { kind: "group", otherNames: others.map(name) }
          : { kind: "dm", senderNames: [...new Set(bucket.map((m) => name(m.sender_id)))] };
      heading = others.length > 1 ? `Group DMs with ${others.map(name).join(", ")}` : `DMs with ${name(others[0] ?? userId)}`;
      narrowUrl = messageUrl(base, { id: first.id, participantIds: first.participantIds! }).replace(/\/near\/\d+$/, "");
    }
    const replyTo = showContent ? await replyAddressFor(tx, app, { userId, messageId: first.id }) : null;
    const bodies = notificationEmailBodies({
      heading,
      narrowUrl,
      messages: showContent ? bucket.map((m) => ({ senderName: name(m.sender_id), html: m.rendered_content, text: m.content })) : [],
      contentHidden: !showContent,
      replyPosts: replyTo !== null,
      footer: { ...footer, reason: reasonFor(bucket.map((m) => m.trigger)) },
      base,
    });
    await queueOutboxJob(app, tx, events, "email", {
      to: user.delivery_email,
      subject: notificationSubject(conversation, showContent, realmName),
      ...bodies,
      fromName: FROM_NAME,
      ...(replyTo ? { replyTo } : {}),
      headers: { "List-Unsubscribe": `<${footer.unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
  }
}

/** The footer's sentence on why the email came, from the batch's most salient trigger. */
function reasonFor(triggers: EmailTrigger[]): string {
  const has = (...t: EmailTrigger[]) => triggers.some((x) => t.includes(x));
  if (has("private_message")) return "You are receiving this because you were sent direct messages while you were away.";
  if (has("mentioned")) return "You are receiving this because you were mentioned while you were away.";
  if (has("topic_wildcard_mentioned", "stream_wildcard_mentioned", "topic_wildcard_mentioned_in_followed_topic", "stream_wildcard_mentioned_in_followed_topic")) {
    return "You are receiving this because everyone was mentioned while you were away.";
  }
  if (has("followed_topic_email_notify")) return "You are receiving this because you follow this topic.";
  return "You are receiving this because you have email notifications enabled for this channel.";
}
