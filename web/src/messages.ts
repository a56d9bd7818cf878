/** Fetching the narrow in view (by anchors, in pages) and acting on messages. */
import { api } from "./api";
import { TopicPolicy } from "./state/inbox";
import { addMessages, changed, model, noteTopic, topicMuted, type Message } from "./model";
import { searchHighlight, type Narrow, type SearchMatch } from "./state/narrow";

const PAGE = 100;

interface Fetched {
  messages: (Message & { match_content?: string; match_subject?: string })[];
  found_oldest: boolean;
  found_newest: boolean;
  anchor: number;
}

function fetchMessages(narrow: Narrow, anchor: number | "newest" | "first_unread", before: number, after: number, includeAnchor = true) {
  return api<Fetched>("GET", "/messages", {
    anchor,
    num_before: before,
    num_after: after,
    narrow,
    apply_markdown: true,
    client_gravatar: false,
    include_anchor: includeAnchor,
  });
}

let narrowToken = 0;

/** The highlighted copies of the search results of the narrow in view, by message id. */
let matches = new Map<number, SearchMatch>();
/** One highlighted message per message object, so that unchanged rows keep their identity. */
let highlighted = new WeakMap<Message, Message>();

function noteMatches(messages: Fetched["messages"]): void {
  for (const m of messages) {
    if (m.match_content === undefined || m.match_subject === undefined) continue;
    matches.set(m.id, { content: m.match_content, subject: m.match_subject, foundContent: m.content, foundSubject: m.subject });
  }
}

/** A message of the narrow in view, with its content highlighted where it is a search result. */
export function asFound(m: Message): Message {
  const content = searchHighlight(m, matches.get(m.id)).content;
  if (content === undefined) return m;
  let shown = highlighted.get(m);
  if (!shown) highlighted.set(m, (shown = { ...m, content }));
  return shown;
}

/** A search result's topic as HTML with the words found highlighted, or undefined. */
export const highlightedTopic = (m: Message) => searchHighlight(m, matches.get(m.id)).subject;

/**
 * Opens a narrow at a message (a link's `near`), else at the first unread message as Zulip does,
 * with a page of history on either side; the server resolves `first_unread` to the newest
 * message when everything is read.
 */
export async function loadNarrow(narrow: Narrow, near?: number): Promise<void> {
  const token = ++narrowToken;
  matches = new Map();
  highlighted = new WeakMap();
  model.narrow = narrow;
  model.list = { ids: [], foundOldest: false, foundNewest: false, loading: true, opened: model.list.opened };
  changed();
  const channel = narrow.find((t) => t.operator === "channel")?.operand;
  if (typeof channel === "number" && model.subs.has(channel)) void loadTopics(channel);
  let r: Fetched;
  try {
    r = await fetchMessages(narrow, near ?? "first_unread", PAGE, PAGE);
  } catch (err) {
    if (token !== narrowToken) return;
    model.list = { ids: [], foundOldest: true, foundNewest: true, loading: false, opened: model.list.opened + 1, error: (err as Error).message };
    changed();
    return;
  }
  if (token !== narrowToken) return;
  noteMatches(r.messages);
  addMessages(r.messages);
  const ids = r.messages.map((m) => m.id);
  model.list = { ids, foundOldest: r.found_oldest, foundNewest: r.found_newest, loading: false, opened: model.list.opened + 1 };
  model.selectedId = ids.includes(r.anchor) ? r.anchor : (ids.find((id) => id >= r.anchor) ?? ids.at(-1) ?? 0);
  changed();
}

