/**
 * JSON already serialized, to be placed as-is in a response: a large value shared by many
 * responses (an organization's user list) is serialized once instead of on every request.
 * Only top-level values of a response body may be RawJson.
 */
import { randomUUID } from "node:crypto";

export class RawJson {
  constructor(readonly json: string) {}
}

/**
 * Placeholders stand in for raw values while the rest is serialized. The random part is not
 * known outside this process, so no string a client sent can be taken for one.
 */
const PLACEHOLDER = `\u0000raw-json:${randomUUID()}:`;

/** JSON.stringify of `body`, with its top-level RawJson values spliced in. */
export function stringifyWithRaw(body: Record<string, unknown>): string {
  let raws: string[] | undefined;
  let out: Record<string, unknown> = body;
  for (const key in body) {
    const value = body[key];
    if (!(value instanceof RawJson)) continue;
    if (!raws) {
      raws = [];
      out = { ...body };
    }
    out[key] = PLACEHOLDER + raws.length;
    raws.push(value.json);
  }
  const json = JSON.stringify(out);
  if (!raws) return json;
  const quoted = JSON.stringify(PLACEHOLDER).slice(0, -1);
  return json.replace(new RegExp(`${escapeRegExp(quoted)}(\\d+)"`, "g"), (_, i: string) => raws![Number(i)]);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
