/**
 * Zulip's web-app URLs: `#inbox`, `#recent`, `#feed`, and `#narrow/<operator>/<operand>/…` with
 * channels as `ID-name`, people as `ID-name` or emails, and operands in Zulip's hash encoding
 * (percent-encoding with `.` for `%`). `near` and `with` pick the message to open at; the rest is
 * the narrow the server is asked for. Pure: names are resolved through the functions given.
 */
import type { Narrow, Term } from "./narrow.js";

export type View = "inbox" | "recent" | "narrow";

export interface Place {
  view: View;
  /** For the narrow view: the terms sent to the server (no `near`/`with`). */
  narrow: Narrow;
  /** The message to open at (`near/ID` or `with/ID`). */
  near?: number;
}

export interface Resolvers {
  channelByName(name: string): number | undefined;
  userByEmail(email: string): number | undefined;
}

/** Zulip's hash encoding: percent-encoding where `.` stands for `%` (so a real dot is `.2E`). */
export function hashEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()*]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase())
    .replace(/\./g, "%2E")
    .replace(/%/g, ".");
}

export function hashDecode(s: string): string {
  try {
    return decodeURIComponent(s.replace(/\./g, "%"));
  } catch {
    return s;
  }
}

const slug = (name: string) => hashEncode(name.replace(/ /g, "-"));

const OPERATOR_ALIASES: Record<string, string> = {
  stream: "channel",
  subject: "topic",
  "pm-with": "dm",
  "group-pm-with": "dm-including",
  streams: "channels",
  sender: "sender",
};

/** The operand of a channel: `42-Verona` or `42` is channel 42; anything else a name. */
function channelOperand(raw: string, r: Resolvers): number | string {
  const m = /^(\d+)(?:-|$)/.exec(raw);
  if (m) return Number(m[1]);
  return r.channelByName(raw) ?? raw;
}

/** A person or people: `7-Iago`, `7,9-group`, or emails separated by commas. */
function userIds(raw: string, r: Resolvers): number[] {
  const m = /^(\d+(?:,\d+)*)(?:-|$)/.exec(raw);
  if (m) return m[1].split(",").map(Number);
  return raw.split(",").map((e) => r.userByEmail(e.trim()) ?? NaN).filter((n) => !Number.isNaN(n));
}

/** A place; undefined for an empty hash and for an overlay's (`#channels/…`), which open over the view in place. */
export function parseHash(hash: string, r: Resolvers): Place | undefined {
  const h = hash.replace(/^#/, "");
  if (h === "" || h === "channels" || h.startsWith("channels/")) return undefined;
  if (h === "inbox") return { view: "inbox", narrow: [] };
  if (h === "recent" || h === "recent_topics") return { view: "recent", narrow: [] };
  if (!h.startsWith("narrow/")) return { view: "narrow", narrow: [] };
  const parts = h.slice("narrow/".length).split("/");
  const narrow: Narrow = [];
  let near: number | undefined;
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const negated = parts[i].startsWith("-");
    const name = parts[i].replace(/^-/, "").toLowerCase();
    const operator = OPERATOR_ALIASES[name] ?? name;
    const raw = hashDecode(parts[i + 1]);
    if (operator === "near" || operator === "with") {
      if (/^\d+$/.test(raw)) near = Number(raw);
      continue;
    }
    let operand: Term["operand"] = raw;
    if (operator === "channel") operand = channelOperand(raw, r);
    else if (operator === "sender" || operator === "dm-including") operand = userIds(raw, r)[0] ?? raw;
    else if (operator === "dm") operand = userIds(raw, r);
    else if (operator === "id" && /^\d+$/.test(raw)) operand = Number(raw);
    narrow.push(negated ? { operator, operand, negated } : { operator, operand });
  }
  return { view: "narrow", narrow, near };
}

export interface Namer {
  channelName(id: number): string | undefined;
  userName(id: number): string | undefined;
}

function encodeOperand(t: Term, n: Namer): string {
  const o = t.operand;
  if (t.operator === "channel" && typeof o === "number") return `${o}-${slug(n.channelName(o) ?? "unknown")}`;
  if ((t.operator === "sender" || t.operator === "dm-including") && typeof o === "number") return `${o}-${slug(n.userName(o) ?? "user")}`;
  if (Array.isArray(o)) {
    const ids = [...o].sort((a, b) => a - b);
    return ids.length === 1 ? `${ids[0]}-${slug(n.userName(ids[0]) ?? "user")}` : `${ids.join(",")}-group`;
  }
  return hashEncode(String(o));
}

export function placeToHash(p: Place, n: Namer): string {
  if (p.view === "inbox") return "#inbox";
  if (p.view === "recent") return "#recent";
  if (!p.narrow.length && p.near === undefined) return "#feed";
  const terms = p.narrow.map((t) => `${t.negated ? "-" : ""}${t.operator}/${encodeOperand(t, n)}`);
  if (p.near !== undefined) terms.push(`near/${p.near}`);
  return `#narrow/${terms.join("/")}`;
}

export interface LinkedMessage {
  id: number;
  type: "stream" | "private";
  stream_id?: number;
  subject: string;
  /** For a direct message: everyone in the conversation, the reader too. */
  dmUserIds?: number[];
}

/** The conversation of a message, as a narrow (for a DM, the other people; oneself when alone). */
export function conversationNarrow(m: LinkedMessage, myId: number): Narrow {
  if (m.type === "stream") {
    return [
      { operator: "channel", operand: m.stream_id! },
      { operator: "topic", operand: m.subject },
    ];
  }
  const others = (m.dmUserIds ?? []).filter((id) => id !== myId);
  return [{ operator: "dm", operand: others.length ? others : [myId] }];
}

/** A link to a message in its conversation, as Zulip's "Copy link to message" makes it. */
export function messageHash(m: LinkedMessage, myId: number, n: Namer): string {
  return placeToHash({ view: "narrow", narrow: conversationNarrow(m, myId), near: m.id }, n);
}

/** Where the channels overlay stands, as its URL says: a list, the creation form, or one channel's settings. */
export type ChannelsRoute =
  | { tab: "subscribed" | "all" | "new" }
  | { tab: "channel"; id: number; section: ChannelSection };
export type ChannelSection = "general" | "personal" | "subscribers";

const SECTIONS = new Set<string>(["general", "personal", "subscribers"]);

/** `#channels/subscribed`, `#channels/all`, `#channels/new`, `#channels/ID/name/section`; undefined for any other hash. */
export function parseChannelsHash(hash: string): ChannelsRoute | undefined {
  const h = hash.replace(/^#/, "");
  if (h !== "channels" && !h.startsWith("channels/")) return undefined;
  const [first = "", , section = ""] = h.split("/").slice(1);
  if (/^\d+$/.test(first)) return { tab: "channel", id: Number(first), section: SECTIONS.has(section) ? (section as ChannelSection) : "general" };
  if (first === "all" || first === "new") return { tab: first };
  // Zulip's other lists (not subscribed, archived) and a bare #channels open on one's own channels.
  return { tab: "subscribed" };
}

export function channelsHash(route: ChannelsRoute, n: Namer): string {
  if (route.tab !== "channel") return `#channels/${route.tab}`;
  return `#channels/${route.id}/${hashEncode(n.channelName(route.id) ?? "unknown")}/${route.section}`;
}
