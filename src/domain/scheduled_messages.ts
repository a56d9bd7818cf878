/** Scheduled messages: how they are addressed, shown, timed, and how a failure is reported. */
import { badRequest } from "../http/errors.js";
import type { ScheduledMessageTable } from "../store/schema.js";

/** A message that could not be sent within this long after its time is not sent at all. */
export const LATE_CUTOFF_SECONDS = 10 * 60;

/** `to` as clients send it: a channel id, or a list of user ids. */
export type ScheduledTo = number | number[];

export interface ApiScheduledMessage {
  scheduled_message_id: number;
  type: "stream" | "private";
  to: number | number[];
  topic?: string;
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
}

export type StoredScheduledMessage = Pick<
  ScheduledMessageTable,
  "sender_id" | "stream_id" | "dm_key" | "topic" | "content" | "rendered_content" | "scheduled_timestamp" | "failed"
> & { id: number };

/** The legacy names are what scheduled messages are stored and shown with. */
export function scheduledMessageType(type: "direct" | "private" | "stream" | "channel"): "private" | "stream" {
  return type === "stream" || type === "channel" ? "stream" : "private";
}

/** A scheduled message's `delivery_type`: sent later by its sender, or a reminder Notification Bot sends them. */
export const DELIVERY_TYPE = { SEND_LATER: 0, REMINDER: 1 } as const;

export function checkDeliveryTime(timestamp: number, now: number): void {
  if (timestamp <= now) throw badRequest("Scheduled delivery time must be in the future.");
}

export function channelIdFrom(to: ScheduledTo): number {
  if (Array.isArray(to)) throw badRequest("Invalid data type for channel ID");
  return to;
}

export function recipientIdsFrom(to: ScheduledTo): number[] {
  if (!Array.isArray(to)) throw badRequest("Invalid data type for recipients");
  return [...new Set(to)];
}

/**
 * Whom a direct message is shown as going to: everyone but the sender, or the sender alone
 * for a note to self.
 */
export function directRecipientIds(dmKey: string, senderId: number): number[] {
  const participants = dmKey.split(",").map(Number);
  const others = participants.filter((id) => id !== senderId);
  return others.length ? others : [senderId];
}

export function formatScheduledMessage(m: StoredScheduledMessage): ApiScheduledMessage {
  const common = {
    scheduled_message_id: m.id,
    content: m.content,
    rendered_content: m.rendered_content,
    scheduled_delivery_timestamp: Number(m.scheduled_timestamp),
    failed: m.failed === 1,
  };
  if (m.stream_id !== null) return { ...common, type: "stream", to: m.stream_id, topic: m.topic };
  return { ...common, type: "private", to: directRecipientIds(m.dm_key!, m.sender_id) };
}

/** Register state and GET order: the earliest first. */
export function sortScheduledMessages(messages: ApiScheduledMessage[]): ApiScheduledMessage[] {
  return messages.sort(
    (a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp || a.scheduled_message_id - b.scheduled_message_id,
  );
}

export function isTooLate(scheduledTimestamp: number, now: number): boolean {
  return now > scheduledTimestamp + LATE_CUTOFF_SECONDS;
}

/** A time every reader sees in their own time zone (Markdown's `<time:…>`). */
export function globalTime(timestamp: number): string {
  return `<time:${new Date(timestamp * 1000).toISOString().replace(/\.\d{3}Z$/, "+00:00")}>`;
}

/** What Notification Bot tells the sender when their message could not be sent. */
export function failureNotice(scheduledTimestamp: number, error: string): string {
  return (
    `The message you scheduled for ${globalTime(scheduledTimestamp)} was not sent because of the following error:\n\n` +
    `> ${error}\n\n` +
    "[View scheduled messages](#scheduled)"
  );
}
