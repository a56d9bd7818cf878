/**
 * Linkifiers: organization-defined patterns that turn text like `#123` into links. Patterns are
 * RE2 syntax and run on re2js, whose matching time is linear in the input, so no pattern an
 * administrator writes can stall rendering.
 */
import type { RE2JS } from "re2js";
import { UriTemplate } from "./uri_template.js";
import { lazyModule } from "./lazy_module.js";

// re2js loads when an organization first has a linkifier, not at every start.
const loadRe2 = lazyModule<typeof import("re2js")>("re2js");

export interface Linkifier {
  pattern: string;
  url_template: string;
}

const BEFORE = "linkifier_before_match";
const ACTUAL = "linkifier_actual_match";
const AFTER = "linkifier_after_match";

/**
 * The admin's pattern must start at the start of the text, after whitespace or after one of
 * `' " ( , : <`, and must not be followed by a letter or digit.
 */
export function prepareLinkifierPattern(source: string): string {
  return `(?P<${BEFORE}>^|\\s|\\x{85}|\\pZ|['"\\(,:<])(?P<${ACTUAL}>${source})(?P<${AFTER}>$|[^\\pL\\pN])`;
}

export interface LinkifierMatch {
  /** Bounds of the linked text (without the delimiters around it). */
  start: number;
  end: number;
  text: string;
  url: string;
}

export interface CompiledLinkifier {
  /**
   * The first match at or after `from`, with its expanded URL; `matchStart` and `matchEnd` are
   * the bounds of the whole match, delimiters included.
   */
  find(data: string, from: number): (LinkifierMatch & { matchStart: number; matchEnd: number }) | null;
}

/** Compiles a linkifier; null if the pattern or template is unusable (it then matches nothing). */
export function compileLinkifier(linkifier: Linkifier): CompiledLinkifier | null {
  if (linkifierPatternError(linkifier.pattern) !== null) return null;
  let re: RE2JS;
  try {
    re = loadRe2().RE2JS.compile(prepareLinkifierPattern(linkifier.pattern));
  } catch {
    return null;
  }
  const template = UriTemplate.parse(linkifier.url_template);
  if (!template) return null;
  const names = Object.entries(re.namedGroups());
  return {
    find(data, from) {
      if (from > data.length) return null;
      const m = re.matcher(data);
      if (!m.find(from)) return null;
      const values: Record<string, string | undefined> = {};
      for (const [name] of names) values[name] = m.group(name) ?? undefined;
      return {
        start: m.start(ACTUAL),
        end: m.end(ACTUAL),
        matchStart: m.start(0),
        matchEnd: m.end(0),
        text: m.group(ACTUAL) ?? "",
        url: template.expand(values),
      };
    },
  };
}

const compiledCache = new Map<string, CompiledLinkifier | null>();

/** `compileLinkifier`, remembering recent results: organizations keep their linkifiers a while. */
export function cachedLinkifier(l: Linkifier): CompiledLinkifier | null {
  const key = `${l.pattern}\u0000${l.url_template}`;
  if (!compiledCache.has(key)) {
    if (compiledCache.size > 1000) compiledCache.clear();
    compiledCache.set(key, compileLinkifier(l));
  }
  return compiledCache.get(key)!;
}

/**
 * re2js reports errors in the words of Go's regexp/syntax; Zulip reports RE2's (C++). Where the
 * two name the same failure differently, RE2's text is used.
 */
const RE2_MESSAGES: [RegExp, string][] = [
  [/^missing closing \)/, "missing )"],
  [/^unexpected \)/, "unexpected )"],
  [/^missing closing \]/, "missing ]"],
  [/^invalid nested repetition operator/, "bad repetition operator"],
  [/^invalid repeat count/, "invalid repetition size"],
  [/^missing argument to repetition operator/, "no argument for repetition operator"],
  [/^trailing backslash/, "trailing \\"],
  [/^invalid escape sequence/, "invalid escape sequence"],
  [/^invalid character class range/, "invalid character class range"],
  [/^invalid character class/, "invalid character class"],
  [/^invalid named capture/, "invalid named capture group"],
  [/^duplicate capture group name/, "duplicate capture group name"],
  [/^invalid or unsupported Perl syntax/, "invalid perl operator"],
  [/^invalid UTF-8/, "invalid UTF-8"],
];

/** RE2's text when a program exceeds its memory budget. */
const TOO_LARGE = "pattern too large - compile failed";

/**
 * The largest program (in instructions) a linkifier pattern may compile to. Matching costs up to
 * one step per instruction per character of text, for every linkifier and every message; this
 * keeps one linkifier's pass over the longest message to a few milliseconds. RE2 itself allows
 * larger programs; patterns people write for linkifiers compile to a few dozen instructions.
 */
export const MAX_LINKIFIER_PROGRAM_SIZE = 2000;

function goErrorToRe2(message: string): string {
  const m = /^error parsing regexp: (.*?)(?:: `(.*)`)?$/s.exec(message);
  const what = m ? m[1] : message;
  const arg = m?.[2];
  if (/^expression (?:too large|nests too deeply)/.test(what)) return TOO_LARGE;
  // Go takes `(?<=` for a malformed group name; RE2 refuses look-behind as a Perl operator.
  if (arg !== undefined && /^\(\?<[=!]/.test(arg)) return `invalid perl operator: ${arg.slice(0, 4)}`;
  const known = RE2_MESSAGES.find(([re]) => re.test(what));
  const text = known ? known[1] : what;
  return arg === undefined ? text : `${text}: ${arg}`;
}

/**
 * Why a linkifier pattern is not usable, in the words of RE2 itself (as Zulip reports it:
 * "missing ): (foo"); null when the pattern compiles.
 */
export function linkifierPatternError(pattern: string): string | null {
  let re: RE2JS;
  try {
    re = loadRe2().RE2JS.compile(pattern);
  } catch (e) {
    if (!(e instanceof loadRe2().RE2JSException)) throw e;
    return goErrorToRe2(e.message);
  }
  return re.programSize() > MAX_LINKIFIER_PROGRAM_SIZE ? TOO_LARGE : null;
}

/** The names of a valid pattern's named groups. */
export function linkifierPatternGroups(pattern: string): string[] {
  return Object.keys(loadRe2().RE2JS.compile(pattern).namedGroups());
}
