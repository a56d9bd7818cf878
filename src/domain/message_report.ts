/**
 * Reporting a message to the organization's moderators: the reasons a report may give, and the
 * Notification Bot message that quotes the reported message in the moderation request channel.
 */
import { LIMITS } from "./limits.js";
import { globalTime } from "./scheduled_messages.js";
import { truncateContent } from "./text.js";
import { channelMessageLinkSyntax, messageUrl } from "./message_links.js";

export const REPORT_REASONS = {
  spam: "Spam",
  harassment: "Harassment",
  inappropriate: "Inappropriate content",
  norms: "Violates community norms",
  other: "Other reason",
} as const;
export type ReportType = keyof typeof REPORT_REASONS;
export const REPORT_TYPES = Object.keys(REPORT_REASONS) as ReportType[];

export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;

/** Room is left in the report for the description and the text around the quoted message. */
const MAX_REPORTED_SNIPPET_LENGTH = LIMITS.maxMessageLength - MAX_REPORT_DESCRIPTION_LENGTH - 500;
const TRUNCATION_NOTE = "\n[message truncated]";

export interface ReportPerson {
  id: number;
  fullName: string;
}

export interface ReportedMessage {
  id: number;
  content: string;
  dateSent: number;
  sender: ReportPerson;
  /** Channel messages: the channel and topic. */
  channel?: { id: number; name: string; topic: string };
  /** Direct messages: every participant, the sender included. */
  participants?: ReportPerson[];
}

export const silentMention = (u: ReportPerson) => `@_**${u.fullName}|${u.id}**`;

/** "A", "A and B", "A, B, and C". */
export function joinNames(names: string[]): string {
  if (names.length <= 2) return names.join(" and ");
  return `${names.slice(0, -1).join(", ")}, and ${names[names.length - 1]}`;
}

/** A fence longer than any fence line inside the quoted content, so the quote cannot be closed early. */
export function unusedFence(content: string): string {
  let length = 3;
  for (const m of content.matchAll(/^ {0,3}(`{3,})/gm)) length = Math.max(length, m[1].length + 1);
  return "`".repeat(length);
}

function header(reporter: ReportPerson, m: ReportedMessage): string {
  const sent = `${silentMention(reporter)} reported a message sent by ${silentMention(m.sender)}`;
  const at = ` at ${globalTime(m.dateSent)}.`;
  const participants = m.participants;
  if (!participants) return sent + at;
  const others = participants.filter((u) => u.id !== m.sender.id);
  if (participants.length <= 2) {
    // Reporting one's own 1:1 message names whom it was sent to.
    if (m.sender.id !== reporter.id) return sent + at;
    return `${sent} to ${silentMention(others[0] ?? reporter)}${at}`;
  }
  return `${sent} to ${joinNames(others.map(silentMention))}${at}`;
}

/** A link to the reported message, as Zulip writes it in the report. */
function originalMessageLink(realmUrl: string, m: ReportedMessage): string {
  if (m.channel) return `Original message at ${channelMessageLinkSyntax(m.channel.name, m.channel.topic, m.id)}`;
  return `[Original message](${messageUrl(realmUrl, { id: m.id, participantIds: m.participants!.map((u) => u.id) })})`;
}

export function reportContent(realmUrl: string, reporter: ReportPerson, m: ReportedMessage, type: ReportType, description: string): string {
  const snippet = truncateContent(m.content, MAX_REPORTED_SNIPPET_LENGTH, TRUNCATION_NOTE);
  const fence = unusedFence(snippet);
  return (
    `${header(reporter, m)}\n` +
    "```quote\n" +
    `**${REPORT_REASONS[type]}**. ${description}\n` +
    "```\n\n" +
    `${fence} spoiler ${originalMessageLink(realmUrl, m)}\n` +
    `${snippet}\n` +
    `${fence}\n`
  );
}

/** The report's topic in the moderation channel, unless that channel only allows the empty topic. */
export const reportTopic = (reported: ReportPerson, channelTopicsPolicy: string) =>
  channelTopicsPolicy === "empty_topic_only" ? "" : `${reported.fullName} moderation`;
