/**
 * Outgoing webhooks as Zulip defines them: which bots a message triggers, what their servers are
 * sent (the generic JSON or Slack's form), what an answer means, and the texts of the failure
 * notices — the one in the conversation and the one to the bot's owner.
 */
import { BotType } from "./bots.js";

/** Zulip's MAX_REQUEST_RETRIES: a timed-out or unreachable bot server is tried this many more times. */
export const MAX_REQUEST_RETRIES = 3;
/** Zulip's Service interfaces. */
export const GENERIC_INTERFACE = 1;
export const SLACK_INTERFACE = 2;

export type Trigger = "mention" | "direct_message";

export interface Candidate {
  id: number;
  is_bot: number;
  bot_type: number | null;
  is_active: number;
}

/**
 * The outgoing-webhook bots a message triggers: in a channel, those mentioned (subscribed or
 * not; a group mention counts); in a direct message, those among its recipients. A bot's
 * messages trigger nothing, so that bots cannot answer each other forever.
 */
export function triggeredBots(sender: Candidate, candidates: readonly Candidate[]): number[] {
  if (sender.is_bot === 1) return [];
  const ids = candidates.filter((u) => u.is_active === 1 && u.is_bot === 1 && u.bot_type === BotType.OUTGOING_WEBHOOK).map((u) => u.id);
  return [...new Set(ids)].sort((a, b) => a - b);
}

export interface SlackFields {
  token: string;
  realmId: number;
  realmHost: string;
  botId: number;
  trigger: Trigger;
  /** The message as the generic interface sends it. */
  message: Record<string, unknown>;
}

/** The form Zulip's Slack-compatible interface posts, in its order. */
export function slackForm(f: SlackFields): URLSearchParams {
  const m = f.message;
  return new URLSearchParams([
    ["token", f.token],
    ["team_id", `T${f.realmId}`],
    ["team_domain", f.realmHost],
    ["channel_id", `C${String(m.stream_id)}`],
    ["channel_name", String(m.display_recipient)],
    ["thread_ts", String(m.timestamp)],
    ["timestamp", String(m.timestamp)],
    ["user_id", `U${String(m.sender_id)}`],
    ["user_name", String(m.sender_full_name)],
    ["text", String(m.content)],
    ["trigger_word", f.trigger],
    ["service_id", String(f.botId)],
  ]);
}

/** What a successful (2xx) answer asks for. */
export type Answer = { kind: "reply"; content: string; widgetContent?: unknown } | { kind: "nothing" } | { kind: "invalid"; error: string };

/** Reads a 2xx answer's body as Zulip does for the given interface. */
export function readAnswer(iface: number, body: string): Answer {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { kind: "invalid", error: "Invalid JSON in response" };
  }
  // zulip_botserver before 2021 answered "" for "nothing to say".
  if (json === "") return { kind: "nothing" };
  if (typeof json !== "object" || json === null || Array.isArray(json)) return { kind: "invalid", error: "Invalid response format" };
  const answer = json as Record<string, unknown>;
  let content: string | undefined;
  let widgetContent: unknown;
  if (iface === SLACK_INTERFACE) {
    if ("text" in answer) content = pythonStr(answer.text);
  } else {
    if (pythonTruthy(answer.response_not_required)) return { kind: "nothing" };
    if ("response_string" in answer) content = pythonStr(answer.response_string);
    else if ("content" in answer) {
      content = pythonStr(answer.content);
      widgetContent = answer.widget_content;
    }
  }
  if (content === undefined || content.trim() === "") return { kind: "nothing" };
  return widgetContent === undefined ? { kind: "reply", content } : { kind: "reply", content, widgetContent };
}

function pythonTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === "object" && v !== null) return Object.keys(v).length > 0;
  return Boolean(v);
}

/** Python's str() of a JSON value, for the scalars a bot server may send as its content. */
function pythonStr(v: unknown): string {
  if (typeof v === "string") return v;
  if (v === null) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  return typeof v === "number" ? String(v) : JSON.stringify(v);
}

/** Python's repr() of a text (`bytes` false) or of raw bytes (`bytes` true), as notices quote payloads. */
export function pythonRepr(value: string | Buffer, bytes: boolean): string {
  const text = typeof value === "string" ? value : bytes ? value.toString("latin1") : value.toString("utf8");
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of text) {
    const code = ch.codePointAt(0)!;
    if (ch === "\\" || ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f || (bytes && code > 0x7f) || (code >= 0x80 && code < 0xa0)) out += "\\x" + code.toString(16).padStart(2, "0");
    else out += ch;
  }
  return (bytes ? "b" : "") + quote + out + quote;
}

/** "Failure! …", posted by the bot where it was called. */
export const conversationFailure = (detail: string) => `Failure! ${detail}`;

export const THIRD_PARTY_STATUS = (status: number) => `Third party responded with ${status}`;
export const BOT_UNAVAILABLE = "Bot is unavailable";
export const SLACK_NO_DIRECT_MESSAGES = "Slack outgoing webhooks don't support direct messages.";
export const timedOut = (seconds: number) => `Request timed out after ${seconds} seconds.`;
export const CONNECTION_ERROR = "A connection error occurred. Is my bot server down?";
export const exceptionInConversation = (type: string, command: string) =>
  `An exception of type *${type}* occurred for message \`${command}\`! See the Zulip server logs for more information.`;
export const replyRefused = (error: string) =>
  `The outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> ${error}`;

/** Zulip answers a request to a private or disallowed network with this status (its proxy's). */
export const DISALLOWED_NETWORK_STATUS = 407;

export interface OwnerNotice {
  messageUrl: string;
  botFullName: string;
  status?: number;
  /** The payload, already quoted as Python's repr() shows it. */
  responseRepr?: string;
  failureMessage?: string;
  exception?: { type: string; text: string };
}

/** The direct message the bot sends its owner when a call went wrong. */
export function ownerNotice(n: OwnerNotice): string {
  let text = `[A message](${n.messageUrl}) to your bot @_**${n.botFullName}** triggered an outgoing webhook.`;
  if (n.exception) {
    text += `\nWhen trying to send a request to the webhook service, an exception of type ${n.exception.type} occurred:\n\`\`\`\n${n.exception.text}\n\`\`\``;
  } else if (n.failureMessage) text += `\n${n.failureMessage}`;
  else if (n.status === DISALLOWED_NETWORK_STATUS) text += "\nThe URL configured for the webhook is for a private or disallowed network.";
  else if (n.status) text += `\nThe webhook got a response with status code *${n.status}*.`;
  if (n.responseRepr) text += `\nThe response contains the following payload:\n\`\`\`\n${n.responseRepr}\n\`\`\``;
  return text;
}
