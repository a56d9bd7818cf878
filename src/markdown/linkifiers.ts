/**
 * Linkifiers: organization-defined patterns that turn text like `#123` into links. Patterns are
 * RE2 syntax and run on re2js, whose matching time is linear in the input, so no pattern an
 * administrator writes can stall rendering.
 */
import { RE2JS, RE2JSException } from "re2js";
import { UriTemplate } from "./uri_template.js";

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
  /** The first match at or after `from`, with its expanded URL. */
  find(data: string, from: number): (LinkifierMatch & { matchEnd: number }) | null;
}

/** Compiles a linkifier; null if the pattern or template is unusable (it then matches nothing). */
export function compileLinkifier(linkifier: Linkifier): CompiledLinkifier | null {
  let re: RE2JS;
  try {
    re = RE2JS.compile(prepareLinkifierPattern(linkifier.pattern));
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
        matchEnd: m.end(0),
        text: m.group(ACTUAL) ?? "",
        url: template.expand(values),
      };
    },
  };
}

const RE2_MESSAGES: [RegExp, string][] = [
  [/^missing closing \)/, "missing )"],
  [/^unexpected \)/, "unexpected )"],
  [/^missing closing \]/, "missing ]"],
  [/^invalid nested repetition operator/, "bad repetition operator"],
  [/^invalid repeat count/, "bad repetition operator"],
  [/^missing argument to repetition operator/, "no argument for repetition operator"],
  [/^invalid escape sequence/, "invalid escape sequence"],
  [/^invalid character class range/, "invalid character class range"],
  [/^invalid character class/, "invalid character class"],
  [/^invalid named capture/, "invalid named capture group"],
  [/^duplicate capture group name/, "duplicate capture group name"],
  [/^invalid or unsupported Perl syntax/, "invalid or unsupported Perl syntax"],
  [/^invalid UTF-8/, "invalid UTF-8"],
];

/**
 * Why a linkifier pattern is not valid RE2, in the words of RE2 itself (as Zulip reports it:
 * "missing ): (foo"); null when the pattern compiles.
 */
export function linkifierPatternError(pattern: string): string | null {
  try {
    RE2JS.compile(pattern);
    return null;
  } catch (e) {
    if (!(e instanceof RE2JSException)) throw e;
    const m = /^error parsing regexp: (.*?)(?:: `(.*)`)?$/s.exec(e.message);
    const what = m ? m[1] : e.message;
    const arg = m?.[2];
    const known = RE2_MESSAGES.find(([re]) => re.test(what));
    const text = known ? known[1] : what;
    return arg === undefined ? text : `${text}: ${arg}`;
  }
}
