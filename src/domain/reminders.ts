/**
 * Reminders: scheduled messages Notification Bot sends to the user who asked, quoting the message
 * they asked to be reminded of. Zulip writes the reminder's text when it is scheduled.
 */
import { badRequest } from "../http/errors.js";
import { LIMITS } from "./limits.js";
import { channelMessageLinkSyntax, messageUrl } from "./message_links.js";
import { joinNames, silentMention, unusedFence, type ReportPerson } from "./message_report.js";
import { directRecipientIds } from "./scheduled_messages.js";
import { truncateContent } from "./text.js";

/** POST /register's `max_reminder_note_length`. */
export const MAX_REMINDER_NOTE_LENGTH = 1000;

/** Stripped like a message body; an overlong note is refused. */
export function normalizeReminderNote(note: string): string {
  const body = note.replace(/\s+$/u, "").replace(/^\n+/, "");
  if ([...body].length > MAX_REMINDER_NOTE_LENGTH) {
    throw badRequest(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  }
  return body;
}

export interface RemindedMessage {
  id: number;
  content: string;
  sender: ReportPerson;
  channel?: { id: number; name: string; topic: string };
  /** Direct messages: every participant, the sender included. */
  participants?: ReportPerson[];
}

export function reminderContent(realmUrl: string, m: RemindedMessage, note: string): string {
  const what = m.channel ? "message" : "direct message";
  let content = note
    ? `You requested a reminder for the following ${what}. Note:\n > ${note}`
    : `You requested a reminder for the following ${what}.`;
  content += "\n\n";
  const url = m.channel
    ? messageUrl(realmUrl, { id: m.id, channel: m.channel })
    : messageUrl(realmUrl, { id: m.id, participantIds: m.participants!.map((u) => u.id) });
  let where: string;
  if (m.channel) {
    where = `in ${channelMessageLinkSyntax(m.channel.name, m.channel.topic, m.id)}`;
  } else {
    const others = m.participants!.filter((u) => u.id !== m.sender.id);
    where = `to ${joinNames((others.length ? others : [m.sender]).map(silentMention))}`;
  }
  const widget = m.content.startsWith("/poll") ? "poll" : m.content.startsWith("/todo") ? "todo list" : null;
  if (widget) return `${content}${silentMention(m.sender)} [sent](${url}) a ${widget} ${where}.`;
  content += `${silentMention(m.sender)} [said](${url}) ${where}:\n`;
  const fence = unusedFence(m.content);
  const room = LIMITS.maxMessageLength - [...content].length - `${fence}quote\n\n${fence}`.length;
  return `${content}${fence}quote\n${truncateContent(m.content, room, "\n[message truncated]")}\n${fence}`;
}

export interface ApiReminder {
  reminder_id: number;
  type: "private";
  to: number[];
  content: string;
  rendered_content: string;
  scheduled_delivery_timestamp: number;
  failed: boolean;
  reminder_target_message_id: number;
}

export interface StoredReminder {
  id: number;
  sender_id: number;
  dm_key: string | null;
  content: string;
  rendered_content: string;
  scheduled_timestamp: number;
  failed: number;
  reminder_target_message_id: number | null;
}

export function formatReminder(r: StoredReminder): ApiReminder {
  return {
    reminder_id: r.id,
    type: "private",
    to: directRecipientIds(r.dm_key!, r.sender_id),
    content: r.content,
    rendered_content: r.rendered_content,
    scheduled_delivery_timestamp: Number(r.scheduled_timestamp),
    failed: r.failed === 1,
    reminder_target_message_id: r.reminder_target_message_id!,
  };
}
