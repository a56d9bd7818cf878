/**
 * Everything the client knows, filled from POST /register and kept current by applying events.
 * Views read it directly and re-render when `changed()` is announced.
 */
import { useEffect, useState } from "preact/hooks";
import { matchesNarrow, type Narrow } from "./state/narrow";
import type { View } from "./state/hash";
import { topicVisible, type InboxRules } from "./state/inbox";
import { applyUserGroupEvent, type GroupRecord } from "./state/user_groups";
import { applyBotEvent, type Bot } from "./state/bots";
import { addSubmessage, type Submessage, type SubmessageEvent } from "./state/widgets";

export interface User {
  user_id: number;
  email: string;
  full_name: string;
  is_bot: boolean;
  is_active: boolean;
  role: number;
  avatar_url?: string | null;
  timezone?: string;
  delivery_email?: string | null;
}
export interface Stream {
  stream_id: number;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: boolean;
  is_web_public?: boolean;
  folder_id?: number | null;
  is_archived?: boolean;
  [key: string]: unknown;
}
export interface Subscription extends Stream {
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  desktop_notifications?: boolean | null;
}
export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}
export interface Message {
  id: number;
  sender_id: number;
  sender_full_name: string;
  sender_email: string;
  avatar_url?: string | null;
  content: string;
  type: "stream" | "private";
  stream_id?: number;
  display_recipient: string | { id: number; email: string; full_name: string }[];
  subject: string;
  timestamp: number;
  reactions: Reaction[];
  flags: string[];
  last_edit_timestamp?: number;
  /** Whether it is a "/me" message, shown as its sender doing something. */
  is_me_message?: boolean;
  /** When it last went to another channel or topic (resolving a topic is not a move). */
  last_moved_timestamp?: number;
  /** A /poll or /todo widget and what was done with it, oldest first. */
  submessages?: Submessage[];
}
export interface Unread {
  streamId?: number;
  topic?: string;
  /** Sorted ids of the other people in a direct-message conversation (own id when alone). */
  dm?: string;
  mentioned: boolean;
}
export interface MessageList {
  ids: number[];
  foundOldest: boolean;
  foundNewest: boolean;
  loading: boolean;
  /** Set while the page being fetched is the next newer one (shown at the bottom). */
  loadingNewer?: boolean;
  /** Counts the narrows opened, so the feed knows when to place the reader again. */
  opened: number;
  error?: string;
}
export interface Folder {
  id: number;
  name: string;
  order?: number;
  is_archived?: boolean;
}

/** An unsent message kept on the server (GET /drafts, `drafts` events). */
export interface Draft {
  id: number;
  /** "" for a draft written before choosing where it goes. */
  type: "" | "stream" | "private";
  /** The channel (alone), or the other people of a direct message (oneself when alone). */
  to: number[];
  topic: string;
  content: string;
  /** When it was last edited, in seconds. */
  timestamp: number;
}

/** One's message waiting to be sent (GET /scheduled_messages, `scheduled_messages` events). */
export interface ScheduledMessage {
  scheduled_message_id: number;
  type: "stream" | "private";
  /** The channel, or the people of a direct message. */
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content?: string;
  /** In seconds. */
  scheduled_delivery_timestamp: number;
  /** The server tried to send it and could not. */
  failed?: boolean;
}

