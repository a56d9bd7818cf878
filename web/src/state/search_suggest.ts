/**
 * What the search box suggests as one types, as Zulip's search typeahead does: the operators,
 * then the channels, topics and people that complete the word being typed, each with the search
 * text it would leave in the box and a sentence saying what it finds. Pure: what the client knows
 * is passed in.
 */

export interface SuggestChannel {
  id: number;
  name: string;
}

export interface SuggestPerson {
  id: number;
  name: string;
  email: string;
}

export interface SuggestContext {
  /** The channels one can search, in the order they should be offered. */
  channels: SuggestChannel[];
  /** A channel's topics, newest first. */
  topics(channelId: number): string[];
  /** Active people, oneself included. */
  people: SuggestPerson[];
}

export interface Suggestion {
  /** The whole search text once the suggestion is taken. */
  text: string;
  description: string;
  /** Whether the text is a search that can run as it is; an operator alone waits for its operand. */
  complete: boolean;
}

const LIMIT = 10;

/** `is:` and `has:` operands, with what each finds. */
const IS: [string, string][] = [
  ["dm", "Direct messages"],
  ["starred", "Starred messages"],
  ["mentioned", "Messages that mention you"],
  ["unread", "Unread messages"],
  ["followed", "Followed topics"],
  ["resolved", "Topics marked as resolved"],
  ["alerted", "Alerted messages"],
];
const HAS: [string, string][] = [
  ["link", "Messages with links"],
  ["image", "Messages with images"],
  ["attachment", "Messages with attachments"],
  ["reaction", "Messages with reactions"],
];

/** Operators offered while their name is typed, with what they wait for. */
const OPERATORS: [string, string][] = [
  ["channel", "Messages in a channel"],
  ["topic", "Messages in a topic"],
  ["sender", "Messages sent by someone"],
  ["dm", "Direct messages with someone"],
  ["dm-including", "Direct messages including someone"],
  ["is", "Messages that are starred, unread, mentions…"],
  ["has", "Messages with links, images, attachments or reactions"],
  ["near", "Messages around a message"],
  ["id", "One message by its ID"],
];

/** Spellings Zulip accepts for the same operator. */
const ALIASES: Record<string, string> = { stream: "channel", subject: "topic", from: "sender", "pm-with": "dm", "group-pm-with": "dm-including" };

/** What an empty box offers. */
const STARTERS = ["is:dm", "is:starred", "is:mentioned", "is:unread", "is:followed", "sender:me", "has:link", "has:image", "has:attachment"];

/** An operand as the search text writes it: quoted when it holds a space. */
export const quoteOperand = (v: string) => (/\s/.test(v) ? `"${v}"` : v);

/** The text before the word being typed, and that word (quotes open or closed). */
export function splitLastWord(text: string): { before: string; word: string } {
  let start = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') quoted = !quoted;
    else if (!quoted && /\s/.test(text[i])) start = i + 1;
  }
  return { before: text.slice(0, start), word: text.slice(start) };
}

const unquote = (s: string) => s.replace(/^"/, "").replace(/"$/, "");
const lower = (s: string) => s.toLowerCase();

/** Whether a name matches what was typed: at its start or at the start of one of its words. */
function nameMatches(name: string, typed: string): boolean {
  const n = lower(name);
  const t = lower(typed);
  return n.startsWith(t) || n.split(/[\s\-_/]+/).some((w) => w.startsWith(t));
}

const personMatches = (p: SuggestPerson, typed: string) => nameMatches(p.name, typed) || lower(p.email).startsWith(lower(typed));

