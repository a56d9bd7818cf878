/**
 * How one published event becomes what one event queue receives: Zulip filters by the queue's
 * event types and narrow, and adapts some events to what the client declared it supports.
 *
 * Producers publish events in the shape Zulip's own server puts on its queue, with a few
 * internal fields the queues consume and never show to clients:
 * - message events: `message.content` is the Markdown source and `message.rendered_content` the
 *   HTML; `message.sender_email_address_visibility` and `message.sender_avatar_source` decide
 *   whether a `client_gravatar` client gets a null `avatar_url`; top-level `local_id` and
 *   `sender_queue_id` echo the sender's local id to the queue that sent it; top-level
 *   `invite_only: false` marks a public channel message, which also reaches queues registered
 *   with `all_public_streams` or a narrow (a guest's narrowed queue only when `web_public: true`
 *   says the channel is web-public). Each recipient's `flags` come from `Notice.perUser`;
 *   no other top-level field of a message event reaches clients.
 * - presence events carry the legacy fields (`user_id`, `email`, `server_timestamp`, `presence`)
 *   and the modern `presences` map; each queue gets the one format its client asked for.
 * - realm_user `add` events may carry `inaccessible_user: true`.
 * - archiving a channel publishes a `stream` update of `is_archived` (for clients that declared
 *   `archived_channels`) and a `stream` delete marked `for_archiving: true` (for the others);
 *   unarchiving likewise pairs the update with a create marked `for_unarchiving: true`.
 * - user_group `update` events for a rename carry `deactivated` (whether the group is), and the
 *   `add` event announcing a reactivated group carries `for_reactivation: true`: clients that
 *   keep deactivated groups (`include_deactivated_groups`) and those that drop them get different events.
 */
import { messageMatchesNarrow, type NarrowTerm, type NarrowedMessage } from "../domain/event_narrow.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "../domain/limits.js";

export type Event = Record<string, unknown>;

/** Optional behaviours a client declares in `client_capabilities`. */
export interface ClientCapabilities {
  notification_settings_null?: boolean;
  bulk_message_deletion?: boolean;
  user_avatar_url_field_optional?: boolean;
  stream_typing_notifications?: boolean;
  user_settings_object?: boolean;
  linkifier_url_template?: boolean;
  user_list_incomplete?: boolean;
  include_deactivated_groups?: boolean;
  archived_channels?: boolean;
  empty_topic_name?: boolean;
  simplified_presence_events?: boolean;
}

/** What shaping needs to know about a queue. */
export interface QueueProfile {
  queueId: string;
  /** null: every event type. */
  eventTypes: ReadonlySet<string> | null;
  narrow: readonly NarrowTerm[];
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  capabilities: ClientCapabilities;
}

const EMAIL_VISIBLE_TO_EVERYONE = 1;
const MESSAGE_INTERNAL_KEYS = ["rendered_content", "sender_email_address_visibility", "sender_avatar_source"];

/** Renders are shared between queues that want the same variant of a message. */
export type ShapeCache = Map<string, Event>;

/** The message object as a client with these options sees it. */
export function finalizeMessage(message: Event, applyMarkdown: boolean, clientGravatar: boolean): Event {
  const out: Event = { ...message };
  if ("rendered_content" in message) {
    out.content = applyMarkdown ? message.rendered_content : message.content;
    out.content_type = applyMarkdown ? "text/html" : "text/x-markdown";
  }
  const gravatar = (message.sender_avatar_source ?? "G") === "G";
  const emailPublic = Number(message.sender_email_address_visibility ?? 0) === EMAIL_VISIBLE_TO_EVERYONE;
  if (clientGravatar && gravatar && emailPublic && "sender_email_address_visibility" in message) out.avatar_url = null;
  for (const key of MESSAGE_INTERNAL_KEYS) delete out[key];
  return out;
}

function shapeMessage(event: Event, extra: Event | undefined, queue: QueueProfile, cache: ShapeCache): Event[] {
  const variant = `${queue.applyMarkdown ? 1 : 0}${queue.clientGravatar ? 1 : 0}`;
  let message = cache.get(variant);
  if (!message) {
    message = finalizeMessage(event.message as Event, queue.applyMarkdown, queue.clientGravatar);
    cache.set(variant, message);
  }
  const out: Event = { type: "message", message, flags: [], ...extra };
  if (event.sender_queue_id !== undefined && event.sender_queue_id === queue.queueId && event.local_id != null) {
    out.local_message_id = event.local_id;
  }
  const flags = (out.flags as string[] | undefined) ?? [];
  return messageMatchesNarrow(queue.narrow, message as unknown as NarrowedMessage, flags) ? [out] : [];
}

