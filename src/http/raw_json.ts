/**
 * JSON already serialized, to be placed as-is in a response: a large value shared by many
 * responses (an organization's user list) is serialized and UTF-8 encoded once instead of on
 * every request. Only top-level values of a response body may be RawJson.
 */
import { randomUUID } from "node:crypto";

export class RawJson {
  /** The UTF-8 JSON text, in pieces laid end to end (a shared list with one entry replaced). */
  readonly chunks: readonly Buffer[];

  constructor(json: string | Buffer | readonly Buffer[]) {
    this.chunks = typeof json === "string" ? [Buffer.from(json)] : Buffer.isBuffer(json) ? [json] : json;
  }
}

/**
 * Placeholders stand in for raw values while the rest is serialized. The random part is not
 * known outside this process, so no string a client sent can be taken for one.
 */
const PLACEHOLDER = `\u0000raw-json:${randomUUID()}:`;
const QUOTED_PLACEHOLDER = JSON.stringify(PLACEHOLDER).slice(0, -1);
const PLACEHOLDER_PATTERN = new RegExp(`${escapeRegExp(QUOTED_PLACEHOLDER)}(\\d+)"`, "g");

/**
 * JSON.stringify of `body` followed by `suffix`, with its top-level RawJson values spliced in.
 * With any RawJson it is UTF-8 bytes, so that a large shared value is copied once into the answer,
 * never scanned, encoded or measured again; otherwise a string.
 */
export function serializeWithRaw(body: Record<string, unknown>, suffix = ""): string | Buffer {
  let raws: RawJson[] | undefined;
  let out: Record<string, unknown> = body;
  for (const key in body) {
    const value = body[key];
    if (!(value instanceof RawJson)) continue;
    if (!raws) {
      raws = [];
      out = { ...body };
    }
    out[key] = PLACEHOLDER + raws.length;
    raws.push(value);
  }
  const json = JSON.stringify(out) + suffix;
  if (!raws) return json;
  // split() with a capturing group alternates text and captured raw indexes.
  const pieces = json.split(PLACEHOLDER_PATTERN);
  const chunks: Buffer[] = [];
  pieces.forEach((piece, i) => {
    if (i % 2 === 0) chunks.push(Buffer.from(piece));
    // One at a time: a spread of a list of thousands of pieces would pass them all as arguments.
    else for (const chunk of raws![Number(piece)].chunks) chunks.push(chunk);
  });
  return Buffer.concat(chunks);
}

/**
 * The members of `fields` (whose values may be RawJson), then those of the JSON object `raw`, as
 * one JSON object followed by `suffix`.
 */
export function extendRawObject(fields: Record<string, unknown>, raw: RawJson, suffix = ""): Buffer {
  const serialized = serializeWithRaw(fields);
  const head = (typeof serialized === "string" ? Buffer.from(serialized) : serialized).subarray(0, -1);
  const object = raw.chunks.length === 1 ? raw.chunks[0] : Buffer.concat(raw.chunks);
  const members = object.subarray(1, -1);
  return Buffer.concat([head, members.length ? COMMA : EMPTY, members, Buffer.from("}" + suffix)]);
}

const [COMMA, EMPTY] = [",", ""].map((c) => Buffer.from(c));

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