/** Another page at one end of the narrow in view, as the reader scrolls to it. */
async function loadMore(older: boolean): Promise<void> {
  const list = model.list;
  if (list.loading || (older ? list.foundOldest : list.foundNewest) || !list.ids.length) return;
  const token = narrowToken;
  list.loading = true;
  list.loadingNewer = !older;
  changed();
  let r: Fetched;
  try {
    r = await fetchMessages(model.narrow, older ? list.ids[0] : list.ids.at(-1)!, older ? PAGE : 0, older ? 0 : PAGE, false);
  } catch {
    if (token === narrowToken) model.list = { ...model.list, loading: false, loadingNewer: false };
    changed();
    return;
  }
  if (token !== narrowToken) return;
  noteMatches(r.messages);
  addMessages(r.messages);
  const known = new Set(model.list.ids);
  const fresh = r.messages.map((m) => m.id).filter((id) => !known.has(id));
  model.list = older
    ? { ...model.list, ids: [...fresh, ...model.list.ids], foundOldest: r.found_oldest, loading: false }
    : { ...model.list, ids: [...model.list.ids, ...fresh], foundNewest: r.found_newest, loading: false, loadingNewer: false };
  changed();
}

export const loadOlder = () => loadMore(true);
export const loadNewer = () => loadMore(false);

/**
 * Marks every message of a narrow as read, a batch of the server's 5,000 at a time from the
 * oldest; the flag events update the counts everywhere.
 */
export async function markNarrowRead(narrow: Narrow): Promise<void> {
  let anchor: number | "oldest" = "oldest";
  for (let batch = 0; batch < 100; batch++) {
    const r: { found_newest: boolean; last_processed_id: number | null } = await api("POST", "/messages/flags/narrow", {
      anchor: String(anchor),
      include_anchor: anchor === "oldest",
      num_before: 0,
      num_after: 5000,
      narrow,
      op: "add",
      flag: "read",
    });
    if (r.found_newest || r.last_processed_id === null) return;
    anchor = r.last_processed_id;
  }
}

let recentHistory: Promise<void> | undefined;

/** The newest messages of every conversation, once, for Recent conversations (as Zulip's web app fetches them). */
export function loadRecentHistory(): Promise<void> {
  recentHistory ??= fetchMessages([], "newest", 1000, 0).then(
    (r) => addMessages(r.messages),
    (err) => {
      recentHistory = undefined;
      throw err;
    },
  );
  return recentHistory;
}

export function markConversationRead(streamId: number, topic: string): Promise<void> {
  return markNarrowRead([
    { operator: "channel", operand: streamId },
    { operator: "topic", operand: topic },
  ]);
}

let pendingRead = new Set<number>();
let readTimer = 0;

/** Marks messages as read in batches; the server's event updates every tab's counts. */
export function markRead(ids: number[]): void {
  for (const id of ids) if (model.unread.has(id)) pendingRead.add(id);
  if (!pendingRead.size || readTimer) return;
  readTimer = window.setTimeout(async () => {
    const batch = [...pendingRead];
    pendingRead = new Set();
    readTimer = 0;
    await api("POST", "/messages/flags", { messages: batch, op: "add", flag: "read" });
  }, 300);
}

export function setStarred(m: Message, starred: boolean) {
  return api("POST", "/messages/flags", { messages: [m.id], op: starred ? "add" : "remove", flag: "starred" });
}

export function toggleReaction(m: Message, emoji: { name: string; code: string; type: string }) {
  const mine = m.reactions.some((r) => r.user_id === model.me.user_id && r.emoji_code === emoji.code && r.reaction_type === emoji.type);
  return api(mine ? "DELETE" : "POST", `/messages/${m.id}/reactions`, { emoji_name: emoji.name, emoji_code: emoji.code, reaction_type: emoji.type });
}

export const editMessage = (id: number, content: string) => api("PATCH", `/messages/${id}`, { content });
export const deleteMessage = (id: number) => api("DELETE", `/messages/${id}`);

export async function rawContent(id: number): Promise<string> {
  const r = await api<{ message: { content: string } }>("GET", `/messages/${id}`, { apply_markdown: false });
  return r.message.content;
}

/** A channel's topics from the server, beyond those of the messages seen so far. */
export async function loadTopics(streamId: number): Promise<void> {
  const r = await api<{ topics: { name: string; max_id: number }[] }>("GET", `/users/me/${streamId}/topics`);
  for (const t of r.topics) noteTopic(streamId, t.name, t.max_id);
  changed();
}

