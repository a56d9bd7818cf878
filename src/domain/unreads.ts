/**
 * The `unread_msgs` summary of POST /register: a user's unread messages grouped by conversation,
 * with the mentions among them. Built from (message, flags) rows, kept up to date with message
 * events, then aggregated.
 */
import { FLAG_BITS } from "./message_flags.js";
import { topicKey, VisibilityPolicy } from "./topics.js";


/** At most this many unread messages are reported; `old_unreads_missing` says when there were more. */
export const MAX_UNREAD_MESSAGES = 50000;

type Conversation =
  | { kind: "stream"; streamId: number; topic: string }
  | { kind: "pm"; otherUserId: number }
  | { kind: "huddle"; userIdsString: string };

export interface RawUnreads {
  byMessage: Map<number, Conversation>;
  unmutedStreamMessages: Set<number>;
  mentions: Set<number>;
  mutedStreamIds: Set<number>;
  /** The user's topic visibility policies, by `topicPolicyKey`. */
  topicPolicies: Map<string, number>;
  oldUnreadsMissing: boolean;
}

export const topicPolicyKey = (streamId: number, topic: string) => `${streamId}\0${topicKey(topic)}`;

/** Topic visibility policies keyed by `topicPolicyKey`, as the summary looks them up. */
export function topicPolicyMap(rows: readonly { stream_id: number; topic_name: string; visibility_policy: number }[]): Map<string, number> {
  return new Map(rows.map((r) => [topicPolicyKey(r.stream_id, r.topic_name), r.visibility_policy]));
}

/**
 * Whether a channel conversation is muted for the user: a topic's own policy overrides its
 * channel's muting either way (unmuted or followed topics of a muted channel are not muted).
 */
export function isTopicMuted(mutedStreamIds: ReadonlySet<number>, topicPolicies: ReadonlyMap<string, number>, streamId: number, topic: string): boolean {
  const policy = topicPolicies.get(topicPolicyKey(streamId, topic)) ?? VisibilityPolicy.INHERIT;
  if (policy === VisibilityPolicy.MUTED) return true;
  if (policy === VisibilityPolicy.UNMUTED || policy === VisibilityPolicy.FOLLOWED) return false;
  return mutedStreamIds.has(streamId);
}

export interface UnreadRow {
  messageId: number;
  streamId: number | null;
  topic: string;
  /** Direct messages: sorted comma-joined ids of every participant. */
  dmKey: string | null;
  flags: number;
}

function conversationOf(me: number, streamId: number | null, topic: string, participants: number[]): Conversation {
  if (streamId !== null) return { kind: "stream", streamId, topic };
  const others = participants.filter((id) => id !== me);
  if (others.length <= 1) return { kind: "pm", otherUserId: others[0] ?? me };
  return { kind: "huddle", userIdsString: [...new Set([...participants, me])].sort((a, b) => a - b).join(",") };
}

function add(raw: RawUnreads, messageId: number, conversation: Conversation, mentioned: boolean, wildcardMentioned: boolean): void {
  raw.byMessage.set(messageId, conversation);
  const unmuted =
    conversation.kind === "stream" && !isTopicMuted(raw.mutedStreamIds, raw.topicPolicies, conversation.streamId, conversation.topic);
  if (unmuted) raw.unmutedStreamMessages.add(messageId);
  // Wildcard mentions in muted channels do not count as mentions.
  if (mentioned || (wildcardMentioned && (conversation.kind !== "stream" || unmuted))) raw.mentions.add(messageId);
}

/** `rows`: the user's unread messages, newest first, at most MAX_UNREAD_MESSAGES of them. */
export function buildUnreads(
  me: number,
  rows: readonly UnreadRow[],
  mutedStreamIds: Iterable<number>,
  topicPolicies: ReadonlyMap<string, number> = new Map(),
): RawUnreads {
  const raw: RawUnreads = {
    byMessage: new Map(),
    unmutedStreamMessages: new Set(),
    mentions: new Set(),
    mutedStreamIds: new Set(mutedStreamIds),
    topicPolicies: new Map(topicPolicies),
    oldUnreadsMissing: rows.length >= MAX_UNREAD_MESSAGES,
  };
  for (const row of [...rows].reverse()) {
    const participants = row.dmKey ? row.dmKey.split(",").map(Number) : [];
    const wildcard = (row.flags & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) !== 0;
    add(raw, row.messageId, conversationOf(me, row.streamId, row.topic, participants), (row.flags & (FLAG_BITS.mentioned | FLAG_BITS.group_mentioned)) !== 0, wildcard);
  }
  return raw;
}

/** A message event's message, as far as unread tracking reads it. */
export interface UnreadMessage {
  id: number;
  type: string;
  stream_id?: number;
  subject?: string;
  display_recipient?: unknown;
}

