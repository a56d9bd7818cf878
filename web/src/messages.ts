/** Fetching the narrow in view (by anchors, in pages) and acting on messages. */
import { api } from "./api";
import { addMessages, changed, model, noteTopic, type Message } from "./model";
import type { Narrow } from "./narrow";

const PAGE = 100;

interface Fetched {
  messages: Message[];
  found_oldest: boolean;
  found_newest: boolean;
}

function fetchMessages(narrow: Narrow, anchor: number | "newest" | "first_unread", before: number, after: number) {
  return api<Fetched>("GET", "/messages", {
    anchor,
    num_before: before,
    num_after: after,
    narrow,
    apply_markdown: true,
    client_gravatar: false,
    include_anchor: anchor === "newest" || anchor === "first_unread",
  });
}

let narrowToken = 0;

export async function loadNarrow(narrow: Narrow): Promise<void> {
  const token = ++narrowToken;
  model.narrow = narrow;
  model.list = { ids: [], foundOldest: false, foundNewest: false, loading: true };
  changed();
  const channel = narrow.find((t) => t.operator === "channel")?.operand;
  if (typeof channel === "number" && model.subs.has(channel)) void loadTopics(channel);
  const r = await fetchMessages(narrow, "newest", PAGE, 0);
  if (token !== narrowToken) return;
  addMessages(r.messages);
  model.list = { ids: r.messages.map((m) => m.id), foundOldest: r.found_oldest, foundNewest: true, loading: false };
  model.selectedId = model.list.ids.at(-1) ?? 0;
  changed();
}

/** The page before the oldest message in view. */
export async function loadOlder(): Promise<void> {
  const list = model.list;
  if (list.loading || list.foundOldest || !list.ids.length) return;
  const token = narrowToken;
  list.loading = true;
  changed();
  const r = await fetchMessages(model.narrow, list.ids[0], PAGE, 0);
  if (token !== narrowToken) return;
  addMessages(r.messages);
  const known = new Set(model.list.ids);
  model.list = { ...model.list, ids: [...r.messages.map((m) => m.id).filter((id) => !known.has(id)), ...model.list.ids], foundOldest: r.found_oldest, loading: false };
  changed();
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
async function loadTopics(streamId: number): Promise<void> {
  const r = await api<{ topics: { name: string; max_id: number }[] }>("GET", `/users/me/${streamId}/topics`);
  for (const t of r.topics) noteTopic(streamId, t.name, t.max_id);
  changed();
}

export function setSubscriptionProperty(streamId: number, property: "is_muted" | "pin_to_top", value: boolean) {
  return api("POST", "/users/me/subscriptions/properties", { subscription_data: [{ stream_id: streamId, property, value }] });
}

/** Zulip's visibility policies: 0 inherit, 1 muted, 2 unmuted, 3 followed. */
export function setTopicPolicy(streamId: number, topic: string, policy: number) {
  return api("POST", "/user_topics", { stream_id: streamId, topic, visibility_policy: policy });
}
