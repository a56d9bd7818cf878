/**
 * Topic rules: how a requested topic name is normalized and which topics a channel accepts.
 */
import { badRequest } from "../http/errors.js";
import { EMPTY_TOPIC_DISPLAY_NAME, LIMITS } from "./limits.js";
import { firstNonPrintablePosition } from "./text.js";

export const TOPICS_POLICIES = ["inherit", "allow_empty_topic", "disable_empty_topic", "empty_topic_only"] as const;
export type TopicsPolicy = (typeof TOPICS_POLICIES)[number];
export type RealmTopicsPolicy = Exclude<TopicsPolicy, "inherit">;

/** The topic name of the notices Notification Bot posts about a channel. */
export const CHANNEL_EVENTS_TOPIC = "channel events";

/** The legacy and display spellings of the empty topic are read as the empty topic. */
export function readEmptyTopicAliases(topic: string): string {
  return topic === "(no topic)" || topic === EMPTY_TOPIC_DISPLAY_NAME ? "" : topic;
}

/** Longer topics are cut, ending in "...", rather than refused. */
export function truncateTopic(topic: string): string {
  const chars = [...topic];
  if (chars.length <= LIMITS.maxTopicLength) return topic;
  return chars.slice(0, LIMITS.maxTopicLength - 3).join("") + "...";
}

/** A sent topic as it is stored: stripped, aliases resolved, checked, truncated. */
export function normalizeTopic(raw: string): string {
  const topic = readEmptyTopicAliases(raw.trim());
  const bad = firstNonPrintablePosition(topic);
  if (bad !== null) throw badRequest(`Invalid character in topic, at position ${bad}!`);
  return truncateTopic(topic);
}

export function effectiveTopicsPolicy(realmPolicy: string, channelPolicy: string): RealmTopicsPolicy {
  const policy = channelPolicy === "inherit" ? realmPolicy : channelPolicy;
  return (TOPICS_POLICIES as readonly string[]).includes(policy) && policy !== "inherit"
    ? (policy as RealmTopicsPolicy)
    : "allow_empty_topic";
}

/** Refuses a topic the channel's effective policy does not allow. */
export function checkTopicAllowed(policy: RealmTopicsPolicy, topic: string): void {
  if (policy === "disable_empty_topic" && topic === "") {
    throw badRequest(`Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} topic is not allowed in this channel.`);
  }
  if (policy === "empty_topic_only" && topic !== "") {
    throw badRequest(`Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`);
  }
}

/** How a stored topic is shown to clients that do not accept the empty topic name. */
export function displayTopic(topic: string, allowEmptyTopicName: boolean): string {
  return topic === "" && !allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : topic;
}

/** A user's visibility policy for a topic; "inherit" means the user has no row for it. */
export const VisibilityPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
export const VISIBILITY_POLICIES: readonly number[] = Object.values(VisibilityPolicy);

/** Topics compare case-insensitively; this is the form they are compared in. */
export function topicKey(topic: string): string {
  return topic.toLowerCase();
}

/** Where a request names a topic that must exist, the empty topic may be given by its display name. */
export function readEmptyTopicDisplayName(topic: string): string {
  return topic === EMPTY_TOPIC_DISPLAY_NAME ? "" : topic;
}

/**
 * The policy a user keeps when a topic is moved into one they already have a policy for: the
 * more visible of the two (followed, then unmuted, then inherit, then muted).
 */
export function visibilityPolicyAfterMerge(moved: number, target: number): number {
  const both = [moved, target];
  for (const p of [VisibilityPolicy.FOLLOWED, VisibilityPolicy.UNMUTED, VisibilityPolicy.INHERIT]) {
    if (both.includes(p)) return p;
  }
  return VisibilityPolicy.MUTED;
}

export interface TopicHistoryEntry {
  name: string;
  max_id: number;
}

/**
 * A channel's topics, newest first, from its messages grouped by exact topic: spellings that
 * differ only in case are one topic, named as its most recent spelling.
 */
export function mergeTopicHistory(rows: readonly { topic: string; max_id: number }[], allowEmptyTopicName: boolean): TopicHistoryEntry[] {
  const byKey = new Map<string, { topic: string; max_id: number }>();
  for (const row of rows) {
    const key = topicKey(row.topic);
    const seen = byKey.get(key);
    if (!seen || row.max_id > seen.max_id) byKey.set(key, row);
  }
  return [...byKey.values()]
    .sort((a, b) => b.max_id - a.max_id)
    .map((r) => ({ name: displayTopic(r.topic, allowEmptyTopicName), max_id: r.max_id }));
}