/** A new message the user received (with their flags) while the summary was being built. */
export function addUnreadMessage(raw: RawUnreads, me: number, message: UnreadMessage, flags: readonly string[]): void {
  if (flags.includes("read")) return;
  const participants = Array.isArray(message.display_recipient)
    ? (message.display_recipient as { id: number }[]).map((r) => r.id)
    : [];
  const streamId = message.type === "stream" ? (message.stream_id ?? null) : null;
  const wildcard = flags.includes("stream_wildcard_mentioned") || flags.includes("topic_wildcard_mentioned");
  add(raw, message.id, conversationOf(me, streamId, String(message.subject ?? ""), participants), flags.includes("mentioned"), wildcard);
}

export function removeUnreadMessages(raw: RawUnreads, messageIds: readonly number[]): void {
  for (const id of messageIds) {
    raw.byMessage.delete(id);
    raw.unmutedStreamMessages.delete(id);
    raw.mentions.delete(id);
  }
}

const byNumber = (a: number, b: number) => a - b;

/** The summary clients get. Empty topics are shown by their display name unless the client handles them. */
export function aggregateUnreads(raw: RawUnreads, emptyTopicName: string | null) {
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const pms = new Map<number, { other_user_id: number; sender_id: number; unread_message_ids: number[] }>();
  const huddles = new Map<string, { user_ids_string: string; unread_message_ids: number[] }>();
  for (const [id, c] of raw.byMessage) {
    if (c.kind === "stream") {
      const topic = c.topic === "" && emptyTopicName !== null ? emptyTopicName : c.topic;
      const key = `${c.streamId}\u0000${topic.toLowerCase()}`;
      const bucket = streams.get(key) ?? { stream_id: c.streamId, topic, unread_message_ids: [] };
      bucket.unread_message_ids.push(id);
      streams.set(key, bucket);
    } else if (c.kind === "pm") {
      const bucket = pms.get(c.otherUserId) ?? { other_user_id: c.otherUserId, sender_id: c.otherUserId, unread_message_ids: [] };
      bucket.unread_message_ids.push(id);
      pms.set(c.otherUserId, bucket);
    } else {
      const bucket = huddles.get(c.userIdsString) ?? { user_ids_string: c.userIdsString, unread_message_ids: [] };
      bucket.unread_message_ids.push(id);
      huddles.set(c.userIdsString, bucket);
    }
  }
  const sorted = <T extends { unread_message_ids: number[] }>(buckets: Iterable<T>) => {
    const list = [...buckets];
    for (const b of list) b.unread_message_ids.sort(byNumber);
    return list;
  };
  const pmCount = [...raw.byMessage.values()].filter((c) => c.kind !== "stream").length;
  return {
    pms: sorted(pms.values()).sort((a, b) => a.other_user_id - b.other_user_id),
    streams: sorted(streams.values()).sort((a, b) => a.stream_id - b.stream_id || compareText(a.topic.toLowerCase(), b.topic.toLowerCase())),
    huddles: sorted(huddles.values()).sort((a, b) => compareText(a.user_ids_string, b.user_ids_string)),
    mentions: [...raw.mentions].sort(byNumber),
    count: pmCount + raw.unmutedStreamMessages.size,
    old_unreads_missing: raw.oldUnreadsMissing,
  };
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export function clearUnreads(raw: RawUnreads): void {
  raw.byMessage.clear();
  raw.unmutedStreamMessages.clear();
  raw.mentions.clear();
}

export interface UnreadMessageDetails {
  type: "stream" | "private";
  mentioned?: true;
  user_ids?: number[];
  stream_id?: number;
  topic?: string;
  unmuted_stream_msg?: boolean;
}

/**
 * The `message_details` of an update_message_flags event that marks messages unread: enough
 * for a client to place each message in its unread summary. Direct messages list the other
 * participants (none for a message to oneself).
 */
export function unreadMessageDetails(raw: RawUnreads, me: number): Record<string, UnreadMessageDetails> {
  const out: Record<string, UnreadMessageDetails> = {};
  for (const [id, c] of raw.byMessage) {
    let details: UnreadMessageDetails;
    if (c.kind === "stream") {
      details = { type: "stream", stream_id: c.streamId, topic: c.topic, unmuted_stream_msg: raw.unmutedStreamMessages.has(id) };
    } else if (c.kind === "pm") {
      details = { type: "private", user_ids: c.otherUserId === me ? [] : [c.otherUserId] };
    } else {
      details = { type: "private", user_ids: c.userIdsString.split(",").map(Number).filter((u) => u !== me) };
    }
    if (raw.mentions.has(id)) details.mentioned = true;
    out[String(id)] = details;
  }
  return out;
}
