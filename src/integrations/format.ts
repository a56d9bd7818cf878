/**
 * What the monitoring and CI integrations share beyond git.ts's typed reading: a required
 * field, the payload as an object, and values shown as Python's `str()` shows them, since
 * Zulip's messages print payload values that way.
 */
import { field } from "./git.js";
import { AnomalousPayload } from "./types.js";

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The value at `path`, which must be present (it may be null). */
export function at(value: unknown, ...path: string[]): unknown {
  const v = field(value, ...path);
  if (v === undefined) throw new AnomalousPayload();
  return v;
}

export function has(value: unknown, key: string): boolean {
  return field(value, key) !== undefined;
}

/** A list's first element, which must be there. */
export function first(value: unknown): unknown {
  if (!Array.isArray(value) || value.length === 0) throw new AnomalousPayload();
  return value[0];
}

/** A payload value as Python's `str()` prints the scalars services send. */
export function display(value: unknown): string {
  if (value === true) return "True";
  if (value === false) return "False";
  if (value === null || value === undefined) return "None";
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** The body as a JSON object; anything else is not what these services send. */
export function payloadObject(json: unknown): Record<string, unknown> {
  if (!isObject(json)) throw new AnomalousPayload();
  return json;
}