export const model = {
  ready: false,
  error: "",
  me: { user_id: 0, email: "", full_name: "", role: 400, is_admin: false },
  realm: { name: "", description: "", max_message_length: 10000, realm_emoji: {} as Record<string, { id: string; name: string; source_url: string; deactivated: boolean }> },
  users: new Map<number, User>(),
  streams: new Map<number, Stream>(),
  subs: new Map<number, Subscription>(),
  folders: new Map<number, Folder>(),
  /** The organization's default channels: new members join them, and invitations start with them ticked. */
  defaultChannelIds: new Set<number>(),
  /** Topics seen per channel, newest message id last. */
  topics: new Map<number, Map<string, number>>(),
  /** Muted (1), unmuted (2), followed (3) topics: "stream_id:topic". */
  topicPolicy: new Map<string, number>(),
  unread: new Map<number, Unread>(),
  messages: new Map<number, Message>(),
  /** Direct-message conversations, by key, with their newest message id. */
  dms: new Map<string, number>(),
  narrow: [] as Narrow,
  view: "narrow" as View,
  list: { ids: [], foundOldest: false, foundNewest: false, loading: false, opened: 0 } as MessageList,
  presence: new Map<number, { active_timestamp: number; idle_timestamp: number }>(),
  userStatus: new Map<number, { status_text?: string; emoji_name?: string }>(),
  /** Who is typing in a conversation ("dm:<key>" or "<stream_id>:<topic>"). */
  typing: new Map<string, Set<number>>(),
  drafts: new Map<number, Draft>(),
  snippets: [] as { id: number; title: string; content: string }[],
  scheduled: [] as ScheduledMessage[],
  alertWords: [] as string[],
  /** People whose messages one has muted. */
  mutedUsers: new Set<number>(),
  settings: {} as Record<string, unknown>,
  realmSettings: {} as Record<string, unknown>,
  selectedId: 0,
  /** Counts `invites_changed` events: whoever shows the pending invitations fetches them again. */
  invitesChanged: 0,
  /** The bots the reader administers (all of them for administrators), by user id. */
  bots: new Map<number, Bot>(),
};

let version = 0;
let scheduled = false;
const listeners = new Set<() => void>();

/** Announces a change; views re-render once per task however many changes came. */
export function changed(): void {
  version++;
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    for (const l of listeners) l();
  });
}

export function useModel(): number {
  const [, setSeen] = useState(version);
  useEffect(() => {
    const listener = () => setSeen(version);
    listeners.add(listener);
    // Effects run after paint: a change announced between the render and this subscription
    // (register answering first on a fast load) would otherwise never reach this view.
    listener();
    return () => void listeners.delete(listener);
  }, []);
  return version;
}

export const isAdmin = () => model.me.role <= 200;

/** The other people of a direct message, sorted; the sender alone when writing to oneself. */
export function dmKeyOf(userIds: number[]): string {
  const others = [...new Set(userIds)].filter((id) => id !== model.me.user_id).sort((a, b) => a - b);
  return (others.length ? others : [model.me.user_id]).join(",");
}

export function messageDmKey(m: Message): string {
  return Array.isArray(m.display_recipient) ? dmKeyOf(m.display_recipient.map((r) => r.id)) : "";
}

export function conversationKey(m: Message): string {
  return m.type === "stream" ? `${m.stream_id}:${m.subject}` : `dm:${messageDmKey(m)}`;
}

export function userName(id: number): string {
  return model.users.get(id)?.full_name ?? `User ${id}`;
}

/** A person by email (public or real) or full name, as people type them. */
export function findUser(who: string): User | undefined {
  const w = who.trim().toLowerCase();
  return [...model.users.values()].find((u) => [u.email, u.delivery_email, u.full_name].some((x) => x?.toLowerCase() === w));
}

/** The people of a direct-message conversation key, by name. */
export function dmNames(key: string): string {
  return key
    .split(",")
    .map((id) => userName(Number(id)))
    .join(", ");
}

/** A topic as the reader sees it: the empty topic under the organization's name for it. */
export function topicDisplay(topic: string): string {
  return topic || String(model.realmSettings.realm_empty_topic_display_name ?? "general chat");
}

/** Zulip marks a resolved topic by this prefix on its name. */
export const RESOLVED_PREFIX = "✔ ";

export const unresolvedTopic = (topic: string) => topic.replace(/^(✔ )+/, "");