function shapePresence(event: Event, queue: QueueProfile): Event[] {
  if (queue.capabilities.simplified_presence_events) return [{ type: "presence", presences: event.presences }];
  const legacy: Event = { type: "presence", user_id: event.user_id };
  if (!queue.slimPresence) legacy.email = event.email;
  legacy.server_timestamp = event.server_timestamp;
  legacy.presence = event.presence;
  return [legacy];
}

/** Each queue hears of a channel's archiving in the one form its client understands. */
function shapeStream(event: Event, caps: ClientCapabilities): Event[] | null {
  if (event.op === "update" && event.property === "is_archived") return caps.archived_channels ? null : [];
  if ("for_archiving" in event || "for_unarchiving" in event) {
    const { for_archiving, for_unarchiving, ...rest } = event;
    if (for_archiving || for_unarchiving) return caps.archived_channels ? [] : [rest];
    return [rest];
  }
  return null;
}

/** Clients without `empty_topic_name` see the empty topic under its display name. */
function showEmptyTopics(event: Event, keys: readonly string[], caps: ClientCapabilities): Event {
  if (caps.empty_topic_name || !keys.some((k) => event[k] === "")) return event;
  const out = { ...event };
  for (const k of keys) if (out[k] === "") out[k] = EMPTY_TOPIC_DISPLAY_NAME;
  return out;
}

function shapeUserGroup(event: Event, extra: Event | undefined, caps: ClientCapabilities): Event[] {
  const keepsDeactivated = caps.include_deactivated_groups === true;
  const data = (event.data ?? {}) as Event;
  if (event.op === "remove" && keepsDeactivated) return [];
  if (event.op === "update" && "deactivated" in data && !keepsDeactivated) return [];
  const { deactivated, for_reactivation, ...rest } = event;
  if (event.op === "update" && "name" in data && deactivated === true && !keepsDeactivated) return [];
  if (for_reactivation === true && keepsDeactivated) return [];
  return [{ ...rest, ...extra }];
}

/** The events (zero, one or several) a queue receives for one published event. */
export function shapeForQueue(event: Event, extra: Event | undefined, queue: QueueProfile, cache: ShapeCache): Event[] {
  const type = String(event.type);
  const types = queue.eventTypes;
  const caps = queue.capabilities;
  if (types) {
    if (!types.has(type)) return [];
    if (type === "muted_topics" && types.has("user_topic")) return [];
  }
  switch (type) {
    case "message":
      return shapeMessage(event, extra, queue, cache);
    case "presence":
      return shapePresence(event, queue);
    case "typing":
      if ("stream_id" in event && !caps.stream_typing_notifications) return [];
      break;
    case "update_display_settings":
    case "update_global_notifications":
      if (caps.user_settings_object) return [];
      break;
    case "realm_linkifiers":
      if (!caps.linkifier_url_template) return [];
      break;
    case "realm_user":
      if ("inaccessible_user" in event) {
        if (event.inaccessible_user && caps.user_list_incomplete) return [];
        const { inaccessible_user: _, ...rest } = event;
        return [{ ...rest, ...extra }];
      }
      break;
    case "user_group":
      return shapeUserGroup(event, extra, caps);
    case "stream": {
      const shaped = shapeStream(event, caps);
      if (shaped) return shaped.map((e) => (extra ? { ...e, ...extra } : e));
      break;
    }
    case "update_message": {
      const shaped = showEmptyTopics(event, ["orig_subject", "subject"], caps);
      return [extra ? { ...shaped, ...extra } : shaped];
    }
    case "user_topic": {
      const shaped = showEmptyTopics(event, ["topic_name"], caps);
      return [extra ? { ...shaped, ...extra } : shaped];
    }
    case "update_message_flags": {
      const details = event.message_details as Record<string, Event> | undefined;
      if (!details || caps.empty_topic_name) break;
      const shown = Object.fromEntries(Object.entries(details).map(([id, d]) => [id, showEmptyTopics(d, ["topic"], caps)]));
      return [{ ...event, message_details: shown, ...extra }];
    }
    case "delete_message": {
      const shaped = showEmptyTopics(event, ["topic"], caps);
      if (Array.isArray(shaped.message_ids) && !caps.bulk_message_deletion) {
        const { message_ids, ...rest } = shaped;
        return (message_ids as unknown[]).map((message_id) => ({ ...rest, message_id, ...extra }));
      }
      return [extra ? { ...shaped, ...extra } : shaped];
    }
  }
  return [extra ? { ...event, ...extra } : event];
}
