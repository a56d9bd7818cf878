/**
 * Rules for editing and moving messages that need no database: what an edit request may
 * contain, whether a topic change only (un)resolves the topic, and the time limits.
 */
import { ZulipError, badRequest } from "../http/errors.js";
import { EMPTY_TOPIC_DISPLAY_NAME } from "./limits.js";
import { firstNonPrintablePosition } from "./text.js";
import { readEmptyTopicAliases, truncateTopic } from "./topics.js";
import { RESOLVED_TOPIC_PREFIX } from "./event_narrow.js";
export const PROPAGATE_MODES = ["change_one", "change_later", "change_all"] as const;
export type PropagateMode = (typeof PROPAGATE_MODES)[number];

/** Zulip's grace on every edit and move deadline, for clients racing the limit. */
export const EDIT_LIMIT_BUFFER_SECONDS = 20;

/** Python's `lstrip("✔ ")`: every leading check mark and space. */
const stripResolvedPrefix = (topic: string) => topic.replace(/^[✔ ]+/u, "");

/**
 * The requested topic as an edit compares it: stripped, the empty topic's aliases read as the
 * empty topic, and null when it is the message's current topic (so nothing changes).
 */
export function requestedTopic(raw: string | undefined, current: string): string | null {
  if (raw === undefined) return null;
  const topic = readEmptyTopicAliases(raw.trim());
  return topic === current ? null : topic;
}

export interface EditPayload {
  isChannelMessage: boolean;
  streamId: number | undefined;
  /** After `requestedTopic`. */
  topic: string | null;
  propagateMode: PropagateMode;
  content: string | undefined;
}

/** Zulip's validate_message_edit_payload: whether the request is well-formed, in its order. */
export function checkEditPayload(p: EditPayload): void {
  if (p.topic === null && p.content === undefined && p.streamId === undefined) throw badRequest("Nothing to change");
  if (!p.isChannelMessage) {
    if (p.streamId !== undefined) throw badRequest("Direct messages cannot be moved to channels.");
    if (p.topic !== null) throw badRequest("Direct messages cannot have topics.");
  }
  if (p.propagateMode !== "change_one" && p.topic === null && p.streamId === undefined) {
    throw badRequest("Invalid propagate_mode without topic edit");
  }
  if (p.topic === RESOLVED_TOPIC_PREFIX.trim() || p.topic === `${RESOLVED_TOPIC_PREFIX}${EMPTY_TOPIC_DISPLAY_NAME}`) {
    throw badRequest("General chat cannot be marked as resolved");
  }
  if (p.topic !== null) {
    const bad = firstNonPrintablePosition(p.topic);
    if (bad !== null) throw badRequest(`Invalid character in topic, at position ${bad}!`);
  }
  if (p.streamId !== undefined && p.content !== undefined) {
    throw badRequest("Cannot change message content while changing channel");
  }
}

export interface TopicChange {
  /** The stored topic: the requested one, cut to the maximum length. */
  target: string;
  resolved: boolean;
  unresolved: boolean;
}

/** Whether a topic change is only marking the topic resolved or unresolved. */
export function describeTopicChange(oldTopic: string, requested: string): TopicChange {
  const target = truncateTopic(requested);
  const resolved =
    target.startsWith(RESOLVED_TOPIC_PREFIX) &&
    !oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) &&
    requested.slice(RESOLVED_TOPIC_PREFIX.length) === oldTopic;
  const unresolved =
    oldTopic.startsWith(RESOLVED_TOPIC_PREFIX) &&
    !target.startsWith(RESOLVED_TOPIC_PREFIX) &&
    stripResolvedPrefix(oldTopic) === target;
  return { target, resolved, unresolved };
}

/** Whether a message this old is past a limit (null: no limit), with Zulip's grace. */
export function pastDeadline(ageSeconds: number, limitSeconds: number | null, bufferSeconds = EDIT_LIMIT_BUFFER_SECONDS): boolean {
  return limitSeconds !== null && ageSeconds > limitSeconds + bufferSeconds;
}

/**
 * The limit a `change_all` move must respect: the stricter of the topic and channel limits
 * that apply to what is changing; null when none does.
 */
export function moveDeadlineSeconds(
  topicChanged: boolean,
  channelChanged: boolean,
  limits: { withinChannel: number | null; betweenChannels: number | null },
): number | null {
  const deadlines: number[] = [];
  if (topicChanged && limits.withinChannel !== null) deadlines.push(limits.withinChannel + EDIT_LIMIT_BUFFER_SECONDS);
  if (channelChanged && limits.betweenChannels !== null) deadlines.push(limits.betweenChannels + EDIT_LIMIT_BUFFER_SECONDS);
  return deadlines.length ? Math.min(...deadlines) : null;
}

/** Zulip's MessageMoveError: only the most recent part of the topic may be moved. */
export function moveTimeLimitExceeded(allowedIds: readonly number[], total: number): ZulipError {
  return new ZulipError(
    `You only have permission to move the ${allowedIds.length}/${total} most recent messages in this topic.`,
    "MOVE_MESSAGES_TIME_LIMIT_EXCEEDED",
    400,
    {
      first_message_id_allowed_to_move: allowedIds.length ? allowedIds[0] : null,
      total_messages_in_topic: total,
      total_messages_allowed_to_move: allowedIds.length,
    },
  );
}

/** How notices name a channel's topic: `#**channel>topic**`. */
export const topicLinkSyntax = (channelName: string, topic: string) => `#**${channelName}>${topic}**`;