/** The settings of one's own subscription that Zulip lets a member change. */
export type SubscriptionProperty =
  | "color"
  | "is_muted"
  | "pin_to_top"
  | "desktop_notifications"
  | "audible_notifications"
  | "push_notifications"
  | "email_notifications"
  | "wildcard_mentions_notify";

export function setSubscriptionProperty(streamId: number, property: SubscriptionProperty, value: boolean | string) {
  return api("POST", "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: streamId, property, value }] });
}

export { TopicPolicy };

export function setTopicPolicy(streamId: number, topic: string, policy: number) {
  return api("POST", "/user_topics", { stream_id: streamId, topic, visibility_policy: policy });
}

/** Mutes or unmutes a topic; in a muted channel a topic is muted unless it says "unmuted". */
export function toggleTopicMute(streamId: number, topic: string) {
  const unmuted = model.subs.get(streamId)?.is_muted ? TopicPolicy.UNMUTED : TopicPolicy.INHERIT;
  return setTopicPolicy(streamId, topic, topicMuted(streamId, topic) ? unmuted : TopicPolicy.MUTED);
}

/** The narrow where "Mark as unread from here" was last used; see keepsUnread. */
let keptUnreadIn: Narrow | null = null;

/**
 * Marks a message and every later one in the narrow in view as unread, as Zulip's "Mark as
 * unread from here" does: in batches of the server's 5,000 until the newest.
 */
export async function markUnreadFrom(id: number): Promise<void> {
  const narrow = model.narrow;
  const before = keptUnreadIn;
  // Before the request: its event may come back first, and the feed must not read them again.
  keptUnreadIn = narrow;
  try {
    let anchor = id;
    let includeAnchor = true;
    for (;;) {
      const r = await api<{ processed_count: number; last_processed_id: number | null; found_newest: boolean }>("POST", "/messages/flags/narrow", {
        anchor,
        include_anchor: includeAnchor,
        num_before: 0,
        num_after: 5000,
        narrow,
        op: "remove",
        flag: "read",
      });
      if (r.found_newest || !r.processed_count || r.last_processed_id === null) return;
      anchor = r.last_processed_id;
      includeAnchor = false;
    }
  } catch (e) {
    keptUnreadIn = before;
    throw e;
  }
}

/**
 * Whether messages in view stay unread however long they are on screen: after "Mark as unread
 * from here", until the reader moves to another narrow (each move makes a new narrow object).
 */
export const keepsUnread = (narrow: Narrow) => narrow === keptUnreadIn;

export interface EditHistoryEntry {
  user_id: number | null;
  timestamp: number;
  topic: string;
  prev_topic?: string;
  stream?: number;
  prev_stream?: number;
  content: string;
  rendered_content: string;
  prev_content?: string;
}

/** GET /messages/{id}/history: every version of a message, oldest first. */
export async function messageHistory(id: number): Promise<EditHistoryEntry[]> {
  const r = await api<{ message_history: EditHistoryEntry[] }>("GET", `/messages/${id}/history`, { allow_empty_topic_name: true });
  return r.message_history;
}

export const reportMessage = (id: number, reportType: string, description: string) => api("POST", `/messages/${id}/report`, { report_type: reportType, description });

export interface Move {
  streamId?: number;
  topic?: string;
  propagateMode: "change_one" | "change_later" | "change_all";
  notifyOld: boolean;
  notifyNew: boolean;
}

/** Moves a message (and, by propagate mode, the rest of its topic) to another topic or channel. */
export function moveMessages(id: number, move: Move) {
  return api("PATCH", `/messages/${id}`, {
    stream_id: move.streamId,
    topic: move.topic,
    propagate_mode: move.propagateMode,
    send_notification_to_old_thread: move.notifyOld,
    send_notification_to_new_thread: move.notifyNew,
  });
}