/** Zulip's muting rules as the model holds them (the Inbox, unread navigation, menus). */
export const visibilityRules: InboxRules = {
  channelMuted: (id) => !!model.subs.get(id)?.is_muted,
  topicPolicy: (id, topic) => model.topicPolicy.get(`${id}:${topic}`),
  compareChannels: (a, b) => {
    const sa = model.subs.get(a);
    const sb = model.subs.get(b);
    return Number(!!sb?.pin_to_top) - Number(!!sa?.pin_to_top) || (sa?.name ?? "").localeCompare(sb?.name ?? "");
  },
};

export const topicMuted = (streamId: number, topic: string) => !topicVisible(streamId, topic, visibilityRules);

export function streamName(id: number | undefined): string {
  return (id !== undefined && (model.subs.get(id)?.name ?? model.streams.get(id)?.name)) || "unknown channel";
}

export function noteTopic(streamId: number, topic: string, id: number) {
  let topics = model.topics.get(streamId);
  if (!topics) model.topics.set(streamId, (topics = new Map()));
  if ((topics.get(topic) ?? 0) < id) {
    topics.delete(topic);
    topics.set(topic, id);
  }
}

function unreadOf(m: Message): Unread {
  return m.type === "stream"
    ? { streamId: m.stream_id, topic: m.subject, mentioned: m.flags.includes("mentioned") || m.flags.includes("wildcard_mentioned") }
    : { dm: messageDmKey(m), mentioned: m.flags.includes("mentioned") };
}

/** Remembers fetched or received messages. */
export function addMessages(messages: Message[]): void {
  for (const m of messages) {
    model.messages.set(m.id, m);
    if (m.type === "stream" && m.stream_id !== undefined) noteTopic(m.stream_id, m.subject, m.id);
    else if (m.type === "private") {
      const key = messageDmKey(m);
      if ((model.dms.get(key) ?? 0) < m.id) model.dms.set(key, m.id);
    }
  }
  changed();
}

export interface RegisterState {
  queue_id: string;
  last_event_id: number;
  [key: string]: unknown;
}

/** Fills the model from a POST /register answer. */
export function loadRegister(s: RegisterState): void {
  const r = s as Record<string, any>;
  const self = (r.realm_users ?? []).find((u: User) => u.user_id === r.user_id);
  model.me = { user_id: r.user_id, email: r.email, full_name: r.full_name, role: self?.role ?? 400, is_admin: r.is_admin };
  model.realm = { name: r.realm_name, description: r.realm_description, max_message_length: r.max_message_length, realm_emoji: r.realm_emoji ?? {} };
  model.realmSettings = Object.fromEntries(Object.entries(r).filter(([k]) => k.startsWith("realm_")));
  model.users = new Map();
  for (const u of [...(r.realm_users ?? []), ...(r.cross_realm_bots ?? [])]) model.users.set(u.user_id, { ...u, is_active: u.is_active ?? true });
  for (const u of r.realm_non_active_users ?? []) model.users.set(u.user_id, { ...u, is_active: false });
  model.subs = new Map((r.subscriptions ?? []).map((s: Subscription) => [s.stream_id, s]));
  model.streams = new Map((r.streams ?? []).map((s: Stream) => [s.stream_id, s]));
  for (const s of model.subs.values()) if (!model.streams.has(s.stream_id)) model.streams.set(s.stream_id, s);
  model.folders = new Map((r.channel_folders ?? []).map((f: Folder) => [f.id, f]));
  model.bots = new Map((r.realm_bots ?? []).map((b: Bot) => [b.user_id, b]));
  model.defaultChannelIds = new Set(r.realm_default_streams ?? []);
  model.topicPolicy = new Map((r.user_topics ?? []).map((t: { stream_id: number; topic_name: string; visibility_policy: number }) => [`${t.stream_id}:${t.topic_name}`, t.visibility_policy]));
  model.unread = new Map();
  const u = r.unread_msgs ?? {};
  const mentions = new Set<number>(u.mentions ?? []);
  for (const b of u.streams ?? []) {
    for (const id of b.unread_message_ids) model.unread.set(id, { streamId: b.stream_id, topic: b.topic, mentioned: mentions.has(id) });
    noteTopic(b.stream_id, b.topic, Math.max(...b.unread_message_ids));
  }
  for (const b of u.pms ?? []) for (const id of b.unread_message_ids) model.unread.set(id, { dm: String(b.other_user_id), mentioned: mentions.has(id) });
  for (const b of u.huddles ?? []) {
    const key = dmKeyOf(String(b.user_ids_string).split(",").map(Number));
    for (const id of b.unread_message_ids) model.unread.set(id, { dm: key, mentioned: mentions.has(id) });
  }
  model.dms = new Map();
  for (const c of r.recent_private_conversations ?? []) model.dms.set(dmKeyOf(c.user_ids), c.max_message_id);
  model.presence = new Map(Object.entries(r.presences ?? {}).map(([id, p]) => [Number(id), p as { active_timestamp: number; idle_timestamp: number }]));
  model.userStatus = new Map(Object.entries(r.user_status ?? {}).map(([id, st]) => [Number(id), st as { status_text?: string }]));
  model.drafts = new Map((r.drafts ?? []).map((d: Draft) => [d.id, d]));
  model.snippets = r.saved_snippets ?? [];
  model.scheduled = r.scheduled_messages ?? [];
  model.alertWords = r.alert_words ?? [];
  model.mutedUsers = new Set((r.muted_users ?? []).map((u: { id: number }) => u.id));
  model.settings = r.user_settings ?? {};
  model.ready = true;
  changed();
}

