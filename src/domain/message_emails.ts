/**
 * Zulip's rules for notification emails: who is emailed about a message and why (its trigger),
 * when a recipient counts as away, how a batch splits into one email per conversation and what
 * each email's subject says, and which topics a weekly digest shows.
 */

/** Zulip's NotificationTriggers that lead to an email, most salient first. */
export const EMAIL_TRIGGERS = [
  "private_message",
  "mentioned",
  "topic_wildcard_mentioned_in_followed_topic",
  "stream_wildcard_mentioned_in_followed_topic",
  "topic_wildcard_mentioned",
  "stream_wildcard_mentioned",
  "followed_topic_email_notify",
  "stream_email_notify",
] as const;
export type EmailTrigger = (typeof EMAIL_TRIGGERS)[number];

/** Zulip's topic visibility policies (user_topics.visibility_policy; none stored = inherit). */
export const TOPIC_POLICY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

/** One recipient of one message, with every setting the decision reads. */
export interface EmailRecipientFacts {
  userId: number;
  isBot: boolean;
  senderId: number;
  /** The recipient muted the sender. */
  senderMuted: boolean;
  directMessage: boolean;
  /** Mentioned personally or through a group, or one of their alert words matched. */
  mentioned: boolean;
  streamWildcardMentioned: boolean;
  topicWildcardMentioned: boolean;
  settings: {
    enable_offline_email_notifications: boolean;
    enable_stream_email_notifications: boolean;
    wildcard_mentions_notify: boolean;
    enable_followed_topic_email_notifications: boolean;
    enable_followed_topic_wildcard_mentions_notify: boolean;
  };
  /** Channel messages: the subscription's own settings (null = follow the personal setting). */
  subscription?: { isMuted: boolean; emailNotifications: boolean | null; wildcardMentionsNotify: boolean | null };
  /** Channel messages: the recipient's policy for the topic. */
  topicPolicy?: number;
}

/**
 * Zulip's user_allows_notifications_in_StreamTopic: muting comes first (an unmuted topic of a
 * muted channel still notifies), then the channel's own setting, then the personal one.
 */
export function allowsInChannel(channelMuted: boolean, topicPolicy: number, channelSetting: boolean | null, personal: boolean): boolean {
  if (channelMuted && topicPolicy !== TOPIC_POLICY.unmuted) return false;
  if (topicPolicy === TOPIC_POLICY.muted) return false;
  return channelSetting ?? personal;
}

/**
 * Why this recipient should be emailed about the message if away, or null. Mirrors Zulip's
 * get_email_notification_trigger: nothing for the sender, for a muted sender or for bots; DMs and
 * mentions follow enable_offline_email_notifications; wildcard mentions also need the (channel or
 * personal) wildcard setting unless the topic is followed; channel traffic needs the channel's
 * email setting or a followed topic with the followed-topic email setting.
 */
export function emailTrigger(r: EmailRecipientFacts): EmailTrigger | null {
  if (r.isBot || r.userId === r.senderId || r.senderMuted) return null;
  const s = r.settings;
  const offline = s.enable_offline_email_notifications;
  if (r.directMessage) return offline ? "private_message" : null;
  if (r.mentioned && offline) return "mentioned";
  const sub = r.subscription ?? { isMuted: false, emailNotifications: null, wildcardMentionsNotify: null };
  const policy = r.topicPolicy ?? TOPIC_POLICY.inherit;
  const followed = policy === TOPIC_POLICY.followed;
  if (offline && followed && s.enable_followed_topic_wildcard_mentions_notify) {
    if (r.topicWildcardMentioned) return "topic_wildcard_mentioned_in_followed_topic";
    if (r.streamWildcardMentioned) return "stream_wildcard_mentioned_in_followed_topic";
  }
  if (offline && allowsInChannel(sub.isMuted, policy, sub.wildcardMentionsNotify, s.wildcard_mentions_notify)) {
    if (r.topicWildcardMentioned) return "topic_wildcard_mentioned";
    if (r.streamWildcardMentioned) return "stream_wildcard_mentioned";
  }
  if (followed && s.enable_followed_topic_email_notifications) return "followed_topic_email_notify";
  if (allowsInChannel(sub.isMuted, policy, sub.emailNotifications, s.enable_stream_email_notifications)) return "stream_email_notify";
  return null;
}

/**
 * Zulip emails only a recipient who is off Zulip when the message arrives: no open event queue
 * that receives messages, or no activity reported for the presence offline threshold.
 */
export function isAway(hasMessageQueue: boolean, lastActive: number | null, now: number, offlineThresholdSecs: number): boolean {
  if (!hasMessageQueue) return true;
  return lastActive === null || lastActive < now - offlineThresholdSecs;
}

/**
 * When a new pending notification goes out: with the batch the user already has waiting, or
 * after their batching period.
 */
export function batchDueAt(existingDue: number | undefined, now: number, batchingPeriodSecs: number): number {
  return existingDue ?? now + batchingPeriodSecs;
}

