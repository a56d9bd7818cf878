/** The generic JSON integration: posts the payload itself, pretty-printed in a code block (topic "JSON"). */
import { AnomalousPayload, type Integration } from "./types.js";

export const json: Integration = {
  name: "json",
  displayName: "JSON",
  handle(request) {
    if (request.json === undefined) throw new AnomalousPayload();
    return { messages: [{ topic: "JSON", content: "```json\n" + pythonJsonDumps(request.json, 2) + "\n```" }] };
  },
};

/**
 * JSON as Python's `json.dumps(value, indent=n)` writes it: `, ` / `: ` separators, non-ASCII
 * escaped as `\uXXXX`, floats in Python's shortest form, empty containers as `[]` / `{}`.
 */
export function pythonJsonDumps(value: unknown, indent: number): string {
  const pad = " ".repeat(indent);
  const write = (v: unknown, depth: number): string => {
    if (v === null || v === undefined) return "null";
    if (typeof v === "boolean") return v ? "true" : "false";
    if (typeof v === "number") return pythonNumber(v);
    if (typeof v === "string") return asciiString(v);
    const inner = pad.repeat(depth + 1);
    const outer = pad.repeat(depth);
    if (Array.isArray(v)) {
      if (!v.length) return "[]";
      return "[\n" + v.map((x) => inner + write(x, depth + 1)).join(",\n") + "\n" + outer + "]";
    }
    const entries = Object.entries(v as Record<string, unknown>);
    if (!entries.length) return "{}";
    return "{\n" + entries.map(([k, x]) => inner + asciiString(k) + ": " + write(x, depth + 1)).join(",\n") + "\n" + outer + "}";
  };
  return write(value, 0);
}

function asciiString(s: string): string {
  return JSON.stringify(s).replace(/[\u007f-\uffff]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
}

/** Python prints floats with an exponent from 1e16 up and below 1e-4, and keeps `.0` on whole floats it parsed as floats; JSON.parse loses that distinction, so whole numbers print as integers. */
function pythonNumber(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? "Infinity" : n < 0 ? "-Infinity" : "NaN";
  if (Number.isInteger(n) && Math.abs(n) < 1e16) return String(n);
  const s = String(n);
  const m = /^(-?)(\d(?:\.\d+)?)e([+-])(\d+)$/.exec(s);
  if (m) return `${m[1]}${m[2]}e${m[3]}${m[4].padStart(2, "0")}`;
  return s;
}
