/**
 * Weekly digests (Zulip's digest.py): on its organization's digest weekday, a user who has been
 * away for the digest period and wants digests gets the hot conversations of their channels and
 * the channels created meanwhile. Each user's digest is claimed by moving their last-sent time in
 * the transaction that queues the email, so any number of passes, in any number of processes,
 * send one digest per user per week.
 */
import { sql } from "kysely";
import type { AppContext } from "../context.js";
import { runAction } from "../actions/run.js";
import { toRealm, type Realm } from "../store/realms.js";
import type { UserRow } from "../store/users.js";
import { queueOutboxJob } from "../outbound/outbox.js";
import { userProps } from "../format/users.js";
import { settingValue } from "../domain/user_settings.js";
import { isGuest } from "../domain/roles.js";
import { messageUrl } from "../domain/message_links.js";
import { DIGEST_CUTOFF_DAYS, DIGEST_MIN_INTERVAL_DAYS, hotTopics, zulipWeekday, type DigestTopic } from "../domain/message_emails.js";
import { digestBodies, type DigestTopicFacts } from "./templates.js";
import { baseUrl, unsubscribeUrl } from "./unsubscribe.js";

const DAY = 24 * 3600;
/** Messages a digest shows of each hot topic. */
const SAMPLE_MESSAGES = 2;

interface RealmTopic extends DigestTopic {
  key: string;
}

/** Sends the digests due today; returns how many it queued. */
export async function sendDueDigests(app: AppContext): Promise<number> {
  const now = app.clock.now();
  const weekday = zulipWeekday(now);
  const realms = (await app.db.selectFrom("realms").selectAll().where("deactivated", "=", 0).execute())
    .map(toRealm)
    .filter((r) => r.props.digest_emails_enabled && r.props.digest_weekday === weekday);
  let sent = 0;
  for (const realm of realms) sent += await sendRealmDigests(app, realm, now);
  return sent;
}

async function sendRealmDigests(app: AppContext, realm: Realm, now: number): Promise<number> {
  const cutoff = now - DIGEST_CUTOFF_DAYS * DAY;
  const lastAllowed = now - DIGEST_MIN_INTERVAL_DAYS * DAY;
  const users = await app.db
    .selectFrom("users")
    .leftJoin("user_presence", "user_presence.user_id", "users.id")
    .leftJoin("digest_sends", "digest_sends.user_id", "users.id")
    .selectAll("users")
    .where("users.realm_id", "=", realm.id)
    .where("users.is_active", "=", 1)
    .where("users.is_bot", "=", 0)
    .where((eb) => eb.or([eb("user_presence.last_active_time", "is", null), eb("user_presence.last_active_time", "<=", cutoff)]))
    .where((eb) => eb.or([eb("digest_sends.sent_at", "is", null), eb("digest_sends.sent_at", "<=", lastAllowed)]))
    .orderBy("users.id")
    .execute();
  const recipients = users.filter((u) => settingValue(userProps(u), "enable_digest_emails") === true);
  if (!recipients.length) return 0;

  const topics = await realmTopicsSince(app, realm.id, cutoff);
  const channels = new Map(
    (await app.db.selectFrom("streams").select(["id", "name", "invite_only", "is_web_public", "date_created", "is_archived", "history_public_to_subscribers"]).where("realm_id", "=", realm.id).execute()).map(
      (s) => [s.id, s],
    ),
  );
  const newChannels = [...channels.values()].filter((s) => s.is_archived === 0 && Number(s.date_created) > cutoff).sort((a, b) => a.id - b.id);
  const base = baseUrl(app);
  const names = new Map((await app.db.selectFrom("users").select(["id", "full_name"]).where("realm_id", "=", realm.id).execute()).map((u) => [u.id, u.full_name]));
  let sent = 0;
  for (const user of recipients) {
    const subscribed = new Set(
      (await app.db.selectFrom("subscriptions").select(["stream_id", "props"]).where("user_id", "=", user.id).where("active", "=", 1).execute())
        .filter((s) => (JSON.parse(s.props) as { is_muted?: boolean }).is_muted !== true)
        .map((s) => s.stream_id),
    );
    const hot = hotTopics(await readableTopics(app, user.id, topics.filter((t) => subscribed.has(t.streamId)), channels));
    const visibleNew = newChannels.filter((s) => (isGuest(user.role) ? s.is_web_public === 1 : s.invite_only === 0));
    // Zulip sends no digest with nothing in it.
    if (!hot.length && !visibleNew.length) continue;
    const hotFacts: DigestTopicFacts[] = [];
    for (const t of hot) {
      const channel = channels.get(t.streamId)!;
      const sample = await app.db
        .selectFrom("messages")
        .selectAll()
        .where("stream_id", "=", t.streamId)
        .where(sql<string>`lower(topic)`, "=", t.key)
        .where("id", ">=", t.firstMessageId)
        .orderBy("id")
        .limit(SAMPLE_MESSAGES)
        .execute();
      hotFacts.push({
        heading: `#${channel.name} > ${t.topic}`,
        url: topicUrl(base, channel, t.topic),
        messages: sample.map((m) => ({ senderName: names.get(m.sender_id) ?? "Unknown user", html: m.rendered_content, text: m.content })),
        more: Math.max(0, t.length - sample.length),
        participants: t.participants,
      });
    }
    const unsubscribe = unsubscribeUrl(app, "digest", user.id);
    const bodies = digestBodies({
      realmName: realm.name,
      realmUrl: base,
      hotTopics: hotFacts,
      newChannels: visibleNew.map((s) => ({ name: s.name, url: `${base}/#narrow/channel/${s.id}-${encodeURIComponent(s.name.replace(/ /g, "-"))}` })),
      footer: { realmName: realm.name, settingsUrl: `${base}/#settings/notifications`, unsubscribeUrl: unsubscribe, reason: "You are receiving this because you have digest emails enabled." },
      base,
    });
    if (await queueDigest(app, user, now, lastAllowed, { subject: `Zulip digest for ${realm.name}`, ...bodies, unsubscribe })) sent += 1;
  }
  return sent;
}