function removeMessages(ids: number[]) {
  const gone = new Set(ids);
  for (const id of ids) {
    model.messages.delete(id);
    model.unread.delete(id);
  }
  model.list.ids = model.list.ids.filter((id) => !gone.has(id));
}

function applyFlag(op: string, flag: string, ids: number[], all: boolean, details: Record<string, any> | undefined) {
  if (flag === "read") {
    if (op === "add") {
      if (all) model.unread.clear();
      for (const id of ids) model.unread.delete(id);
    } else {
      for (const id of ids) {
        const m = model.messages.get(id);
        const d = details?.[id];
        if (m) model.unread.set(id, unreadOf(m));
        else if (d) {
          model.unread.set(
            id,
            d.type === "stream" ? { streamId: d.stream_id, topic: d.topic, mentioned: !!d.mentioned } : { dm: dmKeyOf(d.user_ids ?? []), mentioned: !!d.mentioned },
          );
        }
      }
    }
  }
  const targets = all ? [...model.messages.keys()] : ids;
  for (const id of targets) {
    const m = model.messages.get(id);
    if (!m) continue;
    const has = m.flags.includes(flag);
    if (op === "add" && !has) model.messages.set(id, { ...m, flags: [...m.flags, flag] });
    if (op === "remove" && has) model.messages.set(id, { ...m, flags: m.flags.filter((f) => f !== flag) });
  }
}

const typingTimers = new Map<string, number>();

