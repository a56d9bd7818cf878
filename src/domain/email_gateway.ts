/**
 * Channel email addresses, as Zulip's email gateway encodes them:
 * `<channel slug>.<token>.show-sender@<gateway domain>` through the configured pattern.
 */
import { randomBytes } from "node:crypto";

/** Zulip's email tokens: 32 lowercase hex digits. */
export function newEmailToken(): string {
  return randomBytes(16).toString("hex");
}

/** A notification email's reply token: "mm" and 32 hex digits, told apart from channel addresses by that shape. */
export function newReplyToken(): string {
  return `mm${newEmailToken()}`;
}

/** The reply address of a notification email, or "" without a gateway. */
export function replyEmailAddress(pattern: string | undefined, token: string): string {
  return pattern ? pattern.replace("%s", token) : "";
}

/** Django's slugify: ASCII only, lowercase, runs of spaces and hyphens collapsed, ends trimmed. */
function slugify(value: string): string {
  const ascii = value.normalize("NFKD").replace(/[^\x00-\x7f]/g, "");
  return ascii
    .toLowerCase()
    .replace(/[^\w\s-]/g, "")
    .replace(/[-\s]+/g, "-")
    .replace(/^[-_]+|[-_]+$/g, "");
}

/**
 * The channel-name part of the address. Runs of characters other than letters, digits and
 * underscores become one hyphen; a name that does not survive conversion to ASCII intact
 * (letters dropped, hyphens trimmed) becomes "channel" instead of a mangled slug.
 */
export function channelEmailSlug(name: string): string {
  const hyphenated = name.replace(/[^\p{L}\p{N}_]+/gu, "-");
  const slug = slugify(hyphenated);
  return slug.length === hyphenated.length && slug !== "" ? slug : "channel";
}

/**
 * The address for a channel and token; `pattern` holds one `%s` (Zulip's EMAIL_GATEWAY_PATTERN).
 * Without a pattern there is no gateway, and the address is empty, as Zulip returns it.
 */
export function channelEmailAddress(pattern: string | undefined, channelName: string, token: string): string {
  if (!pattern) return "";
  return pattern.replace("%s", `${channelEmailSlug(channelName)}.${token}.show-sender`);
}