/** Queues the email if this user's digest is still unclaimed for the week; false if another pass took it. */
function queueDigest(app: AppContext, user: UserRow, now: number, lastAllowed: number, email: { subject: string; text: string; html: string; unsubscribe: string }) {
  return runAction(app, async (tx, events) => {
    const claimed = await tx
      .insertInto("digest_sends")
      .values({ user_id: user.id, sent_at: now })
      .onConflict((oc) => oc.column("user_id").doUpdateSet({ sent_at: now }).where("digest_sends.sent_at", "<=", lastAllowed))
      .returning("user_id")
      .executeTakeFirst();
    if (!claimed) return false;
    await queueOutboxJob(app, tx, events, "email", {
      to: user.delivery_email,
      subject: email.subject,
      text: email.text,
      html: email.html,
      fromName: "Zulip Digest",
      headers: { "List-Unsubscribe": `<${email.unsubscribe}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
    return true;
  });
}

/**
 * A channel that keeps its history from new subscribers shows a topic only to those who received
 * its first message (Zulip leaves out channels whose subscription changed during the period).
 */
async function readableTopics<T extends DigestTopic>(
  app: AppContext,
  userId: number,
  topics: T[],
  channels: ReadonlyMap<number, { history_public_to_subscribers: number }>,
): Promise<T[]> {
  const protectedFirsts = topics.filter((t) => channels.get(t.streamId)?.history_public_to_subscribers === 0).map((t) => t.firstMessageId);
  if (!protectedFirsts.length) return topics;
  const received = new Set(
    (await app.db.selectFrom("user_messages").select("message_id").where("user_id", "=", userId).where("message_id", "in", protectedFirsts).execute()).map(
      (r) => r.message_id,
    ),
  );
  return topics.filter((t) => channels.get(t.streamId)?.history_public_to_subscribers !== 0 || received.has(t.firstMessageId));
}

const topicUrl = (base: string, channel: { id: number; name: string }, topic: string) =>
  messageUrl(base, { id: 0, channel: { id: channel.id, name: channel.name, topic } }).replace(/\/near\/0$/, "");

/**
 * Every channel topic with messages from people since the cutoff, with its length, senders and
 * first message, counted by the database: a week of a large organization is many messages.
 */
async function realmTopicsSince(app: AppContext, realmId: number, cutoff: number): Promise<(RealmTopic & { participants: string[] })[]> {
  const rows = await app.db
    .selectFrom("messages")
    .innerJoin("users", "users.id", "messages.sender_id")
    .select((eb) => [
      "messages.stream_id",
      sql<string>`lower(messages.topic)`.as("key"),
      eb.fn.min("messages.id").as("first_id"),
      eb.fn.countAll<number>().as("length"),
    ])
    .where("messages.realm_id", "=", realmId)
    .where("messages.stream_id", "is not", null)
    .where("messages.date_sent", ">", cutoff)
    .where("users.is_bot", "=", 0)
    .groupBy(["messages.stream_id", sql`lower(messages.topic)`])
    .execute();
  if (!rows.length) return [];
  const firsts = new Map(
    (await app.db.selectFrom("messages").select(["id", "topic"]).where("id", "in", rows.map((r) => Number(r.first_id))).execute()).map((m) => [m.id, m.topic]),
  );
  const senders = await app.db
    .selectFrom("messages")
    .innerJoin("users", "users.id", "messages.sender_id")
    .select(["messages.stream_id", sql<string>`lower(messages.topic)`.as("key"), "users.full_name"])
    .distinct()
    .where("messages.realm_id", "=", realmId)
    .where("messages.stream_id", "is not", null)
    .where("messages.date_sent", ">", cutoff)
    .where("users.is_bot", "=", 0)
    .execute();
  const participants = new Map<string, string[]>();
  for (const s of senders) {
    const k = `${s.stream_id}\0${s.key}`;
    participants.set(k, [...(participants.get(k) ?? []), s.full_name]);
  }
  return rows.map((r) => {
    const names = (participants.get(`${r.stream_id}\0${r.key}`) ?? []).sort();
    return {
      streamId: Number(r.stream_id),
      key: r.key,
      topic: firsts.get(Number(r.first_id)) ?? r.key,
      length: Number(r.length),
      diversity: names.length,
      firstMessageId: Number(r.first_id),
      participants: names,
    };
  });
}