/** The channel named earlier in the text (for topic completion), by `channel:` or an alias. */
export function channelBefore(before: string, ctx: SuggestContext): SuggestChannel | undefined {
  let found: SuggestChannel | undefined;
  for (const m of before.matchAll(/(?:^|\s)(?:channel|stream):("[^"]*"|\S+)/gi)) {
    const name = lower(unquote(m[1]));
    found = ctx.channels.find((c) => lower(c.name) === name) ?? found;
  }
  return found;
}

function personName(email: string, ctx: SuggestContext): string {
  if (lower(email) === "me") return "you";
  return ctx.people.find((p) => lower(p.email) === lower(email))?.name ?? email;
}

/** What a finished term finds, as a sentence ("Messages from Iago"). */
function describeTerm(operator: string, operand: string, ctx: SuggestContext, channel?: SuggestChannel): string {
  const op = ALIASES[lower(operator)] ?? lower(operator);
  switch (op) {
    case "channel":
      return `Channel ${operand}`;
    case "topic":
      return channel ? `Channel ${channel.name} > topic ${operand}` : `Topic ${operand}`;
    case "sender":
      return lower(operand) === "me" ? "Messages sent by you" : `Messages from ${personName(operand, ctx)}`;
    case "dm":
      return `Direct messages with ${operand.split(",").map((e) => personName(e, ctx)).join(", ")}`;
    case "dm-including":
      return `Direct messages including ${personName(operand, ctx)}`;
    case "is":
      return IS.find(([v]) => v === lower(operand))?.[1] ?? `Messages that are ${operand}`;
    case "has":
      return HAS.find(([v]) => v === lower(operand))?.[1] ?? `Messages with ${operand}`;
    case "near":
      return `Messages around message ${operand}`;
    case "id":
      return `Message ${operand}`;
    default:
      return `${operator}:${operand}`;
  }
}

/** The completions of an operand after `operator:`. */
function operandSuggestions(op: string, typed: string, before: string, ctx: SuggestContext): { term: string; description: string; complete: boolean }[] {
  const term = (value: string) => `${op}:${quoteOperand(value)}`;
  const t = lower(typed);
  switch (op) {
    case "channel":
      return ctx.channels.filter((c) => nameMatches(c.name, typed)).map((c) => ({ term: term(c.name), description: `Channel ${c.name}`, complete: true }));
    case "topic": {
      const channel = channelBefore(before, ctx);
      const topics = channel ? ctx.topics(channel.id) : [...new Set(ctx.channels.flatMap((c) => ctx.topics(c.id)))];
      return topics
        .filter((name) => name !== "" && lower(name).includes(t))
        .map((name) => ({ term: term(name), description: describeTerm("topic", name, ctx, channel), complete: true }));
    }
    case "sender":
    case "dm":
    case "dm-including": {
      const people = ctx.people.filter((p) => personMatches(p, typed)).map((p) => ({ term: term(p.email), description: describeTerm(op, p.email, ctx), complete: true }));
      return op === "sender" && "me".startsWith(t) ? [{ term: "sender:me", description: "Messages sent by you", complete: true }, ...people] : people;
    }
    case "is":
    case "has":
      return (op === "is" ? IS : HAS).filter(([v]) => v.startsWith(t)).map(([v, description]) => ({ term: `${op}:${v}`, description, complete: true }));
    case "near":
    case "id":
      return /^\d+$/.test(typed) ? [{ term: `${op}:${typed}`, description: describeTerm(op, typed, ctx), complete: true }] : [];
    default:
      return [];
  }
}

/** After a finished term: the topics of the channel named (unless a topic is too), then the common filters not yet used. */
function nextTerms(before: string, ctx: SuggestContext): Suggestion[] {
  const channel = channelBefore(before, ctx);
  const hasTopic = /(?:^|\s)-?(?:topic|subject):/i.test(before);
  const topics =
    channel && !hasTopic
      ? ctx
          .topics(channel.id)
          .filter((t) => t !== "")
          .slice(0, 5)
          .map((t) => ({ text: `${before}topic:${quoteOperand(t)}`, description: describeTerm("topic", t, ctx, channel), complete: true }))
      : [];
  const used = new Set(before.toLowerCase().split(/\s+/));
  const filters = STARTERS.filter((s) => !used.has(s)).map((s) => {
    const [op, operand] = s.split(":");
    return { text: `${before}${s}`, description: describeTerm(op, operand, ctx), complete: true };
  });
  return [...topics, ...filters].slice(0, LIMIT);
}

/**
 * The suggestions for the search text, best first: for a plain word, the text search itself,
 * then the operators, people and channels it begins; for `operator:partial`, the operands that
 * complete it. A leading `-` excludes what the term finds.
 */
export function suggest(text: string, ctx: SuggestContext): Suggestion[] {
  const { before, word } = splitLastWord(text);
  if (!text.trim()) {
    return STARTERS.map((s) => {
      const [op, operand] = s.split(":");
      return { text: s, description: describeTerm(op, operand, ctx), complete: true };
    });
  }
  if (!word) return nextTerms(before, ctx);
  const negated = word.startsWith("-") && word.length > 1;
  const bare = negated ? word.slice(1) : word;
  const sign = negated ? "-" : "";
  const describe = (d: string) => (negated ? `Exclude ${d.charAt(0).toLowerCase()}${d.slice(1)}` : d);
  const out: Suggestion[] = [];
  const add = (term: string, description: string, complete: boolean) => {
    const full = `${before}${sign}${term}`;
    if (out.some((s) => s.text === full) || out.length >= LIMIT) return;
    out.push({ text: full, description: describe(description), complete });
  };

  const colon = /^([a-z-]+):(.*)$/i.exec(bare);
  if (colon) {
    const op = ALIASES[lower(colon[1])] ?? lower(colon[1]);
    if (OPERATORS.some(([name]) => name === op)) {
      for (const s of operandSuggestions(op, unquote(colon[2]), before, ctx)) add(s.term, s.description, s.complete);
      return out;
    }
  }

  // A plain word: searching for it, then what it may begin.
  const typed = unquote(bare);
  if (!negated) out.push({ text, description: `Search for ${typed}`, complete: true });
  for (const [name, description] of OPERATORS) if (name.startsWith(lower(typed))) add(`${name}:`, description, false);
  for (const [alias, name] of Object.entries(ALIASES)) if (alias.startsWith(lower(typed)) && lower(typed).length > 1) add(`${name}:`, OPERATORS.find(([n]) => n === name)?.[1] ?? "", false);
  for (const p of ctx.people.filter((p) => personMatches(p, typed)).slice(0, 3)) {
    add(`sender:${p.email}`, describeTerm("sender", p.email, ctx), true);
    add(`dm:${p.email}`, describeTerm("dm", p.email, ctx), true);
  }
  for (const c of ctx.channels.filter((c) => nameMatches(c.name, typed))) add(`channel:${quoteOperand(c.name)}`, `Channel ${c.name}`, true);
  return out;
}