/** A message as the batch sees it. */
export interface BatchedMessage {
  id: number;
  senderId: number;
  recipientId: number;
  /** Channel messages only. */
  streamId: number | null;
  topic: string;
  /** Direct messages: every participant's id; 2 for a one-on-one conversation. */
  participantIds: number[] | null;
}

/**
 * Zulip's buckets: one email per channel topic (case-insensitively), per one-on-one sender, and
 * per group DM; emails go out oldest conversation first (by their newest message).
 */
export function bucketsOf<M extends BatchedMessage>(messages: readonly M[]): M[][] {
  const buckets = new Map<string, M[]>();
  for (const m of messages) {
    const key =
      m.streamId !== null
        ? `channel:${m.recipientId}:${m.topic.toLowerCase()}`
        : m.participantIds!.length <= 2
          ? `dm:${m.recipientId}:${m.senderId}`
          : `group:${m.recipientId}`;
    const list = buckets.get(key);
    if (list) list.push(m);
    else buckets.set(key, [m]);
  }
  const lists = [...buckets.values()].map((list) => list.sort((a, b) => a.id - b.id));
  return lists.sort((a, b) => a[a.length - 1].id - b[b.length - 1].id);
}

/** Zulip's prefix of a resolved topic. */
export const RESOLVED_TOPIC_PREFIX = "✔ ";

/** How Zulip names a group DM's other participants in a subject. */
export function groupDmDisplayName(otherNames: readonly string[]): string {
  if (otherNames.length <= 2) return otherNames.join(" and ");
  if (otherNames.length === 3) return `${otherNames[0]}, ${otherNames[1]}, and ${otherNames[2]}`;
  return `${otherNames.slice(0, 2).join(", ")}, and ${otherNames.length - 2} others`;
}

export type EmailConversation =
  | { kind: "channel"; channelName: string; topic: string }
  | { kind: "dm"; senderNames: readonly string[] }
  | { kind: "group"; otherNames: readonly string[] };

/** Zulip's realm_name_in_email_notifications_policy values. */
export const REALM_NAME_POLICY = { automatic: 1, always: 2, never: 3 } as const;

/** Automatic shows the organization's name when the address has accounts in several organizations. */
export function includeRealmName(policy: number, accountsWithAddress: number): boolean {
  if (policy === REALM_NAME_POLICY.automatic) return accountsWithAddress > 1;
  return policy === REALM_NAME_POLICY.always;
}

/** The subject of a message notification email, as Zulip's missed_message template words it. */
export function notificationSubject(conversation: EmailConversation, showContent: boolean, realmName: string | null): string {
  let subject: string;
  if (!showContent) subject = "New messages";
  else if (conversation.kind === "group") subject = `Group DMs with ${groupDmDisplayName(conversation.otherNames)}`;
  else if (conversation.kind === "dm") subject = `DMs with ${conversation.senderNames.join(", ")}`;
  else {
    const resolved = conversation.topic.startsWith(RESOLVED_TOPIC_PREFIX);
    const topic = resolved ? conversation.topic.slice(RESOLVED_TOPIC_PREFIX.length) : conversation.topic;
    subject = `${resolved ? "[resolved] " : ""}#${conversation.channelName} > ${topic}`;
  }
  return realmName === null ? subject : `${subject} [${realmName}]`;
}

/** Zulip's DIGEST_CUTOFF: digests cover, and go to users inactive for, this many days. */
export const DIGEST_CUTOFF_DAYS = 5;
/** A user gets at most one digest in this many days, however often the worker looks. */
export const DIGEST_MIN_INTERVAL_DAYS = 6;
/** Hot topics a digest shows, of which the first picks are the most diverse. */
export const HOT_TOPICS = 4;
const MOST_DIVERSE = 2;

/** Python's weekday(): Monday is 0, as the organization's digest_weekday counts. */
export function zulipWeekday(unixSeconds: number): number {
  return (new Date(unixSeconds * 1000).getUTCDay() + 6) % 7;
}

export interface DigestTopic {
  streamId: number;
  topic: string;
  /** Messages sent by people (not bots) since the cutoff. */
  length: number;
  /** People who sent them. */
  diversity: number;
  /** The topic's first message: ties go to the older topic. */
  firstMessageId: number;
}

/** Zulip's get_hot_topics: the two topics with the most senders, then the longest, up to four. */
export function hotTopics<T extends DigestTopic>(topics: readonly T[]): T[] {
  const byDiversity = [...topics].sort((a, b) => b.diversity - a.diversity || a.firstMessageId - b.firstMessageId);
  const byLength = [...topics].sort((a, b) => b.length - a.length || a.firstMessageId - b.firstMessageId);
  const hot = byDiversity.slice(0, MOST_DIVERSE);
  for (const t of byLength) {
    if (hot.length >= HOT_TOPICS) break;
    if (!hot.includes(t)) hot.push(t);
  }
  return hot;
}
