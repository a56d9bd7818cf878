/**
 * Narrows as Zulip's API takes them (`[{operator, operand, negated}]`), the search box's text
 * form (`channel:Verona topic:lunch sender:iago@zulip.com is:starred some words`), and which live
 * messages belong to the narrow in view.
 */
/** What matching needs of a message (the API's message object has more). */
export interface NarrowMessage {
  type: "stream" | "private";
  stream_id?: number;
  display_recipient: string | { id: number }[];
  subject: string;
  sender_id: number;
  sender_email: string;
  flags: string[];
}

export interface Term {
  operator: string;
  operand: string | number | number[];
  negated?: boolean;
}
export type Narrow = Term[];

const OPERATORS = new Set(["channel", "topic", "sender", "dm", "dm-including", "is", "has", "search", "id", "near", "channels"]);
/** Other spellings Zulip accepts in the search box. */
const ALIASES: Record<string, string> = { stream: "channel", streams: "channels", subject: "topic", from: "sender", "pm-with": "dm", "group-pm-with": "dm-including" };

/** Splits search text into terms; quoted operands may hold spaces; unknown words become a text search. */
export function parseSearch(text: string, resolveChannel: (name: string) => number | undefined, resolveUser: (who: string) => number | undefined): Narrow {
  const terms: Narrow = [];
  const words: string[] = [];
  const re = /(-?)([a-z-]+):("([^"]*)"|\S+)|("[^"]*"|\S+)/gi;
  for (const m of text.matchAll(re)) {
    const operator = m[2] && (ALIASES[m[2].toLowerCase()] ?? m[2].toLowerCase());
    if (operator && OPERATORS.has(operator)) {
      const raw = m[4] ?? m[3];
      let operand: Term["operand"] = raw;
      if (operator === "channel") operand = resolveChannel(raw) ?? raw;
      else if (operator === "sender" || operator === "dm-including") operand = resolveUser(raw) ?? raw;
      else if (operator === "id" && /^\d+$/.test(raw)) operand = Number(raw);
      else if (operator === "dm") operand = raw.split(",").map((w) => resolveUser(w.trim()) ?? NaN).filter((n) => !Number.isNaN(n));
      else if (operator === "search") {
        words.push(raw);
        continue;
      }
      terms.push(m[1] ? { operator, operand, negated: true } : { operator, operand });
    } else words.push(m[0].replace(/^"|"$/g, ""));
  }
  if (words.length) terms.push({ operator: "search", operand: words.join(" ") });
  return terms;
}

export function narrowToSearch(narrow: Narrow, channelName: (id: number) => string, userEmail: (id: number) => string): string {
  return narrow
    .map((t) => {
      if (t.operator === "search") return String(t.operand);
      let v: string;
      if (t.operator === "channel" && typeof t.operand === "number") v = channelName(t.operand);
      else if ((t.operator === "sender" || t.operator === "dm-including") && typeof t.operand === "number") v = userEmail(t.operand);
      else if (Array.isArray(t.operand)) v = t.operand.map(userEmail).join(",");
      else v = String(t.operand);
      return `${t.negated ? "-" : ""}${t.operator}:${/\s/.test(v) ? `"${v}"` : v}`;
    })
    .join(" ");
}

function termMatches(m: NarrowMessage, t: Term, myId: number): boolean | undefined {
  switch (t.operator) {
    case "channel":
      return m.type === "stream" && (typeof t.operand === "number" ? m.stream_id === t.operand : m.display_recipient === t.operand);
    case "topic":
      return m.type === "stream" && m.subject.toLowerCase() === String(t.operand).toLowerCase();
    case "sender":
      return typeof t.operand === "number" ? m.sender_id === t.operand : m.sender_email === t.operand;
    case "dm": {
      if (m.type !== "private" || !Array.isArray(t.operand) || !Array.isArray(m.display_recipient)) return false;
      const want = new Set([...t.operand, myId]);
      const have = new Set(m.display_recipient.map((r) => r.id));
      return want.size === have.size && [...want].every((id) => have.has(id));
    }
    case "is":
      if (t.operand === "starred") return m.flags.includes("starred");
      if (t.operand === "mentioned") return m.flags.includes("mentioned") || m.flags.includes("wildcard_mentioned");
      if (t.operand === "dm" || t.operand === "private") return m.type === "private";
      if (t.operand === "unread") return !m.flags.includes("read");
      return undefined;
    default:
      // Text search and the rest are the server's to decide.
      return undefined;
  }
}

/** Whether a live message belongs to the narrow; false when only the server could tell. */
export function matchesNarrow(m: NarrowMessage, narrow: Narrow, myId = 0): boolean {
  for (const t of narrow) {
    const r = termMatches(m, t, myId);
    if (r === undefined) return false;
    if (r === !!t.negated) return false;
  }
  return true;
}

/** The server's highlighted copy of a search result (`match_content`, `match_subject`), and the message as it was found. */
export interface SearchMatch {
  content: string;
  subject: string;
  foundContent: string;
  foundSubject: string;
}

/**
 * What of a search result shows highlighted: the server's copies while the message still reads
 * as it was found; an edited content or a moved topic shows as it is now, unhighlighted.
 */
export function searchHighlight(m: { content: string; subject: string }, match: SearchMatch | undefined): { content?: string; subject?: string } {
  if (!match) return {};
  return {
    content: m.content === match.foundContent ? match.content : undefined,
    subject: m.subject === match.foundSubject ? match.subject : undefined,
  };
}