/** Applies one event from GET /events. Unknown types are ignored. */
export function applyEvent(e: Record<string, any>): void {
  switch (e.type) {
    case "message": {
      const m: Message = { ...e.message, flags: e.flags ?? [] };
      addMessages([m]);
      if (!m.flags.includes("read")) model.unread.set(m.id, unreadOf(m));
      if (model.list.foundNewest && matchesNarrow(m, model.narrow, model.me.user_id)) model.list.ids = [...model.list.ids, m.id];
      clearTyping(conversationKey(m), m.sender_id);
      break;
    }
    case "update_message": {
      const ids: number[] = e.message_ids ?? [e.message_id];
      const moved = e.new_stream_id !== undefined || (e.subject !== undefined && !onlyResolved(e.orig_subject, e.subject));
      for (const id of ids) {
        const m = model.messages.get(id);
        const next: Message | undefined = m && { ...m };
        if (next) {
          if (id === e.message_id && e.rendered_content !== undefined) {
            next.content = e.rendered_content;
            // A re-render by the server (thumbnails, link previews) is no edit.
            if (!e.rendering_only) next.last_edit_timestamp = e.edit_timestamp;
            if (e.is_me_message !== undefined) next.is_me_message = e.is_me_message;
          }
          if (e.subject !== undefined) next.subject = e.subject;
          if (moved) next.last_moved_timestamp = e.edit_timestamp;
          if (e.new_stream_id !== undefined) {
            next.stream_id = e.new_stream_id;
            next.display_recipient = streamName(e.new_stream_id);
          }
          model.messages.set(id, next);
          if (next.type === "stream") noteTopic(next.stream_id!, next.subject, id);
        }
        const u = model.unread.get(id);
        if (u && u.streamId !== undefined) {
          model.unread.set(id, { ...u, streamId: e.new_stream_id ?? u.streamId, topic: e.subject ?? u.topic });
        }
      }
      if (e.subject !== undefined || e.new_stream_id !== undefined) {
        // A moved message may leave or join the narrow in view.
        const stays = model.list.ids.filter((id) => {
          const m = model.messages.get(id);
          return !m || matchesNarrow(m, model.narrow, model.me.user_id);
        });
        model.list.ids = joinList(stays, ids.filter((id) => model.messages.has(id) && matchesNarrow(model.messages.get(id)!, model.narrow, model.me.user_id)));
      }
      break;
    }
    case "delete_message":
      removeMessages(e.message_ids ?? [e.message_id]);
      break;
    case "reaction": {
      const m = model.messages.get(e.message_id);
      if (!m) break;
      const same = (r: Reaction) => r.user_id === e.user_id && r.emoji_code === e.emoji_code && r.reaction_type === e.reaction_type;
      const reactions =
        e.op === "add"
          ? m.reactions.some(same)
            ? m.reactions
            : [...m.reactions, { emoji_name: e.emoji_name, emoji_code: e.emoji_code, reaction_type: e.reaction_type, user_id: e.user_id }]
          : m.reactions.filter((r) => !same(r));
      model.messages.set(m.id, { ...m, reactions });
      break;
    }
    case "submessage": {
      const m = model.messages.get(e.message_id);
      if (m) model.messages.set(m.id, { ...m, submessages: addSubmessage(m.submessages ?? [], e as SubmessageEvent) });
      break;
    }
    case "update_message_flags":
      applyFlag(e.op, e.flag, e.messages ?? [], !!e.all, e.message_details);
      break;
    case "typing": {
      const key = e.message_type === "stream" ? `${e.stream_id}:${e.topic}` : `dm:${dmKeyOf([e.sender.user_id, ...(e.recipients ?? []).map((r: { user_id: number }) => r.user_id)])}`;
      if (e.sender.user_id === model.me.user_id) break;
      if (e.op === "start") {
        const set = model.typing.get(key) ?? new Set();
        set.add(e.sender.user_id);
        model.typing.set(key, set);
        const timerKey = `${key}|${e.sender.user_id}`;
        clearTimeout(typingTimers.get(timerKey));
        // Zulip's clients forget a typist who has not renewed the notice in 15 seconds.
        typingTimers.set(timerKey, window.setTimeout(() => clearTyping(key, e.sender.user_id), 15000));
      } else clearTyping(key, e.sender.user_id);
      break;
    }
    case "presence":
      if (e.presences) for (const [id, p] of Object.entries(e.presences)) model.presence.set(Number(id), p as { active_timestamp: number; idle_timestamp: number });
      break;
    case "subscription":
      if (e.op === "add") for (const s of e.subscriptions) {
        model.subs.set(s.stream_id, s);
        model.streams.set(s.stream_id, { ...model.streams.get(s.stream_id), ...s });
      }
      else if (e.op === "remove") for (const s of e.subscriptions) {
        // No peer_remove comes for one's own leaving.
        countSubscribers(s.stream_id, -1);
        model.subs.delete(s.stream_id);
      }
      else if (e.op === "peer_add" || e.op === "peer_remove") {
        for (const id of e.stream_ids ?? []) countSubscribers(id, (e.op === "peer_add" ? 1 : -1) * (e.user_ids ?? []).length);
      }
      else if (e.op === "update") {
        const sub = model.subs.get(e.stream_id);
        if (sub) model.subs.set(e.stream_id, { ...sub, [e.property]: e.value });
      }
      break;
    case "stream":
      if (e.op === "create") for (const s of e.streams) model.streams.set(s.stream_id, s);
      else if (e.op === "delete") for (const s of e.streams) {
        model.streams.delete(s.stream_id);
        model.subs.delete(s.stream_id);
      }
      else if (e.op === "update") {
        const patch: Record<string, unknown> = { [e.property]: e.value };
        if (e.rendered_description !== undefined) patch.rendered_description = e.rendered_description;
        for (const [k, v] of Object.entries(e)) if (["history_public_to_subscribers", "is_web_public"].includes(k)) patch[k] = v;
        const s = model.streams.get(e.stream_id);
        if (s) model.streams.set(e.stream_id, { ...s, ...patch });
        const sub = model.subs.get(e.stream_id);
        if (sub) model.subs.set(e.stream_id, { ...sub, ...patch });
      }
      break;
    case "realm_user":
      if (e.op === "add") model.users.set(e.person.user_id, { ...e.person, is_active: e.person.is_active ?? true });
      else if (e.op === "update") {
        const u = model.users.get(e.person.user_id);
        if (u) model.users.set(u.user_id, { ...u, ...e.person });
        if (e.person.user_id === model.me.user_id) {
          if (e.person.full_name) model.me = { ...model.me, full_name: e.person.full_name };
          if (e.person.role !== undefined) model.me = { ...model.me, role: e.person.role, is_admin: e.person.role <= 200 };
        }
      } else if (e.op === "remove") {
        const u = model.users.get(e.person.user_id);
        if (u) model.users.set(u.user_id, { ...u, is_active: false });
      }
      break;
    case "realm_bot":
      model.bots = applyBotEvent(model.bots, e);
      break;
    case "user_status":
      model.userStatus.set(e.user_id, { ...model.userStatus.get(e.user_id), ...e });
      break;
    case "realm_emoji":
      model.realm = { ...model.realm, realm_emoji: e.realm_emoji };
      break;
    case "user_topic":
      model.topicPolicy.set(`${e.stream_id}:${e.topic_name}`, e.visibility_policy);
      break;
    case "drafts":
      if (e.op === "add") for (const d of e.drafts) model.drafts.set(d.id, d);
      else if (e.op === "update") model.drafts.set(e.draft.id, e.draft);
      else if (e.op === "remove") model.drafts.delete(e.draft_id);
      break;
    case "saved_snippets":
      if (e.op === "add") model.snippets = [...model.snippets, e.saved_snippet];
      else if (e.op === "remove") model.snippets = model.snippets.filter((s) => s.id !== e.saved_snippet_id);
      break;
    case "scheduled_messages":
      if (e.op === "add") model.scheduled = [...model.scheduled, ...e.scheduled_messages];
      else if (e.op === "update") model.scheduled = model.scheduled.map((s) => (s.scheduled_message_id === e.scheduled_message.scheduled_message_id ? e.scheduled_message : s));
      else if (e.op === "remove") model.scheduled = model.scheduled.filter((s) => s.scheduled_message_id !== e.scheduled_message_id);
      break;
    case "alert_words":
      model.alertWords = e.alert_words;
      break;
    case "muted_users":
      model.mutedUsers = new Set(e.muted_users.map((u: { id: number }) => u.id));
      break;
    case "user_settings":
      if (e.op === "update") model.settings = { ...model.settings, [e.property]: e.value };
      break;
    case "realm":
      if (e.op === "update") {
        model.realmSettings = { ...model.realmSettings, [`realm_${e.property}`]: e.value };
        if (e.property === "name") model.realm = { ...model.realm, name: String(e.value) };
      } else if (e.op === "update_dict") {
        for (const [k, v] of Object.entries(e.data ?? {})) model.realmSettings[`realm_${k}`] = v;
        model.realmSettings = { ...model.realmSettings };
      }
      break;
    case "invites_changed":
      model.invitesChanged++;
      break;
    case "default_streams":
      model.defaultChannelIds = new Set(e.default_streams);
      break;
    case "user_group":
      model.realmSettings = { ...model.realmSettings, realm_user_groups: applyUserGroupEvent((model.realmSettings.realm_user_groups ?? []) as GroupRecord[], e) };
      break;
    case "realm_playgrounds":
      model.realmSettings = { ...model.realmSettings, realm_playgrounds: e.realm_playgrounds };
      break;
    case "channel_folder":
      if (e.op === "add") model.folders.set(e.channel_folder.id, e.channel_folder);
      else if (e.op === "update") {
        const f = model.folders.get(e.channel_folder_id);
        if (f) model.folders.set(f.id, { ...f, ...e.data });
      }
      break;
    default:
      return;
  }
  changed();
}

