/**
 * Drafts: how a draft sent by a client is normalized, and how a stored draft is shown.
 */
import { badRequest } from "../http/errors.js";
import { LIMITS } from "./limits.js";

/** POST /register returns at most this many drafts, the most recently edited. */
export const MAX_DRAFTS_IN_REGISTER_RESPONSE = 1000;

/** The last second Zulip can store (end of year 9999). */
const MAX_TIMESTAMP = 253402300799;

const MESSAGE_TRUNCATED = "\n[message truncated]";

function truncate(text: string, max: number, marker: string): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  return chars.slice(0, max - [...marker].length).join("") + marker;
}

/** Content is kept like a message body: no null bytes, cut to the message length limit. */
export function draftContent(content: string): string {
  if (content.includes("\u0000")) throw badRequest("Message must not contain null bytes");
  return truncate(content, LIMITS.maxMessageLength, MESSAGE_TRUNCATED);
}

/** A channel draft's topic: cut to the topic length limit, no null bytes. */
export function draftTopic(topic: string): string {
  const cut = truncate(topic, LIMITS.maxTopicLength, "...");
  if (cut.includes("\u0000")) throw badRequest("Topic must not contain null bytes");
  return cut;
}

/** The edit time to store: the client's (to the microsecond) or now. */
export function draftTimestamp(given: number | null | undefined, now: number): number {
  const rounded = Math.round((given ?? now) * 1e6) / 1e6;
  if (rounded < 0) throw badRequest("Timestamp must not be negative.");
  if (rounded > MAX_TIMESTAMP) throw badRequest("Timestamp is out of range.");
  return rounded;
}

/** A direct-message conversation is identified by the sorted ids of all its participants. */
export function directMessageKey(participantIds: Iterable<number>): string {
  return [...new Set(participantIds)].sort((a, b) => a - b).join(",");
}

export interface StoredDraft {
  id: number;
  stream_id: number | null;
  dm_key: string | null;
  topic: string;
  content: string;
  last_edit_time: number;
}

export interface ApiDraft {
  id: number;
  type: "" | "stream" | "private";
  to: number[];
  topic: string;
  content: string;
  timestamp: number;
}

/**
 * A draft as the API shows it. A direct-message draft lists the other participants; a draft
 * to oneself lists the owner.
 */
export function formatDraft(draft: StoredDraft, ownerId: number): ApiDraft {
  let type: ApiDraft["type"] = "";
  let to: number[] = [];
  if (draft.stream_id !== null) {
    type = "stream";
    to = [draft.stream_id];
  } else if (draft.dm_key !== null) {
    type = "private";
    const participants = draft.dm_key.split(",").map(Number);
    const others = participants.filter((id) => id !== ownerId);
    to = others.length ? others : [ownerId];
  }
  return {
    id: draft.id,
    type,
    to,
    topic: draft.topic,
    content: draft.content,
    timestamp: Math.trunc(draft.last_edit_time),
  };
}
