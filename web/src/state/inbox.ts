/**
 * The Inbox: unread conversations, direct messages first, then channels with their topics, as
 * Zulip's Inbox shows them. Muted channels show only their unmuted and followed topics; muted
 * topics are left out elsewhere. Pure: derived from the unread messages and the visibility rules.
 */
export interface UnreadEntry {
  streamId?: number;
  topic?: string;
  dm?: string;
  mentioned: boolean;
}

export interface InboxTopic {
  topic: string;
  count: number;
  maxId: number;
  mentioned: boolean;
}

export interface InboxChannel {
  streamId: number;
  count: number;
  mentioned: boolean;
  topics: InboxTopic[];
}

export interface InboxDm {
  key: string;
  count: number;
  maxId: number;
  mentioned: boolean;
}

export interface Inbox {
  dms: InboxDm[];
  channels: InboxChannel[];
}

/** Zulip's topic visibility policies. */
export const TopicPolicy = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;

export interface InboxRules {
  channelMuted(streamId: number): boolean;
  /** Zulip's visibility policy of a topic: 1 muted, 2 unmuted, 3 followed; undefined or 0 inherits. */
  topicPolicy(streamId: number, topic: string): number | undefined;
  /** Orders channels as the left sidebar does (pinned first, then by name). */
  compareChannels(a: number, b: number): number;
}

/** Whether an unread message in this topic counts, following Zulip's muting rules. */
export function topicVisible(streamId: number, topic: string, rules: InboxRules): boolean {
  const policy = rules.topicPolicy(streamId, topic);
  if (policy === TopicPolicy.MUTED) return false;
  if (rules.channelMuted(streamId)) return policy === TopicPolicy.UNMUTED || policy === TopicPolicy.FOLLOWED;
  return true;
}

export function buildInbox(unread: Iterable<[number, UnreadEntry]>, rules: InboxRules): Inbox {
  const dms = new Map<string, InboxDm>();
  const channels = new Map<number, Map<string, InboxTopic>>();
  for (const [id, u] of unread) {
    if (u.streamId !== undefined) {
      const topic = u.topic ?? "";
      if (!topicVisible(u.streamId, topic, rules)) continue;
      let topics = channels.get(u.streamId);
      if (!topics) channels.set(u.streamId, (topics = new Map()));
      const t = topics.get(topic) ?? { topic, count: 0, maxId: 0, mentioned: false };
      topics.set(topic, { topic, count: t.count + 1, maxId: Math.max(t.maxId, id), mentioned: t.mentioned || u.mentioned });
    } else if (u.dm) {
      const d = dms.get(u.dm) ?? { key: u.dm, count: 0, maxId: 0, mentioned: false };
      dms.set(u.dm, { key: u.dm, count: d.count + 1, maxId: Math.max(d.maxId, id), mentioned: d.mentioned || u.mentioned });
    }
  }
  const newestFirst = (a: { maxId: number }, b: { maxId: number }) => b.maxId - a.maxId;
  return {
    dms: [...dms.values()].sort(newestFirst),
    channels: [...channels.entries()]
      .map(([streamId, topics]) => {
        const list = [...topics.values()].sort(newestFirst);
        return { streamId, count: list.reduce((n, t) => n + t.count, 0), mentioned: list.some((t) => t.mentioned), topics: list };
      })
      .sort((a, b) => rules.compareChannels(a.streamId, b.streamId)),
  };
}
