/**
 * What the incoming-webhook endpoint does with an integration's outcome before posting,
 * the same for every integration: drop events the URL filters out and apply the URL's topic.
 */
import type { WebhookMessage, WebhookOutcome } from "./types.js";

/** Patterns are few and short; the bounds keep a hostile URL from costing more than that. */
const MAX_PATTERNS = 100;
const MAX_PATTERN_LENGTH = 200;

/**
 * Shell-style matching as Python's fnmatch does it (`*`, `?`, `[seq]`, `[!seq]`), case-sensitive,
 * by dynamic programming over the two strings, so no pattern can make it backtrack.
 */
export function globMatch(pattern: string, text: string): boolean {
  const tokens = globTokens(pattern);
  let reachable = new Array<boolean>(text.length + 1).fill(false);
  reachable[0] = true;
  for (const token of tokens) {
    const next = new Array<boolean>(text.length + 1).fill(false);
    for (let i = 0; i <= text.length; i++) {
      if (!reachable[i]) continue;
      if (token === "*") {
        for (let j = i; j <= text.length; j++) next[j] = true;
        break;
      }
      if (i < text.length && token(text[i]!)) next[i + 1] = true;
    }
    reachable = next;
  }
  return reachable[text.length]!;
}

type GlobToken = "*" | ((c: string) => boolean);

function globTokens(pattern: string): GlobToken[] {
  const tokens: GlobToken[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "*") {
      if (tokens[tokens.length - 1] !== "*") tokens.push("*");
    } else if (c === "?") {
      tokens.push(() => true);
    } else if (c === "[") {
      // As fnmatch: a `]` first in the set (after any `!`) is a member, not the end.
      let from = i + 1;
      if (pattern[from] === "!") from++;
      if (pattern[from] === "]") from++;
      const close = pattern.indexOf("]", from);
      if (close < 0) {
        tokens.push((x) => x === "[");
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith("!");
      if (negated) body = body.slice(1);
      const inSet = (x: string) => {
        for (let k = 0; k < body.length; k++) {
          if (body[k + 1] === "-" && k + 2 < body.length) {
            if (x >= body[k]! && x <= body[k + 2]!) return true;
            k += 2;
          } else if (body[k] === x) return true;
        }
        return false;
      };
      tokens.push((x) => inSet(x) !== negated);
      i = close;
    } else {
      tokens.push((x) => x === c);
    }
  }
  return tokens;
}

/** A JSON list of patterns from the URL; anything else counts as no filter, as Zulip's parser refuses it. */
function patterns(raw: string | undefined): string[] | undefined {
  if (raw === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed)) return undefined;
  return parsed
    .filter((p): p is string => typeof p === "string")
    .slice(0, MAX_PATTERNS)
    .map((p) => p.slice(0, MAX_PATTERN_LENGTH));
}

/** `only_events` keeps the events matching one of its patterns; `exclude_events` then drops those matching one of its. */
export function eventWanted(event: string | undefined, params: Record<string, string>): boolean {
  if (event === undefined) return true;
  const only = patterns(params.only_events);
  if (only && !only.some((p) => globMatch(p, event))) return false;
  const excluded = patterns(params.exclude_events);
  return !excluded?.some((p) => globMatch(p, event));
}

/** Python's `unquote`: valid percent-escapes are decoded, anything else is left as it is. */
export function unquote(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** The messages to post for an outcome: none for a filtered event; the URL's `topic`, when given, replaces each message's. */
export function messagesToPost(outcome: WebhookOutcome, params: Record<string, string>): WebhookMessage[] {
  if (!eventWanted(outcome.event, params)) return [];
  const topic = params.topic !== undefined && outcome.unquoteTopic ? unquote(params.topic) : params.topic;
  return topic ? outcome.messages.map((m) => ({ ...m, topic })) : outcome.messages;
}
