/**
 * The narrow an event queue filters message events with. Unlike GET /messages, it only selects
 * among the messages the user receives anyway, and supports just a few operators.
 */
export type NarrowTerm = readonly [operator: string, operand: string];

const CHANNEL_OPERATORS = ["channel", "stream"];
const SUPPORTED_OPERATORS = [...CHANNEL_OPERATORS, "topic", "sender", "is"];
export const RESOLVED_TOPIC_PREFIX = "✔ ";

/** The operator a queue's narrow may not use, if any. */
export function unsupportedNarrowOperator(narrow: readonly NarrowTerm[]): string | undefined {
  return narrow.find(([operator]) => !SUPPORTED_OPERATORS.includes(operator))?.[0];
}

/** The fields of a message event the predicate reads. */
export interface NarrowedMessage {
  type: string;
  display_recipient?: unknown;
  subject?: string;
  topic?: string;
  sender_email?: string;
}

function satisfies([operator, operand]: NarrowTerm, message: NarrowedMessage, flags: readonly string[]): boolean {
  const isChannel = message.type === "stream";
  const topic = String(message.subject ?? message.topic ?? "");
  if (CHANNEL_OPERATORS.includes(operator)) {
    return isChannel && String(message.display_recipient).toLowerCase() === operand.toLowerCase();
  }
  switch (operator) {
    case "topic":
      return isChannel && topic.toLowerCase() === operand.toLowerCase();
    case "sender":
      return String(message.sender_email ?? "").toLowerCase() === operand.toLowerCase();
    case "is":
      switch (operand) {
        case "dm":
        case "private":
          return message.type === "private";
        case "starred":
          return flags.includes("starred");
        case "unread":
          return !flags.includes("read");
        case "alerted":
        case "mentioned":
          return flags.includes("mentioned");
        case "resolved":
          return isChannel && topic.startsWith(RESOLVED_TOPIC_PREFIX);
        default:
          // Other `is:` operands do not restrict event delivery, as in Zulip.
          return true;
      }
    default:
      return true;
  }
}

/** Whether a message event (with the recipient's flags) passes every term of the narrow. */
export function messageMatchesNarrow(narrow: readonly NarrowTerm[], message: NarrowedMessage, flags: readonly string[]): boolean {
  return narrow.every((term) => satisfies(term, message, flags));
}
