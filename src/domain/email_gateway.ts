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

/** What an address's options ask of a mail to a channel (Zulip's optional address tokens). */
export interface ChannelAddressOptions {
  showSender?: boolean;
  includeFooter?: boolean;
  includeQuotes?: boolean;
  preferText?: boolean;
}

const ADDRESS_OPTIONS: Record<string, (o: ChannelAddressOptions) => void> = {
  "show-sender": (o) => (o.showSender = true),
  "include-footer": (o) => (o.includeFooter = true),
  "include-quotes": (o) => (o.includeQuotes = true),
  "prefer-text": (o) => (o.preferText = true),
  "prefer-html": (o) => (o.preferText = false),
};

/** Mail addresses are at most 254 characters (RFC 5321); anything longer is no address of ours. */
const MAX_ADDRESS_LENGTH = 254;

/**
 * The part of `address` that stands for `%s` in the gateway pattern, or null when the address
 * is not the gateway's. The domain is compared without case, as mail domains are.
 */
export function gatewayAddressPart(pattern: string | undefined, address: string): string | null {
  if (!pattern || address.length > MAX_ADDRESS_LENGTH) return null;
  const at = pattern.indexOf("%s");
  const prefix = pattern.slice(0, at).toLowerCase();
  const suffix = pattern.slice(at + 2).toLowerCase();
  const lower = address.toLowerCase();
  if (lower.length <= prefix.length + suffix.length || !lower.startsWith(prefix) || !lower.endsWith(suffix)) return null;
  return address.slice(prefix.length, address.length - suffix.length);
}

/** Whether an address part is a reply token ("mm" and 32 more characters), not a channel's. */
export function isReplyToken(part: string): boolean {
  return part.startsWith("mm") && part.length === 34;
}

/**
 * A channel address part: `[slug.]token[.option...]`, with `+` accepted for `.` (older
 * addresses used it). Option names are taken out wherever they stand; the token is the only
 * part left, or the second when the slug is there too.
 */
export function decodeChannelAddressPart(part: string): { token: string; options: ChannelAddressOptions } {
  const options: ChannelAddressOptions = {};
  const rest: string[] = [];
  for (const piece of part.replaceAll(".", "+").split("+")) {
    const option = Object.hasOwn(ADDRESS_OPTIONS, piece) ? ADDRESS_OPTIONS[piece] : undefined;
    if (option) option(options);
    else rest.push(piece);
  }
  return { token: (rest.length === 1 ? rest[0] : rest[1]) ?? "", options };
}
