/** The generic JSON integration: posts the payload itself, pretty-printed in a code block (topic "JSON"). */
import { ZulipError, badRequest } from "../http/errors.js";
import { AnomalousPayload, type Integration } from "./types.js";

export const json: Integration = {
  name: "json",
  displayName: "JSON",
  handle(request) {
    if (request.json === undefined) throw new AnomalousPayload();
    // Zulip's view takes the body as a JSON object.
    if (typeof request.json !== "object" || request.json === null || Array.isArray(request.json)) throw badRequest("payload is not a dict");
    // From the text when there is one: JSON.parse loses integers' digits past 2^53 and puts integer-like keys first.
    const value = request.body !== undefined ? exactJson(request.body) : request.json;
    return { messages: [{ topic: "JSON", content: "```json\n" + pythonJsonDumps(value, 2) + "\n```" }] };
  },
};

/** A JSON number as written, kept apart from JavaScript's numbers. */
class JsonNumber {
  constructor(readonly text: string) {}
}
/** An object's members in the order written (later duplicates replace earlier values in place, as Python's dict does). */
class JsonObject {
  readonly entries: [string, unknown][] = [];
  private readonly at = new Map<string, number>();
  set(key: string, value: unknown): void {
    const i = this.at.get(key);
    if (i !== undefined) this.entries[i] = [key, value];
    else this.at.set(key, this.entries.push([key, value]) - 1);
  }
}

const MAX_DEPTH = 1024;
const SCALAR = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null/y;

/**
 * Parses JSON text keeping numbers as written and members in order; JSON.parse has already
 * accepted the text, so this only has to follow its structure (iteratively, for deep nesting).
 */
export function exactJson(text: string): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const scalar = (): unknown => {
    if (text[i] === '"') return str();
    SCALAR.lastIndex = i;
    const m = SCALAR.exec(text);
    if (!m) throw new AnomalousPayload();
    i += m[0].length;
    return m[0] === "true" ? true : m[0] === "false" ? false : m[0] === "null" ? null : new JsonNumber(m[0]);
  };
  type Frame = { container: unknown[] | JsonObject; key?: string };
  const stack: Frame[] = [];
  let root: unknown;
  const place = (v: unknown) => {
    const top = stack[stack.length - 1];
    if (!top) root = v;
    else if (Array.isArray(top.container)) top.container.push(v);
    else top.container.set(top.key!, v);
  };
  ws();
  for (;;) {
    const top = stack[stack.length - 1];
    if (top && !Array.isArray(top.container)) {
      // In an object: a key (or the end), then its value.
      ws();
      if (text[i] === ",") i++, ws();
      if (text[i] === "}") {
        i++;
        stack.pop();
        if (!stack.length) break;
        continue;
      }
      top.key = str();
      ws();
      i++; // ':'
      ws();
    } else if (top) {
      ws();
      if (text[i] === ",") i++, ws();
      if (text[i] === "]") {
        i++;
        stack.pop();
        if (!stack.length) break;
        continue;
      }
    }
    if (text[i] === "{" || text[i] === "[") {
      const container = text[i] === "{" ? new JsonObject() : [];
      i++;
      // Zulip's JSON parser (orjson) refuses nesting past 1,024 levels; so does this, before indenting gets quadratic.
      if (stack.length >= MAX_DEPTH) throw new ZulipError("Malformed JSON", "INVALID_JSON", 400);
      place(container);
      stack.push({ container });
      continue;
    }
    place(scalar());
    if (!stack.length) break;
  }
  return root;
}

/**
 * JSON as Python's `json.dumps(value, indent=n)` writes it: `, ` / `: ` separators, non-ASCII
 * escaped as `\uXXXX`, integers exactly, floats in Python's repr, empty containers as `[]` / `{}`.
 */
export function pythonJsonDumps(value: unknown, indent: number): string {
  const pad = " ".repeat(indent);
  const parts: string[] = [];
  // Iterative, so a deeply nested payload cannot overflow the stack.
  type Item = { value: unknown; depth: number; prefix?: string; last?: boolean };
  const stack: ({ text: string } | Item)[] = [{ value, depth: 0, last: true }];
  while (stack.length) {
    const item = stack.pop()!;
    if ("text" in item) {
      parts.push(item.text);
      continue;
    }
    const { value: v, depth } = item;
    const comma = item.last ? "" : ",";
    parts.push(item.prefix ?? "");
    const inner = pad.repeat(depth + 1);
    const outer = pad.repeat(depth);
    let entries: [string | null, unknown][] | undefined;
    let open = "";
    let close = "";
    if (Array.isArray(v)) [entries, open, close] = [v.map((x) => [null, x]), "[", "]"];
    else if (v instanceof JsonObject) [entries, open, close] = [v.entries, "{", "}"];
    else if (typeof v === "object" && v !== null && !(v instanceof JsonNumber)) [entries, open, close] = [Object.entries(v), "{", "}"];
    if (!entries) {
      parts.push(scalarText(v) + comma);
      continue;
    }
    if (!entries.length) {
      parts.push(open + close + comma);
      continue;
    }
    parts.push(open + "\n");
    stack.push({ text: "\n" + outer + close + comma });
    for (let k = entries.length - 1; k >= 0; k--) {
      const [key, x] = entries[k]!;
      stack.push({ value: x, depth: depth + 1, prefix: inner + (key === null ? "" : asciiString(key) + ": "), last: k === entries.length - 1 });
      if (k > 0) stack.push({ text: "\n" });
    }
  }
  return parts.join("");
}

function scalarText(v: unknown): string {
  if (v === null || v === undefined) return "null";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "string") return asciiString(v);
  if (v instanceof JsonNumber) return numberText(v.text);
  if (typeof v === "number") return Number.isInteger(v) && Math.abs(v) < 1e16 ? String(v) : pythonFloat(v);
  return "null";
}

function asciiString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

/** An integer as written (Python's ints are exact; `-0` is 0); anything with a fraction or exponent as Python's float. */
function numberText(text: string): string {
  if (/^-?\d+$/.test(text)) return text === "-0" ? "0" : text.replace(/^(-?)0+(?=\d)/, "$1");
  return pythonFloat(Number(text));
}

/** Python's float repr: the shortest digits, fixed notation from 1e-4 up to 1e16, `.0` on whole numbers. */
function pythonFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : n < 0 ? "-Infinity" : "NaN";
  if (n === 0) return Object.is(n, -0) ? "-0.0" : "0.0";
  const [mantissa, exp] = n.toExponential().split("e") as [string, string];
  const e = Number(exp);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace(/^-/, "").replace(".", "");
  if (e < -4 || e >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
  const frac = digits.slice(e + 1);
  return `${sign}${whole}.${frac || "0"}`;
}