/**
 * The list with messages that joined its narrow, in order; only those within the span it has
 * loaded, since a gap the list has not fetched must stay a gap.
 */
function joinList(list: number[], joining: number[]): number[] {
  const have = new Set(list);
  const first = model.list.foundOldest ? -Infinity : (list[0] ?? Infinity);
  const last = model.list.foundNewest ? Infinity : (list.at(-1) ?? -Infinity);
  const fresh = joining.filter((id) => !have.has(id) && id >= first && id <= last);
  return fresh.length ? [...list, ...fresh].sort((a, b) => a - b) : list;
}

/** Whether a topic change only resolved or unresolved the topic, which Zulip does not count as moving. */
function onlyResolved(from: string | undefined, to: string): boolean {
  return from !== undefined && from !== to && unresolvedTopic(from) === unresolvedTopic(to);
}

function clearTyping(key: string, userId: number) {
  const set = model.typing.get(key);
  if (set?.delete(userId)) {
    if (!set.size) model.typing.delete(key);
    changed();
  }
}

/** A channel's `subscriber_count` (from register and `add` events) kept current by peer events. */
function countSubscribers(streamId: number, delta: number) {
  const s = model.streams.get(streamId);
  if (s && typeof s.subscriber_count === "number") model.streams.set(streamId, { ...s, subscriber_count: Math.max(0, s.subscriber_count + delta) });
  const sub = model.subs.get(streamId);
  if (sub && typeof sub.subscriber_count === "number") model.subs.set(streamId, { ...sub, subscriber_count: Math.max(0, sub.subscriber_count + delta) });
}

export function unreadCounts() {
  const byStream = new Map<number, number>();
  const byTopic = new Map<string, number>();
  const byDm = new Map<string, number>();
  let total = 0;
  let mentions = 0;
  for (const u of model.unread.values()) {
    if (u.streamId !== undefined) {
      if (topicMuted(u.streamId, u.topic ?? "")) continue;
      byStream.set(u.streamId, (byStream.get(u.streamId) ?? 0) + 1);
      const k = `${u.streamId}:${u.topic}`;
      byTopic.set(k, (byTopic.get(k) ?? 0) + 1);
    } else if (u.dm) byDm.set(u.dm, (byDm.get(u.dm) ?? 0) + 1);
    if (u.mentioned) mentions++;
    total++;
  }
  return { byStream, byTopic, byDm, total, mentions };
}
