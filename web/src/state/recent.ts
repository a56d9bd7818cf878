/**
 * Recent conversations: every topic and direct-message conversation among the messages the
 * client holds, newest activity first, with who took part (latest first) and whether the reader
 * did. Pure: derived from the messages, so new, moved and deleted messages show at once.
 */
export interface RecentMessage {
  id: number;
  type: "stream" | "private";
  stream_id?: number;
  subject: string;
  sender_id: number;
  timestamp: number;
}

export interface RecentConversation {
  /** `stream_id:topic` or `dm:<sorted ids of the others>`. */
  key: string;
  streamId?: number;
  topic?: string;
  dm?: string;
  maxId: number;
  timestamp: number;
  /** Senders, most recent first. */
  senders: number[];
  participated: boolean;
}

export function recentConversations<M extends RecentMessage>(messages: Iterable<M>, myId: number, dmKey: (m: M) => string): RecentConversation[] {
  const byKey = new Map<string, RecentConversation & { seen: Map<number, number> }>();
  for (const m of messages) {
    const dm = m.type === "private" ? dmKey(m) : undefined;
    const key = dm !== undefined ? `dm:${dm}` : `${m.stream_id}:${m.subject}`;
    let c = byKey.get(key);
    if (!c) {
      c = { key, maxId: 0, timestamp: 0, senders: [], participated: false, seen: new Map(), ...(dm !== undefined ? { dm } : { streamId: m.stream_id, topic: m.subject }) };
      byKey.set(key, c);
    }
    if (m.id > c.maxId) {
      c.maxId = m.id;
      c.timestamp = m.timestamp;
    }
    c.seen.set(m.sender_id, Math.max(c.seen.get(m.sender_id) ?? 0, m.id));
    if (m.sender_id === myId) c.participated = true;
  }
  return [...byKey.values()]
    .map(({ seen, ...c }) => ({ ...c, senders: [...seen.entries()].sort((a, b) => b[1] - a[1]).map(([id]) => id) }))
    .sort((a, b) => b.maxId - a.maxId);
}

export interface RecentFilter {
  unreadOnly: boolean;
  participatedOnly: boolean;
  includeMuted: boolean;
  /** Shows one channel only, when set. */
  streamId?: number;
}

export function filterRecent(
  list: RecentConversation[],
  f: RecentFilter,
  unreadCount: (c: RecentConversation) => number,
  muted: (c: RecentConversation) => boolean,
): RecentConversation[] {
  return list.filter(
    (c) =>
      (!f.unreadOnly || unreadCount(c) > 0) &&
      (!f.participatedOnly || c.participated) &&
      (f.includeMuted || !muted(c)) &&
      (f.streamId === undefined || c.streamId === f.streamId),
  );
}

/** How long ago, as Recent conversations says it: "just now", "5 minutes ago", "3 hours ago", "Yesterday", or the date. */
export function timeAgo(timestamp: number, now: number, dateFormat: (ms: number) => string): string {
  const seconds = now - timestamp;
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} minute${seconds < 120 ? "" : "s"} ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} hour${seconds < 7200 ? "" : "s"} ago`;
  if (seconds < 2 * 86400) return "Yesterday";
  return dateFormat(timestamp * 1000);
}
