/**
 * How the feed lays out a run of messages: blocks of one conversation (each under its recipient
 * header), a date line where the day changes, and the sender's name only where a new sender (or
 * a new day) starts.
 */
export interface FeedMessage {
  id: number;
  sender_id: number;
  timestamp: number;
}

export interface FeedRow<M> {
  m: M;
  showSender: boolean;
  /** Set on a message that starts a new day inside its block. */
  newDay: boolean;
}

export interface FeedBlock<M> {
  key: string;
  rows: FeedRow<M>[];
}

/** The local calendar day of a Unix time, as a comparable key. */
export function dayOf(timestamp: number): string {
  const d = new Date(timestamp * 1000);
  return `${d.getFullYear()}-${d.getMonth()}-${d.getDate()}`;
}

export function layoutFeed<M extends FeedMessage>(messages: M[], conversationKey: (m: M) => string): FeedBlock<M>[] {
  const blocks: FeedBlock<M>[] = [];
  let prev: M | undefined;
  for (const m of messages) {
    const key = conversationKey(m);
    const newDay = !!prev && dayOf(prev.timestamp) !== dayOf(m.timestamp);
    const last = blocks.at(-1);
    if (last && last.key === key) {
      last.rows.push({ m, showSender: newDay || prev!.sender_id !== m.sender_id, newDay });
    } else {
      blocks.push({ key, rows: [{ m, showSender: true, newDay: false }] });
    }
    prev = m;
  }
  return blocks;
}

const ME_PREFIX = "<p>/me ";

const escapeText = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * A `/me` message reads as its sender doing something ("Iago waves"): the server's HTML with
 * "/me" replaced by the sender's name. Undefined for other messages, and for a `/me` message
 * whose HTML does not start as the server renders it (an edit in progress, a search highlight).
 */
export function meMessageHtml(m: { is_me_message?: boolean; content: string }, senderName: string): string | undefined {
  if (!m.is_me_message || !m.content.startsWith(ME_PREFIX)) return undefined;
  return `<p><strong class="me-sender">${escapeText(senderName)}</strong> ${m.content.slice(ME_PREFIX.length)}`;
}
