/**
 * Alert words: which users' words occur in a message, by Zulip's rules.
 *
 * Zulip scans the lowercased Markdown source after whitespace normalization and after fenced
 * code blocks were taken out, with one Aho–Corasick automaton over every alert word of the
 * organization. A hit counts only when the word stands between allowed neighbours: the start of
 * the text or one of BEFORE, and the end of the text or one of AFTER. (Zulip's list of followers
 * holds the two-character string `",`, which never equals one character: a bare `"` after a word
 * does not count.)
 */
import { badRequest } from "../http/errors.js";

const BEFORE = new Set([" ", "\n", "(", '"', ".", ",", "'", ";", "[", "*", "`", ">"]);
const AFTER = new Set([" ", "\n", ")", "?", ":", ".", ",", "'", ";", "]", "!", "*", "`"]);

const TAB_STOP = 4;

function expandTabs(line: string): string {
  if (!line.includes("\t")) return line;
  let out = "";
  for (const ch of line) {
    out += ch === "\t" ? " ".repeat(TAB_STOP - (out.length % TAB_STOP)) : ch;
  }
  return out;
}

// An opening fence: ``` or ~~~ (three or more) at the very start of the line, then an optional
// language and header. The language class keeps Zulip's `+-.` range, which admits a comma.
const FENCE = /^(~{3,}|`{3,})[ ]*(?:\{?\.?([a-zA-Z0-9_+,\-./#]+)[ ]*([^ ~`][^~`]*)?\}?)?$/;

type Block = { fence: string; kind: "code" | "quote" | "spoiler"; lines: string[]; header?: string };

/**
 * The text alert words are searched in: lines outside code and math fences, plus the contents of
 * quote and spoiler fences (which Zulip renders as Markdown), with line breaks normalized and tabs
 * expanded as Python-Markdown does before fences are read. Unclosed fences run to the end.
 */
export function alertWordSearchText(content: string): string {
  const lines = content
    .replace(/[\u0002\u0003]/g, "")
    .replace(/\r\n?/g, "\n")
    .split("\n")
    .map(expandTabs);
  const output: string[] = [];
  const stack: Block[] = [];
  const sink = () => (stack.length ? stack[stack.length - 1].lines : output);

  const close = () => {
    const block = stack.pop()!;
    const target = sink();
    target.push("");
    if (block.kind !== "code") {
      if (block.header !== undefined) target.push(block.header);
      target.push(...block.lines);
    }
    target.push("");
  };

  for (const line of lines) {
    const top = stack[stack.length - 1];
    if (top && line.trimEnd() === top.fence) {
      close();
      continue;
    }
    if (top?.kind === "code") continue;
    const m = FENCE.exec(line);
    if (!m) {
      sink().push(line);
      continue;
    }
    const lang = (m[2] ?? "").toLowerCase();
    const kind = lang === "quote" || lang === "quoted" ? "quote" : lang === "spoiler" ? "spoiler" : "code";
    stack.push({ fence: m[1], kind, lines: [], header: kind === "spoiler" ? m[3] : undefined });
  }
  while (stack.length) close();
  return output.join("\n").toLowerCase();
}

interface Pattern {
  length: number;
  userIds: number[];
}

/** Finds, for a message's content, the users whose alert words occur in it. */
export type AlertWordMatcher = (content: string) => Set<number>;

/**
 * Builds one automaton over all the words (matching is case-insensitive, so words are
 * lowercased and users sharing a word share its pattern). Matching is linear in the text plus
 * the number of hits, however many words there are.
 */
export function buildAlertWordMatcher(wordsByUser: ReadonlyMap<number, readonly string[]>): AlertWordMatcher {
  const patternOf = new Map<string, number>();
  const patterns: Pattern[] = [];
  for (const [userId, words] of wordsByUser) {
    for (const word of words) {
      const lower = word.toLowerCase();
      if (!lower) continue;
      let p = patternOf.get(lower);
      if (p === undefined) {
        p = patterns.length;
        patterns.push({ length: lower.length, userIds: [] });
        patternOf.set(lower, p);
      }
      if (!patterns[p].userIds.includes(userId)) patterns[p].userIds.push(userId);
    }
  }
  if (!patterns.length) return () => new Set();

  // Trie over UTF-16 code units; node 0 is the root. One map holds every edge (node, code unit)
  // and children are chained through arrays: a map per node would cost far more to build and hold.
  const edges = new Map<number, number>();
  const edgeKey = (node: number, code: number) => node * 0x10000 + code;
  const terminal: number[] = [-1];
  const firstChild: number[] = [-1];
  const nextSibling: number[] = [-1];
  const codeOf: number[] = [0];
  for (const [word, p] of patternOf) {
    let node = 0;
    for (let i = 0; i < word.length; i++) {
      const code = word.charCodeAt(i);
      let child = edges.get(edgeKey(node, code));
      if (child === undefined) {
        child = terminal.length;
        terminal.push(-1);
        codeOf.push(code);
        firstChild.push(-1);
        nextSibling.push(firstChild[node]);
        firstChild[node] = child;
        edges.set(edgeKey(node, code), child);
      }
      node = child;
    }
    terminal[node] = p;
  }
  const step = (node: number, code: number) => edges.get(edgeKey(node, code));

  // Failure links, and for each node the nearest terminal node along its failure chain.
  const fail = new Array<number>(terminal.length).fill(0);
  const outputLink = new Array<number>(terminal.length).fill(-1);
  const queue: number[] = [];
  for (let c = firstChild[0]; c >= 0; c = nextSibling[c]) queue.push(c);
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    for (let child = firstChild[node]; child >= 0; child = nextSibling[child]) {
      const code = codeOf[child];
      let f = fail[node];
      while (f !== 0 && step(f, code) === undefined) f = fail[f];
      fail[child] = step(f, code) ?? 0;
      outputLink[child] = terminal[fail[child]] >= 0 ? fail[child] : outputLink[fail[child]];
      queue.push(child);
    }
  }

  return (content) => {
    const text = alertWordSearchText(content);
    const found = new Set<number>();
    const done = new Set<number>();
    let node = 0;
    for (let i = 0; i < text.length; i++) {
      const code = text.charCodeAt(i);
      while (node !== 0 && step(node, code) === undefined) node = fail[node];
      node = step(node, code) ?? 0;
      for (let hit = terminal[node] >= 0 ? node : outputLink[node]; hit >= 0; hit = outputLink[hit]) {
        const p = terminal[hit];
        if (done.has(p)) continue;
        const start = i - patterns[p].length + 1;
        const startOk = start === 0 || BEFORE.has(text[start - 1]);
        const endOk = i + 1 === text.length || AFTER.has(text[i + 1]);
        if (startOk && endOk) {
          done.add(p);
          for (const u of patterns[p].userIds) found.add(u);
        }
      }
    }
    return found;
  };
}

/**
 * Zulip limits only each word's length. Every word of an organization goes into one automaton,
 * rebuilt after each change, so Confab also limits how many words one user keeps.
 */
export const MAX_ALERT_WORDS_PER_USER = 1000;

export function checkAlertWordCount(count: number): void {
  if (count > MAX_ALERT_WORDS_PER_USER) throw badRequest(`Too many alert words (limit: ${MAX_ALERT_WORDS_PER_USER})`);
}

/** Cleans words sent to POST /users/me/alert_words: surrounding whitespace off, empty ones dropped. */
export function cleanAlertWords(words: readonly string[]): string[] {
  return words.map((w) => w.trim()).filter((w) => w !== "");
}

/**
 * The words to store for a user who has `existing` and sent `requested` (already cleaned):
 * case-insensitively new ones only; among case variants sent together the last spelling wins,
 * in the position of the first.
 */
export function newAlertWords(existing: readonly string[], requested: readonly string[]): string[] {
  const have = new Set(existing.map((w) => w.toLowerCase()));
  const chosen = new Map<string, string>();
  for (const word of requested) {
    const lower = word.toLowerCase();
    if (!have.has(lower)) chosen.set(lower, word);
  }
  return [...chosen.values()];
}
